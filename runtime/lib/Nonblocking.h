// Non-blocking collectives (MPI_Ibarrier, MPI_Iallreduce, ...): the blocking collective's
// lowered algorithm (runtime/lib/coll), run as a coroutine of its own, so both variants get
// them at once and the trace holds ordinary collective messages the estimator replays.
//
// Each operation runs on a small stack of its own (a ucontext fiber). Wherever the lowered
// algorithm waits for its messages (CollBase.h's Ctx), a fiber returns to its caller instead
// of blocking, and the operation continues at the next call that drives it:
//   - its start runs it up to its first wait (the first round's messages are posted);
//   - MPI_Test (and the Test family) on its request polls it once: its pending messages are
//     tested through the transport (recorded as a test, a failed one gives the token machine's
//     other ranks their turn) and, if they are complete, the algorithm runs on to its next
//     wait;
//   - MPI_Wait (and the Wait family) runs it to its end (its communicator's operations as far
//     as itself), driving every other communicator's operations once it is stuck.
// Operations on one communicator run in the order they were started (MPI's rule for
// collectives): an operation starts its first round only when the one before it on the
// communicator has finished, and driving an operation drives the ones before it first. So the
// messages of two operations between two ranks never overtake each other, and every operation
// keeps its blocking twin's tag. A blocking collective, or MPI_Comm_free, on a communicator
// with operations outstanding first finishes them.
//
// A rank blocked in another wait (MPI_Recv, MPI_Wait on other requests, a blocking collective's
// messages) drives its outstanding operations too, as MPI libraries progress everything while
// blocked: before such a wait blocks, the transport calls whileBlocked, which moves every
// running operation on by the rounds whose messages have arrived (a round's completion is
// recorded as the blocking twin's wait, so the records do not depend on how often it looked)
// until the wait's own requests are complete. So a peer that can proceed only once an
// operation advances (legal MPI) does not deadlock; MPI_Probe does the same (driveUntil). Not
// covered: the communicator calls. Such a wait drives only after the transport's grace (a few
// milliseconds in the trace variant, none under token passing), and an operation's own wait
// drives its communicator only as far as that operation: where a round's records land then
// does not depend on timing unless a rank really is stuck, so a time-step loop's iterations
// stay identical and its trace compacted.
// docs/runtime-abi.md, "Non-blocking collectives".
#ifndef MPIETE_RUNTIME_NONBLOCKING_H
#define MPIETE_RUNTIME_NONBLOCKING_H

#include "mpiete/instrument.h"

#include <mpi.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace mpiete::nbc {

struct Op;

/// The closure an operation runs: the blocking collective's lowered implementation with the
/// user's arguments, stored inside the operation (no allocation per start beyond the first
/// operations' storage, which is reused).
struct Body {
  static constexpr size_t Capacity = 160;
  alignas(std::max_align_t) unsigned char Storage[Capacity];
  int (*Run)(void *) = nullptr;
  template <class F> void set(F Fn) {
    static_assert(sizeof(F) <= Capacity, "non-blocking collective closure too large");
    static_assert(std::is_trivially_copyable_v<F> && std::is_trivially_destructible_v<F>);
    ::new (static_cast<void *>(Storage)) F(std::move(Fn));
    Run = [](void *S) { return (*static_cast<F *>(S))(); };
  }
};

/// Starts an operation on Comm that runs B (whose closure holds the call site its records are
/// written under), and runs it up to its first wait if no earlier operation on Comm is
/// outstanding.
Op *start(MPI_Comm Comm, const Body &B);

/// Drives Op (and the operations started before it on its communicator) once: true when Op
/// has finished. A failed poll lets the token machine's other ranks run.
bool poll(Op *O);
/// Runs Op (and those before it on its communicator, never those after it) to its end, every
/// other communicator's operations driven while its own have not moved for the grace; its
/// result code.
int finish(Op *O);
/// Whether Op has finished (without driving it).
bool done(const Op *O);
/// Returns a finished operation's storage; its result code.
int release(Op *O);

/// Operations started and not yet released: while 0, nothing here costs anything.
int outstanding();
/// Finishes every outstanding operation on Comm (before a blocking collective on it, or its
/// release).
void drain(MPI_Comm Comm);

/// Whether the caller runs inside an operation's fiber.
bool inFiber();
/// Whether an operation has its first round posted and is not finished.
bool running();
/// Drives every running operation once (Progress: a round whose messages have all arrived is
/// completed, recorded as its blocking twin's wait, and the next posted); whether any moved.
bool progressAll();

/// A blocking call's grace (the transport's driveGraceSeconds, counted from its start): the
/// first look at the clock starts it; while it lasts the call only looks at its own requests.
class Grace {
public:
  bool over();

private:
  double Until = -1;
};

/// The loop of whileBlocked for any blocking call: until Ready() says the call can complete,
/// drives the operations, and Idle() when none could move on; during the transport's grace it
/// only looks (Ready, Idle). Nothing while no operation is outstanding, or inside an
/// operation's fiber.
template <class ReadyFn, class IdleFn> void driveUntil(ReadyFn Ready, IdleFn Idle) {
  if (outstanding() == 0) [[likely]]
    return;
  if (inFiber())
    return;
  Grace G;
  bool Advanced = true;
  while (running() && !Ready()) {
    if (!Advanced)
      Idle();
    // During the grace nothing is driven, so nothing advances: the next round idles.
    Advanced = G.over() && progressAll();
  }
}

/// A blocking wait outside the operations' fibers (the transport's Wait family) calls this
/// first: while operations are outstanding and until the transport says the wait's own
/// requests (all of them, or any one for Any) are complete, it drives every running operation,
/// and when none could advance it lets the transport idle (the token machine: the other ranks
/// run once).
void driveWhileBlocked(mpiete_site_t Block, int N, const MPI_Request Reqs[], bool Any);
inline void whileBlocked(mpiete_site_t Block, int N, const MPI_Request Reqs[], bool Any) {
  if (outstanding() != 0) [[unlikely]]
    driveWhileBlocked(Block, N, Reqs, Any);
}

/// Inside an operation's fiber: the lowered algorithm's waits go through here.
int waitPoint(mpiete_site_t Site, int N, MPI_Request Reqs[]);

} // namespace mpiete::nbc

#endif // MPIETE_RUNTIME_NONBLOCKING_H
