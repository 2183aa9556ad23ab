// The timing variant's transport: seed 004's token-passing execution
// (section 3.3) over shared memory, so that only one rank computes at a time on
// one processor and its blocks' times are undisturbed.
//
// How it works (docs/token-passing.md):
//   - Rank 0 creates a control segment that every rank maps. There are k tokens
//     (MPIETE_RANKS_PER_NODE, default 1: seed 004's single token); token i is
//     processor i of the node, so up to k ranks compute at once, never two on
//     one processor. A rank touches the segment only inside a transport call and
//     under the segment's process-shared mutex: with k = 1 it is never contended
//     (only the token holder runs), with k > 1 it orders the running ranks.
//   - A message is packed (PMPI_Pack) into shared memory at send time, so it is
//   complete
//     however long its sender sleeps: small and medium ones into a heap in the
//     segment, large ones into a memfd of the sender that the receiver opens
//     through /proc. No byte of user data goes through MPI, so nothing depends
//     on MPI progress in a sleeping process.
//   - The receiver matches its posted receives, in the order it posted them,
//   against its
//     incoming queue, in global send order: MPI's ordering rules hold and a
//     wildcard receive is matched the same way on every run (with one token).
//   - A rank runs until it must wait for something not yet there, then hands
//   its token on
//     (cyclically from rank + 1) to the first rank that can run, and sleeps on
//     its semaphore. A blocked rank can run again only once something arrived
//     for it since it last looked (its epoch moved), so a state where nobody
//     can run is seen at once and reported. With k > 1 a token nobody can take
//     stays idle until a message makes a waiting rank runnable.
#include "Comms.h"
#include "Recorder.h"
#include "TimingControl.h"
#include "Transport.h"

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpiete::transport {
namespace {

constexpr uint64_t SegmentMagic = 0x6d70696574656b31ULL; // "mpietek1"
constexpr uint32_t NoMsg = UINT32_MAX;
constexpr uint64_t NoOffset = UINT64_MAX;
constexpr int NumHeapClasses = 11; // 64 B .. 64 KiB
constexpr uint64_t MinHeapChunk = 64;
constexpr uint64_t MaxHeapChunk = MinHeapChunk << (NumHeapClasses - 1);
constexpr int MaxCollSlots = 64;
constexpr int MaxWaitConds = 4;
constexpr int MaxTokens = 1024; // ranks per node: no node has more processors (CPU_SETSIZE)

//===-- Shared state
//------------------------------------------------------------------------===//

enum class RankState : uint32_t {
  Running,    // holds a token
  Ready,      // can run as soon as it gets a token (not yet started, or polling)
  Blocked,    // waits for something to arrive (runnable again once its epoch
              // moves)
  PollWait,   // (k > 1) polled in vain while other ranks ran: sleeps like Blocked, but
              // counts as Ready once no rank holds a token, as a poller does with k = 1
  Parked,     // arrived at a communicator call, waits for the other members
  Collective, // runs a communicator call with the other members; nobody holds
              // the token
  Finished,   // reached MPI_Finalize
};

enum class WaitWhat : uint8_t {
  None,
  Wait,
  Waitall,
  Waitany,
  Waitsome,
  Test,
  Testall,
  Testany,
  Testsome,
  Probe,
  Iprobe,
  CommCall,
  Finalize,
};

enum class CondKind : uint8_t { Recv, SyncSend, Probe };

/// One thing a waiting rank waits for, kept only for the deadlock report.
struct WaitCond {
  uint64_t CommId;
  uint64_t StartBlock;
  int Peer; // as the user gave it (rank in the communicator, MPI_ANY_SOURCE)
  int Tag;
  CondKind Kind;
  Context Ctx;
};

struct WaitDesc {
  uint64_t Block;
  uint64_t CommId; // CommCall
  uint32_t NPending;
  WaitWhat What;
  WaitCond Conds[MaxWaitConds];
};

struct RankSlot {
  sem_t Wake;
  RankState State;
  int Token; // the token it holds (Running), or -1
  int Pid;
  uint64_t Epoch;     // moves when a message arrives for this rank or its synchronous
                      // send is matched: the only events that can end its wait
  uint64_t WaitEpoch; // Epoch when it last found that it cannot go on
  uint32_t QueueHead; // incoming unmatched messages in send order
  uint32_t QueueTail;
  WaitDesc Wait;
};

enum class Storage : uint8_t { None, Heap, Memfd };

struct MsgDesc {
  uint64_t Seq;
  uint64_t CommId;
  uint64_t Bytes;
  uint64_t HeapOff;
  uint64_t HeapChunk; // the size the heap chunk was allocated for (its size class)
  int SrcWorld;
  int DstWorld;
  int SrcRank; // the sender's rank in the communicator: the receiver's
               // MPI_SOURCE
  int Tag;
  int Fd; // Memfd: the sender's descriptor
  uint32_t Next;
  Context Ctx;
  Storage Store;
  uint8_t Sync;
  uint8_t Done; // matched and read: the sender may release it (Sync, Memfd)
};

struct CollSlot {
  uint64_t CommId;
  int Used;
  int Size;
  int Arrived;
  int Last; // the member that arrived last: it holds a token again afterwards
  int Started;
  int Remaining;
};

struct Header {
  pthread_mutex_t Lock; // every access to the segment below holds it
  uint64_t Magic;
  int NRanks;
  int NFinished;
  int NTokens;         // ranks per node: how many ranks compute at once
  int HeldTokens;      // tokens held by Running ranks; the others are idle
  int Draining;        // communicator calls whose members all arrived, waiting for every token
  int ActiveColls;     // communicator calls running (nobody holds a token meanwhile)
  int Cpus[MaxTokens]; // token i runs on processor Cpus[i] (-1: not pinned)
  int TokenHolder[MaxTokens]; // the rank holding token i, or -1
  uint64_t Epoch;             // global progress: any message sent or matched
  uint64_t Seq;
  uint64_t FruitlessPolls; // failed polls since the last progress
  uint32_t FreeMsg;
  uint32_t MaxMsgs;
  uint32_t InUseMsgs;
  uint64_t HeapSize;
  uint64_t HeapTop;
  uint64_t FreeChunks[NumHeapClasses];
  CollSlot Colls[MaxCollSlots];
};

//===-- Process-local state
//-----------------------------------------------------------------===//

enum class ReqKind : uint8_t { Send, Recv };
constexpr uint32_t ReqMagic = 0x7265716bU;

struct Request {
  uint32_t Magic;
  ReqKind Kind;
  bool Complete;
  bool Freed; // the user released it (MPI_Request_free) before it completed
  bool Sync;
  int Err;
  mpiete_site_t Block;
  MPI_Status Status;
  // Receives.
  void *Buf;
  int Count;
  MPI_Datatype Type;
  int Source; // as given (rank in the communicator or MPI_ANY_SOURCE)
  int SrcWorld;
  int Tag;
  uint64_t CommId;
  Context Ctx;
  Request *Next; // pending-receive list, or free list
};

/// A message this process sent that it must release later: synchronous sends
/// (complete when matched) and memfd messages (the descriptor stays open until
/// the receiver has read it).
struct Owned {
  uint32_t Msg;
  int Fd;
  Request *Req; // the synchronous send's request, or null
};

struct Machine {
  bool Active = false;
  int Me = -1;
  int N = 0;
  Header *H = nullptr;
  RankSlot *Slots = nullptr;
  MsgDesc *Msgs = nullptr;
  unsigned char *Heap = nullptr;
  size_t MapBytes = 0;
  uint64_t PollLimit = 1000000;
  int PinnedCpu = -1;

  Request *Pending = nullptr; // posted receives in post order
  Request *PendingTail = nullptr;
  Request *FreeReqs = nullptr;
  // MPI_Comm_free: the record of the communicator being freed, kept for its
  // collective call (comms::freed forgets the handle before the call runs).
  MPI_Comm Freeing = MPI_COMM_NULL;
  const comms::Info *FreeingInfo = nullptr;

  // The block of the last start in a lowered collective's matching space: the
  // collective's site, counted by its entry point, so its internal waits are
  // not counted again.
  mpiete_site_t CollectiveBlock = ~0ULL;

  Owned *OwnedList = nullptr;
  size_t NOwned = 0;
  size_t OwnedCap = 0;
};

Machine M;

Recorder &rec() { return Recorder::get(); }

RankSlot &slot(int R) { return M.Slots[R]; }
RankSlot &self() { return M.Slots[M.Me]; }

[[noreturn]] void fatal(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *Fmt, ...) {
  char Msg[900];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Msg, sizeof Msg, Fmt, Ap);
  va_end(Ap);
  Recorder::get().fail("%s", Msg);
}

uint64_t envNumber(const char *Name, uint64_t Default) {
  const char *V = std::getenv(Name);
  if (V == nullptr || V[0] == '\0')
    return Default;
  char *End = nullptr;
  const unsigned long long X = std::strtoull(V, &End, 0);
  if (*End != '\0')
    fatal("%s='%s' is not a number", Name, V);
  return X;
}

void lockSegment() {
  if (const int Err = pthread_mutex_lock(&M.H->Lock); Err != 0)
    fatal("cannot lock the token-passing segment: %s", std::strerror(Err));
}

void unlockSegment() { pthread_mutex_unlock(&M.H->Lock); }

/// Holds the segment's mutex for the rest of a transport call.
struct SegmentLock {
  SegmentLock() { lockSegment(); }
  ~SegmentLock() { unlockSegment(); }
  SegmentLock(const SegmentLock &) = delete;
  SegmentLock &operator=(const SegmentLock &) = delete;
};

void pinToCpu(int Cpu);

/// Holding a token, the rank runs on that token's processor.
void moveToTokenCpu() {
  const int T = self().Token;
  if (T >= 0 && M.H->Cpus[T] != M.PinnedCpu)
    pinToCpu(M.H->Cpus[T]);
}

/// Sleeps (without the mutex) until another rank posts this rank's semaphore: it was given a
/// token, a communicator call starts, or the job ends. Holding a token, the rank moves to that
/// token's processor.
void sleepForToken() {
  unlockSegment();
  while (sem_wait(&self().Wake) != 0) {
    if (errno != EINTR)
      fatal("sem_wait failed: %s", std::strerror(errno));
  }
  lockSegment();
  const RankState St = self().State;
  if (self().Token < 0 && St != RankState::Collective && St != RankState::Finished)
    fatal("internal error: woken without a token (state %d)", static_cast<int>(St));
  moveToTokenCpu();
}

void wake(int R) {
  if (sem_post(&slot(R).Wake) != 0)
    fatal("sem_post failed: %s", std::strerror(errno));
}

void progressMade() {
  M.H->Epoch += 1;
  M.H->FruitlessPolls = 0;
}

//===-- Deadlock report
//---------------------------------------------------------------------===//

const char *whatName(WaitWhat W) {
  switch (W) {
  case WaitWhat::Wait:
    return "MPI_Wait";
  case WaitWhat::Waitall:
    return "MPI_Waitall";
  case WaitWhat::Waitany:
    return "MPI_Waitany";
  case WaitWhat::Waitsome:
    return "MPI_Waitsome";
  case WaitWhat::Test:
    return "MPI_Test";
  case WaitWhat::Testall:
    return "MPI_Testall";
  case WaitWhat::Testany:
    return "MPI_Testany";
  case WaitWhat::Testsome:
    return "MPI_Testsome";
  case WaitWhat::Probe:
    return "MPI_Probe";
  case WaitWhat::Iprobe:
    return "MPI_Iprobe";
  case WaitWhat::CommCall:
    return "a communicator call";
  case WaitWhat::Finalize:
    return "MPI_Finalize";
  case WaitWhat::None:
    break;
  }
  return "?";
}

/// The routine the user wrote: a blocking call was split into a start and a
/// wait whose blocks follow each other (SEND/RECV: site, site + 1; SENDRECV:
/// site, site + 1, site + 2).
const char *routineName(const WaitDesc &W) {
  if (W.NPending >= 1 && W.Conds[0].Ctx == Context::Collective)
    return "a collective operation";
  if (W.What == WaitWhat::Wait && W.NPending == 1 && W.Conds[0].StartBlock + 1 == W.Block)
    return W.Conds[0].Kind == CondKind::Recv ? "MPI_Recv" : "MPI_Ssend";
  if (W.What == WaitWhat::Waitall && W.Conds[0].StartBlock + 2 == W.Block &&
      (W.NPending == 1 || W.Conds[1].StartBlock + 1 == W.Block))
    return "MPI_Sendrecv";
  return whatName(W.What);
}

void appendf(char *Buf, size_t Size, size_t &Len, const char *Fmt, ...)
    __attribute__((format(printf, 4, 5)));
void appendf(char *Buf, size_t Size, size_t &Len, const char *Fmt, ...) {
  if (Len >= Size)
    return;
  va_list Ap;
  va_start(Ap, Fmt);
  const int N = std::vsnprintf(Buf + Len, Size - Len, Fmt, Ap);
  va_end(Ap);
  if (N > 0)
    Len = Len + static_cast<size_t>(N) < Size ? Len + static_cast<size_t>(N) : Size - 1;
}

void describeCond(char *Buf, size_t Size, size_t &Len, const WaitCond &C) {
  char Peer[24], Tag[24];
  if (C.Peer == MPI_ANY_SOURCE)
    std::snprintf(Peer, sizeof Peer, "any source");
  else
    std::snprintf(Peer, sizeof Peer, "%s %d", C.Kind == CondKind::SyncSend ? "dest" : "source",
                  C.Peer);
  if (C.Tag == MPI_ANY_TAG)
    std::snprintf(Tag, sizeof Tag, "any tag");
  else
    std::snprintf(Tag, sizeof Tag, "tag %d", C.Tag);
  const char *What = C.Kind == CondKind::SyncSend ? "the receive of a synchronous send to " : "";
  appendf(Buf, Size, Len, "%s%s %s on communicator %" PRIx64, What, Peer, Tag, C.CommId);
}

void describeRank(char *Buf, size_t Size, size_t &Len, int R) {
  const RankSlot &S = slot(R);
  const WaitDesc &W = S.Wait;
  char Block[BlockIdBufferSize];
  formatBlockId(W.Block, Block, sizeof Block);
  appendf(Buf, Size, Len, "rank %d ", R);
  switch (S.State) {
  case RankState::Finished:
    appendf(Buf, Size, Len, "has finished (MPI_Finalize, block %s)", Block);
    return;
  case RankState::Parked:
    appendf(Buf, Size, Len,
            "waits in a communicator call (block %s) for the other members of "
            "communicator "
            "%" PRIx64,
            Block, W.CommId);
    return;
  case RankState::Ready:
  case RankState::PollWait:
    appendf(Buf, Size, Len, "polls in %s (block %s) without progress", routineName(W), Block);
    break;
  case RankState::Blocked:
    appendf(Buf, Size, Len, "waits in %s (block %s)", routineName(W), Block);
    break;
  case RankState::Running:
    appendf(Buf, Size, Len, "waits in %s (block %s)", routineName(W), Block);
    break;
  case RankState::Collective:
    appendf(Buf, Size, Len, "is in a communicator call");
    return;
  }
  const uint32_t Shown = W.NPending < MaxWaitConds ? W.NPending : MaxWaitConds;
  if (W.NPending > 1)
    appendf(Buf, Size, Len, " for %u requests:", W.NPending);
  for (uint32_t I = 0; I < Shown; ++I) {
    appendf(Buf, Size, Len, I == 0 ? " for " : ", ");
    describeCond(Buf, Size, Len, W.Conds[I]);
  }
  if (W.NPending > Shown)
    appendf(Buf, Size, Len, ", ...");
}

[[noreturn]] void reportDeadlock() {
  const size_t Size = 256 + 256 * static_cast<size_t>(M.N);
  char *Buf = static_cast<char *>(std::malloc(Size));
  if (Buf == nullptr)
    fatal("deadlock under token passing (no memory to describe it)");
  size_t Len = 0;
  appendf(Buf, Size, Len, "mpiete: rank %d: error: deadlock under token passing: ", M.Me);
  for (int R = 0; R < M.N; ++R) {
    if (R != 0)
      appendf(Buf, Size, Len, "; ");
    describeRank(Buf, Size, Len, R);
  }
  std::fprintf(stderr, "%s\n", Buf);
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

//===-- Token
//-------------------------------------------------------------------------------===//

bool canRun(int R) {
  const RankSlot &S = slot(R);
  return S.State == RankState::Ready ||
         ((S.State == RankState::Blocked || S.State == RankState::PollWait) &&
          S.Epoch != S.WaitEpoch);
}

/// The first rank after this one (cyclically) that can run, or -1. Loose: also a rank that
/// polled in vain (PollWait), which is what it is while no rank holds a token.
int nextRunnable(bool Loose) {
  for (int I = 1; I < M.N; ++I) {
    const int R = (M.Me + I) % M.N;
    if (canRun(R) || (Loose && slot(R).State == RankState::PollWait))
      return R;
  }
  return -1;
}

/// Gives idle token T to rank R and wakes it (unless R is this rank, which is awake).
void giveToken(int R, int T) {
  RankSlot &S = slot(R);
  S.State = RankState::Running;
  S.Token = T;
  M.H->TokenHolder[T] = R;
  M.H->HeldTokens += 1;
  if (R != M.Me)
    wake(R);
}

/// Gives the idle tokens to ranks that can run, searching cyclically from rank From: after a
/// message made a waiting rank runnable, or after communicator calls. Never with k = 1 while a
/// rank runs (its token is the only one).
void fillIdleTokens(int From) {
  Header &H = *M.H;
  if (H.HeldTokens == H.NTokens || H.Draining != 0 || H.ActiveColls != 0)
    return;
  int Next = From;
  for (int T = 0; T < H.NTokens && H.HeldTokens < H.NTokens; ++T) {
    if (H.TokenHolder[T] >= 0)
      continue;
    int R = -1;
    for (int I = 0; I < M.N && R < 0; ++I)
      if (canRun((Next + I) % M.N))
        R = (Next + I) % M.N;
    if (R < 0)
      return;
    giveToken(R, T);
    Next = R + 1;
  }
}

void startCommCalls();

/// This rank gives up its token (its state already says why): to the next rank that can run,
/// else the token goes idle. Once no rank holds a token, the communicator calls waiting for
/// that start; if there are none, nobody can ever run again: a deadlock, reported. Does not
/// sleep.
void releaseToken() {
  Header &H = *M.H;
  RankSlot &S = self();
  const int T = S.Token;
  if (T < 0)
    return;
  S.Token = -1;
  H.TokenHolder[T] = -1;
  H.HeldTokens -= 1;
  if (H.Draining == 0) {
    const int R = nextRunnable(H.HeldTokens == 0);
    if (R >= 0) {
      giveToken(R, T);
      return;
    }
  }
  if (H.HeldTokens == 0) {
    if (H.Draining != 0)
      startCommCalls();
    else
      reportDeadlock();
  }
}

/// Once no rank holds a token: every communicator call whose members have all arrived
/// starts; its members run the PMPI call together (state Collective, woken without a token).
void startCommCalls() {
  Header &H = *M.H;
  H.Draining = 0;
  for (CollSlot &S : H.Colls) {
    if (!S.Used || S.Started || S.Arrived < S.Size)
      continue;
    S.Started = 1;
    S.Remaining = S.Size;
    H.ActiveColls += 1;
    for (int R = 0; R < M.N; ++R) {
      RankSlot &W = slot(R);
      if (W.State != RankState::Parked || W.Wait.CommId != S.CommId)
        continue;
      W.State = RankState::Collective;
      if (R != M.Me)
        wake(R);
    }
  }
}

/// At the start of a transport call: communicator calls wait for every token, so a running
/// rank gives its token back and sleeps until they are done (k > 1 only: with one token the
/// last member to arrive holds it).
void yieldToCommCalls() {
  if (M.H->Draining == 0 || self().Token < 0)
    return;
  self().State = RankState::Ready;
  releaseToken();
  sleepForToken();
}

//===-- Shared heap and descriptors
//---------------------------------------------------------===//

int heapClass(uint64_t Bytes) {
  int C = 0;
  uint64_t Chunk = MinHeapChunk;
  while (Chunk < Bytes) {
    Chunk <<= 1;
    ++C;
  }
  return C;
}

uint64_t heapAlloc(uint64_t Bytes) {
  if (Bytes > MaxHeapChunk)
    return NoOffset;
  const int C = heapClass(Bytes);
  Header &H = *M.H;
  if (H.FreeChunks[C] != NoOffset) {
    const uint64_t Off = H.FreeChunks[C];
    std::memcpy(&H.FreeChunks[C], M.Heap + Off, sizeof(uint64_t));
    return Off;
  }
  const uint64_t Chunk = MinHeapChunk << C;
  if (H.HeapTop + Chunk > H.HeapSize)
    return NoOffset;
  const uint64_t Off = H.HeapTop;
  H.HeapTop += Chunk;
  return Off;
}

void heapFree(uint64_t Off, uint64_t Bytes) {
  const int C = heapClass(Bytes);
  std::memcpy(M.Heap + Off, &M.H->FreeChunks[C], sizeof(uint64_t));
  M.H->FreeChunks[C] = Off;
}

uint32_t allocMsg() {
  Header &H = *M.H;
  if (H.FreeMsg == NoMsg)
    fatal("more than %u messages sent and not yet received under token passing "
          "(raise "
          "MPIETE_MAX_MESSAGES)",
          H.MaxMsgs);
  const uint32_t I = H.FreeMsg;
  H.FreeMsg = M.Msgs[I].Next;
  H.InUseMsgs += 1;
  return I;
}

void freeMsg(uint32_t I) {
  MsgDesc &D = M.Msgs[I];
  if (D.Store == Storage::Heap)
    heapFree(D.HeapOff, D.HeapChunk);
  D.Store = Storage::None;
  D.Next = M.H->FreeMsg;
  M.H->FreeMsg = I;
  M.H->InUseMsgs -= 1;
}

//===-- Requests
//----------------------------------------------------------------------------===//

Request *newRequest(ReqKind K, mpiete_site_t Block) {
  Request *R = M.FreeReqs;
  if (R != nullptr) {
    M.FreeReqs = R->Next;
  } else {
    R = static_cast<Request *>(std::malloc(sizeof(Request)));
    if (R == nullptr)
      fatal("out of memory allocating a request");
  }
  std::memset(static_cast<void *>(R), 0, sizeof(Request));
  R->Magic = ReqMagic;
  R->Kind = K;
  R->Block = Block;
  R->Err = MPI_SUCCESS;
  return R;
}

void releaseRequest(Request *R) {
  R->Magic = 0;
  R->Next = M.FreeReqs;
  M.FreeReqs = R;
}

Request *toRequest(MPI_Request Req, mpiete_site_t Block) {
  auto *R = reinterpret_cast<Request *>(Req);
  if (R == nullptr || R->Magic != ReqMagic) {
    char Id[BlockIdBufferSize];
    formatBlockId(Block, Id, sizeof Id);
    fatal("invalid request passed at block %s (not made by a rewritten MPI call)", Id);
  }
  return R;
}

MPI_Request toHandle(Request *R) { return reinterpret_cast<MPI_Request>(R); }

void setStatus(MPI_Status &St, int Source, int Tag, int Err, int Bytes) {
  St.MPI_SOURCE = Source;
  St.MPI_TAG = Tag;
  St.MPI_ERROR = Err;
  PMPI_Status_set_elements(&St, MPI_BYTE, Bytes);
  PMPI_Status_set_cancelled(&St, 0);
}

void emptyStatus(MPI_Status *St) {
  if (St != MPI_STATUS_IGNORE)
    setStatus(*St, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
}

/// A completed request's status and error; releases it and sets the handle to
/// null.
int finish(MPI_Request *Handle, MPI_Status *St) {
  Request *R = reinterpret_cast<Request *>(*Handle);
  const int Err = R->Err;
  if (St != MPI_STATUS_IGNORE) {
    if (R->Kind == ReqKind::Recv)
      *St = R->Status;
    else
      setStatus(*St, MPI_ANY_SOURCE, MPI_ANY_TAG, Err, 0);
  }
  releaseRequest(R);
  *Handle = MPI_REQUEST_NULL;
  return Err;
}

//===-- Progress
//----------------------------------------------------------------------------===//

void addOwned(uint32_t Msg, int Fd, Request *Req) {
  if (M.NOwned == M.OwnedCap) {
    const size_t Cap = M.OwnedCap == 0 ? 64 : M.OwnedCap * 2;
    auto *New = static_cast<Owned *>(std::realloc(M.OwnedList, Cap * sizeof(Owned)));
    if (New == nullptr)
      fatal("out of memory tracking sent messages");
    M.OwnedList = New;
    M.OwnedCap = Cap;
  }
  M.OwnedList[M.NOwned++] = Owned{Msg, Fd, Req};
}

/// Releases the messages the receivers have read; completes synchronous sends.
void sweepOwned() {
  size_t Kept = 0;
  for (size_t I = 0; I < M.NOwned; ++I) {
    Owned &O = M.OwnedList[I];
    if (!M.Msgs[O.Msg].Done) {
      M.OwnedList[Kept++] = O;
      continue;
    }
    if (O.Fd >= 0)
      ::close(O.Fd);
    if (O.Req != nullptr) {
      O.Req->Complete = true;
      if (O.Req->Freed)
        releaseRequest(O.Req);
    }
    freeMsg(O.Msg);
  }
  M.NOwned = Kept;
}

bool matches(const MsgDesc &D, const Request &R) {
  return D.CommId == R.CommId && D.Ctx == R.Ctx &&
         (R.SrcWorld == MPI_ANY_SOURCE || D.SrcWorld == R.SrcWorld) &&
         (R.Tag == MPI_ANY_TAG || D.Tag == R.Tag);
}

/// The first message in this rank's queue that the receive (or probe) R
/// matches; Prev gets its predecessor (NoMsg for the head).
uint32_t findMatch(const Request &R, uint32_t &Prev) {
  Prev = NoMsg;
  for (uint32_t I = self().QueueHead; I != NoMsg; Prev = I, I = M.Msgs[I].Next)
    if (matches(M.Msgs[I], R))
      return I;
  return NoMsg;
}

void unlinkMsg(uint32_t I, uint32_t Prev) {
  RankSlot &S = self();
  const uint32_t Next = M.Msgs[I].Next;
  if (Prev == NoMsg)
    S.QueueHead = Next;
  else
    M.Msgs[Prev].Next = Next;
  if (S.QueueTail == I)
    S.QueueTail = Prev;
}

/// Copies message I into receive R's buffer and completes R.
void deliver(uint32_t I, Request &R) {
  MsgDesc &D = M.Msgs[I];
  int TypeBytes = 0;
  PMPI_Type_size(R.Type, &TypeBytes);
  const uint64_t Capacity = static_cast<uint64_t>(TypeBytes) * static_cast<uint64_t>(R.Count);
  int Err = MPI_SUCCESS;
  uint64_t Bytes = D.Bytes;
  if (Bytes > Capacity) {
    Err = MPI_ERR_TRUNCATE;
    Bytes = Capacity;
  }
  const int Whole = TypeBytes > 0 ? static_cast<int>(Bytes / static_cast<uint64_t>(TypeBytes)) : 0;
  if (Whole > 0) {
    const void *Data = nullptr;
    void *Map = MAP_FAILED;
    int Fd = -1;
    if (D.Store == Storage::Heap) {
      Data = M.Heap + D.HeapOff;
    } else {
      char Path[64];
      std::snprintf(Path, sizeof Path, "/proc/%d/fd/%d", slot(D.SrcWorld).Pid, D.Fd);
      Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
      if (Fd < 0)
        fatal("cannot open the %" PRIu64 "-byte message from rank %d ('%s'): %s", D.Bytes,
              D.SrcWorld, Path, std::strerror(errno));
      Map = ::mmap(nullptr, D.Bytes, PROT_READ, MAP_SHARED, Fd, 0);
      if (Map == MAP_FAILED)
        fatal("cannot map the %" PRIu64 "-byte message from rank %d: %s", D.Bytes, D.SrcWorld,
              std::strerror(errno));
      Data = Map;
    }
    int Position = 0;
    // Packing and unpacking name MPI_COMM_WORLD: the data representation is the
    // same for every communicator, and the user's may be freed before its
    // receive completes.
    const int Rc = PMPI_Unpack(Data, static_cast<int>(D.Bytes), &Position, R.Buf, Whole, R.Type,
                               MPI_COMM_WORLD);
    if (Rc != MPI_SUCCESS && Err == MPI_SUCCESS)
      Err = Rc;
    if (Map != MAP_FAILED)
      ::munmap(Map, D.Bytes);
    if (Fd >= 0)
      ::close(Fd);
  }
  setStatus(R.Status, D.SrcRank, D.Tag, Err, static_cast<int>(Bytes));
  R.Err = Err;
  R.Complete = true;

  if (D.Sync || D.Store == Storage::Memfd) {
    D.Done = 1;
    slot(D.SrcWorld).Epoch += 1;
    fillIdleTokens(D.SrcWorld);
  } else {
    freeMsg(I);
  }
  progressMade();
}

/// Everything this rank can do without waiting: release read messages, match
/// posted receives.
void progress() {
  if (M.NOwned != 0)
    sweepOwned();
  Request **Link = &M.Pending;
  Request *Prev = nullptr;
  while (Request *R = *Link) {
    uint32_t PrevMsg;
    const uint32_t I = findMatch(*R, PrevMsg);
    if (I == NoMsg) {
      Prev = R;
      Link = &R->Next;
      continue;
    }
    unlinkMsg(I, PrevMsg);
    *Link = R->Next;
    if (M.PendingTail == R)
      M.PendingTail = Prev;
    R->Next = nullptr;
    deliver(I, *R);
    if (R->Freed)
      releaseRequest(R);
  }
}

//===-- Waiting
//-----------------------------------------------------------------------------===//

void describeRequest(WaitCond &C, const Request &R) {
  C.StartBlock = R.Block;
  C.Ctx = R.Ctx;
  C.CommId = R.CommId;
  C.Peer = R.Source;
  C.Tag = R.Tag;
  C.Kind = R.Kind == ReqKind::Recv ? CondKind::Recv : CondKind::SyncSend;
}

/// Records what this rank waits for: the incomplete requests among Reqs.
void describeWait(WaitWhat What, mpiete_site_t Block, int N, const MPI_Request *Reqs) {
  WaitDesc &W = self().Wait;
  W.What = What;
  W.Block = Block;
  W.NPending = 0;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    const Request &R = *reinterpret_cast<const Request *>(Reqs[I]);
    if (R.Complete)
      continue;
    if (W.NPending < MaxWaitConds)
      describeRequest(W.Conds[W.NPending], R);
    W.NPending += 1;
  }
}

void describeProbe(WaitWhat What, mpiete_site_t Block, const Request &Probe) {
  WaitDesc &W = self().Wait;
  W.What = What;
  W.Block = Block;
  W.NPending = 1;
  describeRequest(W.Conds[0], Probe);
  W.Conds[0].Kind = CondKind::Probe;
}

/// Gives up the token until something arrives for this rank; a state where
/// nobody can run any more is a deadlock, reported and fatal.
void blockUntilArrival() {
  RankSlot &S = self();
  S.State = RankState::Blocked;
  S.WaitEpoch = S.Epoch;
  releaseToken();
  sleepForToken();
}

/// After a poll that found nothing: lets the other ranks run once (a polling
/// loop must not starve them). Returns when this rank holds a token again.
void yieldAfterFailedPoll() {
  Header &H = *M.H;
  RankSlot &S = self();
  H.FruitlessPolls += 1;
  if (H.FruitlessPolls > M.PollLimit) {
    S.State = RankState::Ready;
    reportDeadlock();
  }
  if (H.Draining != 0) {
    S.State = RankState::Ready;
    releaseToken();
    sleepForToken();
    return;
  }
  if (H.HeldTokens == 1) {
    // No other rank runs (always so with one token): hand the token to the next rank that
    // can run, a poller too, or poll again at once if there is none.
    S.State = RankState::Ready;
    const int R = nextRunnable(/*Loose=*/true);
    if (R < 0) {
      S.State = RankState::Running;
      return;
    }
    releaseToken(); // to R: the only runnable candidate it looks for, as nothing changed
    sleepForToken();
    return;
  }
  // Other ranks run (k > 1): the token goes to a rank that can run, and this one sleeps until
  // something arrives for it or until no rank runs any more (then it counts as ready again).
  // Two pollers never hand a token back and forth while another rank computes.
  S.State = RankState::PollWait;
  S.WaitEpoch = S.Epoch;
  releaseToken();
  sleepForToken();
}

bool isDone(MPI_Request Req) {
  return Req == MPI_REQUEST_NULL || reinterpret_cast<Request *>(Req)->Complete;
}

void checkRequests(int N, const MPI_Request Reqs[], mpiete_site_t Block) {
  for (int I = 0; I < N; ++I)
    if (Reqs[I] != MPI_REQUEST_NULL)
      toRequest(Reqs[I], Block);
}

/// Makes a receive-like record for probes (never posted).
Request probeRecord(mpiete_site_t Block, int Source, int Tag, const comms::Info &C) {
  Request P{};
  P.Kind = ReqKind::Recv;
  P.Block = Block;
  P.Source = Source;
  P.SrcWorld = comms::worldRank(C, Source);
  P.Tag = Tag;
  P.CommId = C.Id;
  P.Ctx = Context::User;
  return P;
}

void probeStatus(uint32_t I, MPI_Status *St) {
  if (St == MPI_STATUS_IGNORE)
    return;
  const MsgDesc &D = M.Msgs[I];
  setStatus(*St, D.SrcRank, D.Tag, MPI_SUCCESS, static_cast<int>(D.Bytes));
}

void checkActive(const char *Fn) {
  if (!M.Active)
    fatal("%s called outside MPI_Init .. MPI_Finalize", Fn);
}

int mapSegment(int Fd, size_t Bytes) {
  void *P = ::mmap(nullptr, Bytes, PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
  if (P == MAP_FAILED)
    return errno;
  M.H = static_cast<Header *>(P);
  M.MapBytes = Bytes;
  return 0;
}

size_t alignUp(size_t X, size_t A) { return (X + A - 1) / A * A; }

/// Pins this process to Cpu (the processor of the token it holds), unless MPIETE_CPU=none.
void pinToCpu(int Cpu) {
  if (Cpu < 0)
    return;
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(Cpu, &Set);
  if (sched_setaffinity(0, sizeof Set, &Set) != 0)
    std::fprintf(stderr, "mpiete: rank %d: warning: cannot pin to CPU %d: %s\n", M.Me, Cpu,
                 std::strerror(errno));
  M.PinnedCpu = Cpu;
}

/// Rank 0: the processor of each of the K tokens. Token 0's is MPIETE_CPU, or the first
/// processor this process may use; token i's the i-th one from there on that some rank of the
/// job may use (JobSet: the union of their affinity masks, as a launcher may bind each rank to
/// one core), so the K running ranks never share a processor. All -1 with MPIETE_CPU=none (no
/// pinning).
void chooseCpus(int K, const cpu_set_t &JobSet, int *Cpus) {
  for (int T = 0; T < K; ++T)
    Cpus[T] = -1;
  const char *Env = std::getenv("MPIETE_CPU");
  if (Env != nullptr && std::strcmp(Env, "none") == 0)
    return;
  cpu_set_t Set;
  CPU_ZERO(&Set);
  const bool HaveMask = sched_getaffinity(0, sizeof Set, &Set) == 0;
  int First = -1;
  if (Env != nullptr && Env[0] != '\0') {
    First = static_cast<int>(envNumber("MPIETE_CPU", 0));
  } else if (HaveMask) {
    for (int C = 0; C < CPU_SETSIZE && First < 0; ++C)
      if (CPU_ISSET(C, &Set))
        First = C;
  }
  if (First < 0)
    return;
  Cpus[0] = First;
  int Found = 1;
  for (int C = First + 1; C < CPU_SETSIZE && Found < K; ++C)
    if (CPU_ISSET(C, &JobSet))
      Cpus[Found++] = C;
  if (Found < K)
    fatal("%d ranks per node need %d processors, but this job may use only %d from processor "
          "%d on (see the affinity mask, MPIETE_CPU and the launcher's binding options)",
          K, K, Found, First);
}

/// Counts a wait of the user's (not one inside a lowered collective, whose site
/// block its entry point counts once as a collective).
void recordWait(mpiete_site_t Block, int N, const MPI_Request *Reqs) {
  if (Block == M.CollectiveBlock)
    return;
  for (int I = 0; I < N; ++I)
    if (Reqs[I] != MPI_REQUEST_NULL &&
        reinterpret_cast<const Request *>(Reqs[I])->Magic == ReqMagic &&
        reinterpret_cast<const Request *>(Reqs[I])->Ctx == Context::Collective)
      return;
  rec().record(Block, Kind::Wait);
}

/// After the communicator call on C: a freed communicator's record can go now.
int finishCommCall(const comms::Info &C, int Rc) {
  if (&C == M.FreeingInfo) {
    comms::release(C);
    M.FreeingInfo = nullptr;
    M.Freeing = MPI_COMM_NULL;
  }
  return Rc;
}

} // namespace

//===-- Interface
//---------------------------------------------------------------------------===//

void init(mpiete_site_t Block) {
  rec().onInit(Block, MPI_SUCCESS);
  int Me = 0, N = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Me);
  PMPI_Comm_size(MPI_COMM_WORLD, &N);
  M.Me = Me;
  M.N = N;
  M.PollLimit = envNumber("MPIETE_POLL_LIMIT", 1000000);

  // The segment's name and the number of tokens (ranks per node): rank 0 decides; with the
  // processors (below), the last MPI traffic of the run.
  long long Agreed[2] = {0, 0};
  if (Me == 0) {
    timespec Ts;
    clock_gettime(CLOCK_REALTIME, &Ts);
    Agreed[0] = static_cast<long long>((static_cast<uint64_t>(getpid()) << 32) ^
                                       static_cast<uint64_t>(Ts.tv_nsec) ^
                                       (static_cast<uint64_t>(Ts.tv_sec) << 20));
    Agreed[1] = static_cast<long long>(envNumber("MPIETE_RANKS_PER_NODE", 1));
    if (Agreed[1] < 1 || Agreed[1] > MaxTokens)
      fatal("MPIETE_RANKS_PER_NODE=%lld: the ranks per node must be 1 to %d", Agreed[1], MaxTokens);
  }
  PMPI_Bcast(Agreed, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const int K = static_cast<int>(Agreed[1]);
  // The processors any rank may use (k > 1 only, so that one token is exactly as before).
  cpu_set_t JobSet;
  CPU_ZERO(&JobSet);
  if (K > 1) {
    cpu_set_t Mine;
    CPU_ZERO(&Mine);
    if (sched_getaffinity(0, sizeof Mine, &Mine) != 0)
      CPU_ZERO(&Mine);
    PMPI_Reduce(&Mine, &JobSet, static_cast<int>(sizeof Mine), MPI_BYTE, MPI_BOR, 0,
                MPI_COMM_WORLD);
  }
  char Name[96];
  std::snprintf(Name, sizeof Name, "/mpiete-tok-%u-%llx", static_cast<unsigned>(getuid()),
                static_cast<unsigned long long>(Agreed[0]));

  const uint32_t MaxMsgs = static_cast<uint32_t>(envNumber("MPIETE_MAX_MESSAGES", 1 << 16));
  const uint64_t HeapSize = envNumber("MPIETE_SHM_HEAP", 32ULL << 20);
  const size_t SlotsOff = alignUp(sizeof(Header), 64);
  const size_t MsgsOff = alignUp(SlotsOff + sizeof(RankSlot) * static_cast<size_t>(N), 64);
  const size_t HeapOff = alignUp(MsgsOff + sizeof(MsgDesc) * MaxMsgs, 4096);
  const size_t Bytes = HeapOff + HeapSize;

  int Err = 0;
  if (Me == 0) {
    const int Fd = shm_open(Name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (Fd < 0 || ::ftruncate(Fd, static_cast<off_t>(Bytes)) != 0 ||
        (Err = mapSegment(Fd, Bytes)) != 0)
      fatal("cannot create the token-passing segment '%s' (%zu bytes): %s", Name, Bytes,
            std::strerror(Err != 0 ? Err : errno));
    ::close(Fd);
    Header &H = *M.H;
    pthread_mutexattr_t Attr;
    pthread_mutexattr_init(&Attr);
    pthread_mutexattr_setpshared(&Attr, PTHREAD_PROCESS_SHARED);
    if (const int E = pthread_mutex_init(&H.Lock, &Attr); E != 0)
      fatal("cannot make the token-passing mutex: %s", std::strerror(E));
    pthread_mutexattr_destroy(&Attr);
    H.Magic = SegmentMagic;
    H.NRanks = N;
    H.NTokens = K;
    chooseCpus(K, JobSet, H.Cpus);
    H.MaxMsgs = MaxMsgs;
    H.HeapSize = HeapSize;
    for (uint64_t &F : H.FreeChunks)
      F = NoOffset;
    auto *Slots = reinterpret_cast<RankSlot *>(reinterpret_cast<char *>(M.H) + SlotsOff);
    for (int R = 0; R < N; ++R) {
      if (sem_init(&Slots[R].Wake, 1, 0) != 0)
        fatal("sem_init failed: %s", std::strerror(errno));
      // Ranks 0 .. k-1 start with tokens 0 .. k-1.
      Slots[R].State = R < K ? RankState::Running : RankState::Ready;
      Slots[R].Token = R < K ? R : -1;
      Slots[R].QueueHead = Slots[R].QueueTail = NoMsg;
      Slots[R].WaitEpoch = UINT64_MAX;
    }
    auto *Msgs = reinterpret_cast<MsgDesc *>(reinterpret_cast<char *>(M.H) + MsgsOff);
    for (uint32_t I = 0; I < MaxMsgs; ++I)
      Msgs[I].Next = I + 1 < MaxMsgs ? I + 1 : NoMsg;
    H.FreeMsg = MaxMsgs > 0 ? 0 : NoMsg;
    for (int T = 0; T < K; ++T)
      H.TokenHolder[T] = T < N ? T : -1;
    H.HeldTokens = K < N ? K : N;
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  if (Me != 0) {
    const int Fd = shm_open(Name, O_RDWR, 0600);
    if (Fd < 0 || (Err = mapSegment(Fd, Bytes)) != 0)
      fatal("cannot open the token-passing segment '%s': %s", Name,
            std::strerror(Err != 0 ? Err : errno));
    ::close(Fd);
    if (M.H->Magic != SegmentMagic || M.H->NRanks != N)
      fatal("the token-passing segment '%s' is not this job's", Name);
  }
  M.Slots = reinterpret_cast<RankSlot *>(reinterpret_cast<char *>(M.H) + SlotsOff);
  M.Msgs = reinterpret_cast<MsgDesc *>(reinterpret_cast<char *>(M.H) + MsgsOff);
  M.Heap = reinterpret_cast<unsigned char *>(M.H) + HeapOff;
  __atomic_store_n(&self().Pid, static_cast<int>(getpid()), __ATOMIC_SEQ_CST);
  PMPI_Barrier(MPI_COMM_WORLD);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (Me == 0)
    shm_unlink(Name); // every rank has it mapped: nothing can leak from here on
  M.Active = true;

  // Every rank starts on token 0's processor (all of them, with one token).
  pinToCpu(M.H->Cpus[0]);
  timing::setCpu(M.H->Cpus[0]);
  timing::setRanksPerNode(M.H->NTokens);
  {
    SegmentLock L;
    // A rank that starts without a token always sleeps once: it may already have been given
    // one (and posted) by a rank that ran ahead.
    if (M.Me >= M.H->NTokens)
      sleepForToken();
    else if (M.H->Cpus[self().Token] != M.PinnedCpu)
      pinToCpu(M.H->Cpus[self().Token]);
  }
  // Measured while this rank runs alone on its processor (holding a token).
  timing::calibrate();
}

void finalize(mpiete_site_t Block) {
  checkActive("MPI_Finalize");
  rec().onFinalize(Block); // the output, written while this rank still holds its token
  lockSegment();
  yieldToCommCalls();
  progress();
  RankSlot &S = self();
  S.Wait.What = WaitWhat::Finalize;
  S.Wait.Block = Block;
  S.Wait.NPending = 0;
  S.State = RankState::Finished;
  M.H->NFinished += 1;
  progressMade();
  if (M.H->NFinished == M.N) {
    for (int R = 0; R < M.N; ++R)
      if (R != M.Me)
        wake(R);
  } else {
    releaseToken();
    sleepForToken(); // woken by the last rank to finish
  }
  unlockSegment();
  for (size_t I = 0; I < M.NOwned; ++I)
    if (M.OwnedList[I].Fd >= 0)
      ::close(M.OwnedList[I].Fd);
  M.NOwned = 0;
  M.Active = false;
  // This process touches the segment no more (its name was unlinked at init).
  ::munmap(M.H, M.MapBytes);
  M.H = nullptr;
}

int isend(mpiete_site_t Block, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm Comm, SendMode Mode, Context Ctx, MPI_Request *Req) {
  checkActive("MPI_Isend");
  SegmentLock Lock;
  yieldToCommCalls();
  if (Ctx == Context::User)
    rec().record(Block, Kind::Start);
  else
    M.CollectiveBlock = Block;
  if (Count < 0)
    return MPI_ERR_COUNT;
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Dest != MPI_PROC_NULL && (Dest < 0 || Dest >= C.Size))
    return MPI_ERR_RANK;
  if (Ctx == Context::User && Tag < 0)
    return MPI_ERR_TAG;
  Request *R = newRequest(ReqKind::Send, Block);
  R->Source = Dest;
  R->Tag = Tag;
  R->CommId = C.Id;
  R->Ctx = Ctx;
  *Req = toHandle(R);
  if (Dest == MPI_PROC_NULL) {
    R->Complete = true;
    return MPI_SUCCESS;
  }
  if (M.NOwned != 0)
    sweepOwned();

  int PackBytes = 0;
  int Rc = PMPI_Pack_size(Count, Type, MPI_COMM_WORLD, &PackBytes);
  if (Rc != MPI_SUCCESS)
    return Rc;
  const uint32_t I = allocMsg();
  MsgDesc &D = M.Msgs[I];
  D.Store = Storage::None;
  D.Fd = -1;
  D.HeapOff = NoOffset;
  void *Dst = nullptr;
  void *Map = MAP_FAILED;
  if (PackBytes > 0) {
    D.HeapChunk = static_cast<uint64_t>(PackBytes);
    D.HeapOff = heapAlloc(D.HeapChunk);
    if (D.HeapOff != NoOffset) {
      D.Store = Storage::Heap;
      Dst = M.Heap + D.HeapOff;
    } else {
      D.Fd = memfd_create("mpiete-message", MFD_CLOEXEC);
      if (D.Fd < 0 || ::ftruncate(D.Fd, PackBytes) != 0)
        fatal("cannot store a %d-byte message: %s", PackBytes, std::strerror(errno));
      Map = ::mmap(nullptr, static_cast<size_t>(PackBytes), PROT_READ | PROT_WRITE, MAP_SHARED,
                   D.Fd, 0);
      if (Map == MAP_FAILED)
        fatal("cannot map a %d-byte message: %s", PackBytes, std::strerror(errno));
      D.Store = Storage::Memfd;
      Dst = Map;
    }
  }
  int Position = 0;
  if (PackBytes > 0)
    Rc = PMPI_Pack(Buf, Count, Type, Dst, PackBytes, &Position, MPI_COMM_WORLD);
  if (Map != MAP_FAILED)
    ::munmap(Map, static_cast<size_t>(PackBytes));
  if (Rc != MPI_SUCCESS) {
    if (D.Fd >= 0)
      ::close(D.Fd);
    freeMsg(I);
    releaseRequest(R);
    *Req = MPI_REQUEST_NULL;
    return Rc;
  }
  D.Bytes = static_cast<uint64_t>(Position);

  const int DstWorld = comms::worldRank(C, Dest);
  D.Seq = M.H->Seq++;
  D.CommId = C.Id;
  D.SrcWorld = M.Me;
  D.DstWorld = DstWorld;
  D.SrcRank = C.MyRank;
  D.Tag = Tag;
  D.Ctx = Ctx;
  D.Sync = Mode == SendMode::Synchronous;
  D.Done = 0;
  D.Next = NoMsg;
  RankSlot &To = slot(DstWorld);
  if (To.QueueTail == NoMsg)
    To.QueueHead = I;
  else
    M.Msgs[To.QueueTail].Next = I;
  To.QueueTail = I;
  To.Epoch += 1;
  progressMade();
  fillIdleTokens(DstWorld);

  R->Sync = D.Sync;
  if (D.Sync || D.Store == Storage::Memfd)
    addOwned(I, D.Fd, D.Sync ? R : nullptr);
  if (!D.Sync)
    R->Complete = true;
  return MPI_SUCCESS;
}

int irecv(mpiete_site_t Block, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
          MPI_Comm Comm, Context Ctx, MPI_Request *Req) {
  checkActive("MPI_Irecv");
  SegmentLock Lock;
  yieldToCommCalls();
  if (Ctx == Context::User)
    rec().record(Block, Kind::Start);
  else
    M.CollectiveBlock = Block;
  if (Count < 0)
    return MPI_ERR_COUNT;
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Source != MPI_PROC_NULL && Source != MPI_ANY_SOURCE && (Source < 0 || Source >= C.Size))
    return MPI_ERR_RANK;
  if (Ctx == Context::User && Tag < 0 && Tag != MPI_ANY_TAG)
    return MPI_ERR_TAG;
  Request *R = newRequest(ReqKind::Recv, Block);
  R->Buf = Buf;
  R->Count = Count;
  R->Type = Type;
  R->Source = Source;
  R->SrcWorld = comms::worldRank(C, Source);
  R->Tag = Tag;
  R->CommId = C.Id;
  R->Ctx = Ctx;
  *Req = toHandle(R);
  if (Source == MPI_PROC_NULL) {
    setStatus(R->Status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    R->Complete = true;
    return MPI_SUCCESS;
  }
  if (M.PendingTail == nullptr)
    M.Pending = R;
  else
    M.PendingTail->Next = R;
  M.PendingTail = R;
  progress();
  return MPI_SUCCESS;
}

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *Status) {
  checkActive("MPI_Wait");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, 1, Req);
  if (*Req == MPI_REQUEST_NULL) {
    emptyStatus(Status);
    return MPI_SUCCESS;
  }
  Request *R = toRequest(*Req, Block);
  for (;;) {
    progress();
    if (R->Complete)
      return finish(Req, Status);
    describeWait(WaitWhat::Wait, Block, 1, Req);
    blockUntilArrival();
  }
}

int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  checkActive("MPI_Waitall");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  checkRequests(N, Reqs, Block);
  for (;;) {
    progress();
    bool All = true;
    for (int I = 0; I < N && All; ++I)
      All = isDone(Reqs[I]);
    if (All)
      break;
    describeWait(WaitWhat::Waitall, Block, N, Reqs);
    blockUntilArrival();
  }
  bool AnyError = false;
  for (int I = 0; I < N; ++I) {
    MPI_Status *St = Statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Statuses[I];
    if (Reqs[I] == MPI_REQUEST_NULL) {
      emptyStatus(St);
      continue;
    }
    AnyError |= finish(&Reqs[I], St) != MPI_SUCCESS;
  }
  return AnyError ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

namespace {

/// Waitany/Testany: the first completed active request, or -1; Active says
/// whether any is.
int firstDone(int N, const MPI_Request Reqs[], bool &Active) {
  Active = false;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    Active = true;
    if (reinterpret_cast<const Request *>(Reqs[I])->Complete)
      return I;
  }
  return -1;
}

/// Waitsome/Testsome: completes every finished request; returns how many
/// (MPI_UNDEFINED if none is active).
int collectDone(int N, MPI_Request Reqs[], int Indices[], MPI_Status Statuses[], bool &Error) {
  bool Active = false;
  int Out = 0;
  Error = false;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    Active = true;
    if (!reinterpret_cast<const Request *>(Reqs[I])->Complete)
      continue;
    MPI_Status *St = Statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Statuses[Out];
    Error |= finish(&Reqs[I], St) != MPI_SUCCESS;
    Indices[Out++] = I;
  }
  return Active ? Out : MPI_UNDEFINED;
}

} // namespace

