// Non-blocking collectives: each operation a fiber running the lowered blocking algorithm
// (Nonblocking.h).
#include "Nonblocking.h"

#include "Transport.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace mpiete::nbc {

enum class State : uint8_t { Queued, Running, Done };
/// How a resumed fiber treats its waits: Start returns at once (the round's messages are
/// posted), Poll tests them once, Block waits for them, Progress completes them only if they
/// are complete already (asking the transport without recording anything).
enum class Mode : uint8_t { Start, Poll, Block, Progress };

struct Op {
  ucontext_t Fiber;
  ucontext_t Caller;
  void *Stack = nullptr;
  Body B;
  MPI_Comm Comm = MPI_COMM_NULL;
  Op *Next = nullptr; ///< the next operation started on Comm (while this one is unfinished)
  int Rc = MPI_SUCCESS;
  State S = State::Queued;
  Mode M = Mode::Start;
  /// Where its fiber waits (valid while it is suspended in waitPoint): what a rank that can
  /// only wait for it says it waits for (the token machine's deadlock report).
  mpiete_site_t WaitSite = 0;
  int WaitN = 0;
  MPI_Request *WaitReqs = nullptr;
};

namespace {

/// Fiber stacks: generous for the algorithms' PMPI calls (they allocate their buffers on the
/// heap), committed only where touched, with an inaccessible guard page below.
constexpr size_t StackBytes = 512 * 1024;

/// The unfinished operations of one communicator, in start order: the head alone may have
/// run (Running), the others wait for it (Queued).
struct Chain {
  MPI_Comm Comm;
  Op *Head;
  Op *Tail;
};

constinit thread_local Op *Current = nullptr;
constinit int Outstanding = 0;
/// Set by a Progress-mode wait that completed its round.
constinit bool Progressed = false;
std::vector<Op *> FreeOps;
std::vector<Chain> Chains;

size_t pageSize() {
  static const size_t P = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return P;
}

void *newStack() {
  const size_t Guard = pageSize();
  void *M = ::mmap(nullptr, StackBytes + Guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (M == MAP_FAILED) { // not Recorder's fail: runtime/test/coll links this file without it
    std::fprintf(stderr, "mpiete: error: cannot map a stack for a non-blocking collective\n");
    std::abort();
  }
  ::mprotect(M, Guard, PROT_NONE);
  return static_cast<char *>(M) + Guard;
}

Op *newOp() {
  if (!FreeOps.empty()) {
    Op *O = FreeOps.back();
    FreeOps.pop_back();
    return O;
  }
  Op *O = new Op;
  O->Stack = newStack();
  return O;
}

Chain &chainOf(MPI_Comm Comm) {
  for (Chain &C : Chains)
    if (C.Comm == Comm)
      return C;
  Chains.push_back({Comm, nullptr, nullptr});
  return Chains.back();
}

void entry() {
  Op *O = Current;
  O->Rc = O->B.Run(O->B.Storage);
  O->S = State::Done;
  // Returning continues at uc_link: the context of the resume that ran this last.
}

/// Runs O's fiber in mode M until it waits (Start, Poll) or ends.
void resume(Op *O, Mode M) {
  if (O->S == State::Done)
    return;
  if (O->S == State::Queued) {
    ::getcontext(&O->Fiber);
    O->Fiber.uc_stack.ss_sp = O->Stack;
    O->Fiber.uc_stack.ss_size = StackBytes;
    O->Fiber.uc_link = &O->Caller;
    ::makecontext(&O->Fiber, entry, 0);
    O->S = State::Running;
  }
  O->M = M;
  Op *const Outer = Current;
  Current = O;
  ::swapcontext(&O->Caller, &O->Fiber);
  Current = Outer;
}

/// After Chain's head may have finished: drops finished operations from the chain and starts
/// the next one (its first round), as MPI's progress would.
void advance(Chain &C) {
  while (C.Head != nullptr && C.Head->S == State::Done) {
    Op *Next = C.Head->Next;
    C.Head->Next = nullptr;
    C.Head = Next;
    if (Next == nullptr)
      C.Tail = nullptr;
    else if (Next->S == State::Queued)
      resume(Next, Mode::Start);
  }
}

void yieldToCaller(Op *O) { ::swapcontext(&O->Fiber, &O->Caller); }

/// Drives C's head once in Progress mode (a queued head gets its first round posted), and on
/// along the chain while operations finish, stopping after Last if given: whether any moved.
bool progressChain(Chain &C, const Op *Last) {
  bool Advanced = false;
  while (C.Head != nullptr) {
    Op *H = C.Head;
    const bool WasQueued = H->S == State::Queued;
    Progressed = false;
    resume(H, WasQueued ? Mode::Start : Mode::Progress);
    const bool Finished = H->S == State::Done;
    Advanced |= WasQueued || Progressed || Finished;
    advance(C);
    if (!Finished || H == Last)
      break;
  }
  return Advanced;
}

/// Wall-clock seconds (the grace's clock).
double now() {
  timespec T;
  ::clock_gettime(CLOCK_MONOTONIC, &T);
  return static_cast<double>(T.tv_sec) + 1e-9 * static_cast<double>(T.tv_nsec);
}

} // namespace

Op *start(MPI_Comm Comm, const Body &B) {
  Op *O = newOp();
  O->B = B;
  O->Comm = Comm;
  O->Next = nullptr;
  O->Rc = MPI_SUCCESS;
  O->S = State::Queued;
  ++Outstanding;
  Chain &C = chainOf(Comm);
  if (C.Tail != nullptr) {
    C.Tail->Next = O;
    C.Tail = O;
    return O; // starts when the operations before it have finished
  }
  C.Head = C.Tail = O;
  resume(O, Mode::Start);
  advance(C);
  return O;
}

bool poll(Op *O) {
  if (O->S == State::Done)
    return true;
  Chain &C = chainOf(O->Comm);
  while (C.Head != nullptr) {
    Op *H = C.Head;
    // A queued operation gets its first round posted; a running one is tested once.
    resume(H, H->S == State::Queued ? Mode::Start : Mode::Poll);
    const bool Finished = H->S == State::Done;
    advance(C);
    if (!Finished || H == O)
      break;
  }
  return O->S == State::Done;
}

int finish(Op *O) {
  Chain &C = chainOf(O->Comm);
  if (Current != nullptr) { // inside another operation's fiber (not done today): block on it
    while (O->S != State::Done) {
      Op *H = C.Head;
      resume(H, Mode::Block);
      advance(C);
    }
    return O->Rc;
  }
  // O's own chain first, as far as O: what follows O on its communicator is left for later
  // calls, so the records of a round never land here or there by timing. Every other
  // communicator's operations move on once O's chain is stuck for the grace (a peer may wait
  // for one on another communicator before it can serve O's).
  Grace G;
  while (O->S != State::Done) {
    bool Advanced = progressChain(C, O);
    if (O->S == State::Done)
      break;
    if (Advanced) {
      G = Grace();
      continue;
    }
    if (G.over())
      for (Chain &Other : Chains)
        if (&Other != &C)
          Advanced |= progressChain(Other, nullptr);
    if (!Advanced) {
      const Op *H = C.Head; // running: O or one before it, suspended in waitPoint
      transport::idle(H->WaitSite, H->WaitN, H->WaitReqs);
    }
  }
  return O->Rc;
}

bool done(const Op *O) { return O->S == State::Done; }

int release(Op *O) {
  const int Rc = O->Rc;
  --Outstanding;
  FreeOps.push_back(O);
  return Rc;
}

int outstanding() { return Outstanding; }

bool running() {
  for (const Chain &C : Chains)
    if (C.Head != nullptr)
      return true;
  return false;
}

bool progressAll() {
  bool Advanced = false;
  for (Chain &C : Chains)
    Advanced |= progressChain(C, nullptr);
  return Advanced;
}

bool Grace::over() {
  if (Until < 0) {
    const double Seconds = transport::driveGraceSeconds();
    if (Seconds <= 0) {
      Until = 0;
      return true;
    }
    Until = now() + Seconds;
    return false;
  }
  if (Until == 0 || now() >= Until) {
    Until = 0; // over for good: no more clock reads
    return true;
  }
  return false;
}

void driveWhileBlocked(mpiete_site_t Block, int N, const MPI_Request Reqs[], bool Any) {
  driveUntil([&] { return transport::ready(N, Reqs, Any); },
             [&] { transport::idle(Block, N, Reqs); });
}

void drain(MPI_Comm Comm) {
  for (Chain &C : Chains)
    if (C.Comm == Comm && C.Tail != nullptr)
      finish(C.Tail);
}

bool inFiber() { return Current != nullptr; }

int waitPoint(mpiete_site_t Site, int N, MPI_Request Reqs[]) {
  Op *O = Current;
  O->WaitSite = Site;
  O->WaitN = N;
  O->WaitReqs = Reqs;
  for (;;) {
    switch (O->M) {
    case Mode::Block:
      return N == 1 ? transport::wait(Site, Reqs, MPI_STATUS_IGNORE)
                    : transport::waitall(Site, N, Reqs, MPI_STATUSES_IGNORE);
    case Mode::Poll: {
      int Flag = 0;
      const int Rc = N == 1 ? transport::test(Site, Reqs, &Flag, MPI_STATUS_IGNORE)
                            : transport::testall(Site, N, Reqs, &Flag, MPI_STATUSES_IGNORE);
      if (Rc != MPI_SUCCESS)
        return Rc;
      if (Flag) {
        // One test per poll: the algorithm runs on to its next round and posts it.
        O->M = Mode::Start;
        return MPI_SUCCESS;
      }
      yieldToCaller(O);
      break;
    }
    case Mode::Progress: {
      if (!transport::ready(N, Reqs, false)) {
        yieldToCaller(O);
        break;
      }
      // Complete: the wait the blocking twin records returns at once; on to the next round.
      Progressed = true;
      O->M = Mode::Start;
      return N == 1 ? transport::wait(Site, Reqs, MPI_STATUS_IGNORE)
                    : transport::waitall(Site, N, Reqs, MPI_STATUSES_IGNORE);
    }
    case Mode::Start:
      yieldToCaller(O);
      break;
    }
  }
}

} // namespace mpiete::nbc