int waitany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status) {
  checkActive("MPI_Waitany");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  checkRequests(N, Reqs, Block);
  for (;;) {
    progress();
    bool Active;
    const int I = firstDone(N, Reqs, Active);
    if (!Active) {
      *Index = MPI_UNDEFINED;
      emptyStatus(Status);
      return MPI_SUCCESS;
    }
    if (I >= 0) {
      *Index = I;
      return finish(&Reqs[I], Status);
    }
    describeWait(WaitWhat::Waitany, Block, N, Reqs);
    blockUntilArrival();
  }
}

int waitsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  checkActive("MPI_Waitsome");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  checkRequests(N, Reqs, Block);
  for (;;) {
    progress();
    bool Error;
    const int Out = collectDone(N, Reqs, Indices, Statuses, Error);
    if (Out != 0) {
      *OutCount = Out;
      return Error ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    }
    describeWait(WaitWhat::Waitsome, Block, N, Reqs);
    blockUntilArrival();
  }
}

int test(mpiete_site_t Block, MPI_Request *Req, int *Flag, MPI_Status *Status) {
  checkActive("MPI_Test");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, 1, Req);
  if (*Req == MPI_REQUEST_NULL) {
    *Flag = 1;
    emptyStatus(Status);
    return MPI_SUCCESS;
  }
  Request *R = toRequest(*Req, Block);
  progress();
  if (!R->Complete) {
    describeWait(WaitWhat::Test, Block, 1, Req);
    yieldAfterFailedPoll();
    progress();
  }
  *Flag = R->Complete ? 1 : 0;
  return R->Complete ? finish(Req, Status) : MPI_SUCCESS;
}

int testall(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]) {
  checkActive("MPI_Testall");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  checkRequests(N, Reqs, Block);
  for (int Round = 0; Round < 2; ++Round) {
    progress();
    bool All = true;
    for (int I = 0; I < N && All; ++I)
      All = isDone(Reqs[I]);
    if (All) {
      *Flag = 1;
      bool AnyError = false;
      for (int I = 0; I < N; ++I) {
        MPI_Status *St = Statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Statuses[I];
        if (Reqs[I] == MPI_REQUEST_NULL)
          emptyStatus(St);
        else
          AnyError |= finish(&Reqs[I], St) != MPI_SUCCESS;
      }
      return AnyError ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    }
    if (Round == 0) {
      describeWait(WaitWhat::Testall, Block, N, Reqs);
      yieldAfterFailedPoll();
    }
  }
  *Flag = 0;
  return MPI_SUCCESS;
}

int testany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status) {
  checkActive("MPI_Testany");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  checkRequests(N, Reqs, Block);
  for (int Round = 0; Round < 2; ++Round) {
    progress();
    bool Active;
    const int I = firstDone(N, Reqs, Active);
    if (!Active) {
      *Flag = 1;
      *Index = MPI_UNDEFINED;
      emptyStatus(Status);
      return MPI_SUCCESS;
    }
    if (I >= 0) {
      *Flag = 1;
      *Index = I;
      return finish(&Reqs[I], Status);
    }
    if (Round == 0) {
      describeWait(WaitWhat::Testany, Block, N, Reqs);
      yieldAfterFailedPoll();
    }
  }
  *Flag = 0;
  *Index = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int testsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  checkActive("MPI_Testsome");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  checkRequests(N, Reqs, Block);
  for (int Round = 0; Round < 2; ++Round) {
    progress();
    bool Error;
    const int Out = collectDone(N, Reqs, Indices, Statuses, Error);
    if (Out != 0 || Round == 1) {
      *OutCount = Out;
      return Error ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    }
    describeWait(WaitWhat::Testsome, Block, N, Reqs);
    yieldAfterFailedPoll();
  }
  return MPI_SUCCESS;
}

/// The start Probe and Iprobe share, under the caller's lock: records the wait, answers a probe
/// of MPI_PROC_NULL (Rc = MPI_SUCCESS) or of a bad rank (Rc = MPI_ERR_RANK) with false, else
/// fills P with the pending probe.
bool startProbe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status,
                Request &P, int &Rc) {
  yieldToCommCalls();
  rec().record(Block, Kind::Wait);
  Rc = MPI_SUCCESS;
  if (Source == MPI_PROC_NULL) {
    if (Status != MPI_STATUS_IGNORE)
      setStatus(*Status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return false;
  }
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Source != MPI_ANY_SOURCE && (Source < 0 || Source >= C.Size)) {
    Rc = MPI_ERR_RANK;
    return false;
  }
  P = probeRecord(Block, Source, Tag, C);
  return true;
}

int probe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status) {
  checkActive("MPI_Probe");
  SegmentLock Lock;
  Request P;
  int Rc;
  if (!startProbe(Block, Source, Tag, Comm, Status, P, Rc))
    return Rc;
  for (;;) {
    progress();
    uint32_t Prev;
    const uint32_t I = findMatch(P, Prev);
    if (I != NoMsg) {
      probeStatus(I, Status);
      return MPI_SUCCESS;
    }
    describeProbe(WaitWhat::Probe, Block, P);
    blockUntilArrival();
  }
}

int iprobe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, int *Flag, MPI_Status *Status) {
  checkActive("MPI_Iprobe");
  SegmentLock Lock;
  Request P;
  int Rc;
  if (!startProbe(Block, Source, Tag, Comm, Status, P, Rc)) {
    if (Rc == MPI_SUCCESS)
      *Flag = 1; // a probe of MPI_PROC_NULL finds its empty message at once
    return Rc;
  }
  for (int Round = 0; Round < 2; ++Round) {
    progress();
    uint32_t Prev;
    const uint32_t I = findMatch(P, Prev);
    if (I != NoMsg) {
      *Flag = 1;
      probeStatus(I, Status);
      return MPI_SUCCESS;
    }
    if (Round == 0) {
      describeProbe(WaitWhat::Iprobe, Block, P);
      yieldAfterFailedPoll();
    }
  }
  *Flag = 0;
  return MPI_SUCCESS;
}

int requestFree(mpiete_site_t Block, MPI_Request *Req) {
  checkActive("MPI_Request_free");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, 1, Req);
  if (*Req == MPI_REQUEST_NULL)
    return MPI_ERR_REQUEST;
  Request *R = toRequest(*Req, Block);
  *Req = MPI_REQUEST_NULL;
  if (R->Complete) {
    releaseRequest(R);
    return MPI_SUCCESS;
  }
  // Still pending: the receive still lands in its buffer, the synchronous send
  // still waits for its match; the record goes when that happens (progress,
  // sweepOwned).
  R->Freed = true;
  return MPI_SUCCESS;
}

int collectiveCall(mpiete_site_t Block, MPI_Comm Comm, int (*Fn)(void *), void *Arg) {
  checkActive("a communicator call");
  rec().record(Block, Kind::Comm);
  const comms::Info &C = Comm == M.Freeing ? *M.FreeingInfo : comms::lookup(Comm, Block);
  if (C.Size <= 1)
    return finishCommCall(C, Fn(Arg));
  lockSegment();
  yieldToCommCalls();
  progress();

  Header &H = *M.H;
  CollSlot *S = nullptr;
  for (CollSlot &Cand : H.Colls)
    if (Cand.Used && Cand.CommId == C.Id)
      S = &Cand;
  if (S == nullptr) {
    for (CollSlot &Cand : H.Colls)
      if (!Cand.Used) {
        S = &Cand;
        break;
      }
    if (S == nullptr)
      fatal("more than %d communicator calls waiting for their members at once", MaxCollSlots);
    S->Used = 1;
    S->Started = 0;
    S->CommId = C.Id;
    S->Size = C.Size;
    S->Arrived = 0;
  }
  S->Arrived += 1;
  progressMade();
  RankSlot &Me = self();
  Me.State = RankState::Parked;
  Me.Wait.What = WaitWhat::CommCall;
  Me.Wait.Block = Block;
  Me.Wait.CommId = C.Id;
  Me.Wait.NPending = 0;
  if (S->Arrived == S->Size) {
    // The last member: the call starts once no rank holds a token, so nothing is timed
    // while it runs (with one token, at once: this rank holds it).
    S->Last = M.Me;
    H.Draining += 1;
  }
  releaseToken();
  if (Me.State != RankState::Collective)
    sleepForToken(); // woken when the call starts
  unlockSegment();

  const int Rc = Fn(Arg);

  lockSegment();
  Me.State = RankState::Ready;
  if (--S->Remaining == 0) {
    const int Last = S->Last;
    S->Used = 0;
    H.ActiveColls -= 1;
    // The last to finish: the member that arrived last runs first, then the others.
    if (H.ActiveColls == 0)
      fillIdleTokens(Last);
  }
  if (Me.Token < 0)
    sleepForToken();
  else
    moveToTokenCpu();
  unlockSegment();
  return finishCommCall(C, Rc);
}

void commCreated(mpiete_site_t, MPI_Comm, MPI_Comm) {}

void commFreed(mpiete_site_t Block, MPI_Comm Comm) {
  if (M.FreeingInfo != nullptr)
    comms::release(*M.FreeingInfo);
  M.FreeingInfo = &comms::lookup(Comm, Block);
  comms::retain(*M.FreeingInfo);
  M.Freeing = Comm;
}

} // namespace mpiete::transport
