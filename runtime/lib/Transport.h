// The point-to-point layer under every rewritten MPI call and every lowered collective.
//
// Exactly one implementation is linked into each probe library:
//   - the trace variant's (TransportTrace.cpp): PMPI underneath, and every start, wait and
//     test recorded as program base data (the binary per-rank trace);
//   - the timing variant's (TokenMachine.cpp): the token-passing execution of seed 004
//     section 3.3 over shared memory, one rank running at a time, nothing recorded but the
//     compute blocks' times.
// The MPI entry points (MpiEntry.cpp) and the collectives (Collectives.cpp) are written once
// against this interface. Every function returns an MPI error code and follows MPI's own
// semantics for its arguments (MPI_PROC_NULL peers, MPI_ANY_SOURCE / MPI_ANY_TAG,
// MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, MPI_REQUEST_NULL entries, inactive requests).
//
// `Block` is the block id the event is recorded under: the call site's start / wait block for
// user calls, the collective's site block for the messages of a lowered collective.
#ifndef MPIETE_RUNTIME_TRANSPORT_H
#define MPIETE_RUNTIME_TRANSPORT_H

#include "Comms.h"
#include "mpiete/SendMode.h"
#include "mpiete/TraceFormat.h"
#include "mpiete/instrument.h"

#include <cstdint>

namespace mpiete::transport {

/// The send mode and the matching space (user, or private to the lowered collectives of a
/// communicator) are the ground floor's: the trace records them as they are.
using mpiete::Context;
using mpiete::SendMode;

/// Called from mpiete_init / mpiete_init_thread after PMPI_Init(_thread) succeeded, and from
/// mpiete_finalize before PMPI_Finalize.
void init(mpiete_site_t Block);
void finalize(mpiete_site_t Block);

int isend(mpiete_site_t Block, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm Comm, SendMode Mode, Context Ctx, MPI_Request *Req);
int irecv(mpiete_site_t Block, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
          MPI_Comm Comm, Context Ctx, MPI_Request *Req);

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *Status);
int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status Statuses[]);
int waitany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status);
int waitsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]);
int test(mpiete_site_t Block, MPI_Request *Req, int *Flag, MPI_Status *Status);
int testall(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]);
int testany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status);
int testsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]);
int probe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status);
int iprobe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, int *Flag, MPI_Status *Status);
int requestFree(mpiete_site_t Block, MPI_Request *Req);

/// Whether the requests are complete (all of them, or for Any at least one, or none active),
/// without completing them and without recording anything: for driving non-blocking
/// collectives while a wait would block (Nonblocking.h, whileBlocked).
bool ready(int N, const MPI_Request Reqs[], bool Any);
/// Between two such looks when nothing could advance: the trace variant returns at once (its
/// looks run MPI's progress), the token machine lets the other ranks run once (a poll).
void idle(mpiete_site_t Block, int N, const MPI_Request Reqs[]);
/// How long a blocking call looks at its own requests before it drives the non-blocking
/// collectives (Nonblocking.h): the trace variant's runs are timed by the machine, so a round
/// whose messages arrive while some other wait blocks for a moment would land in the trace at
/// a place that changes from run to run; waiting a little first keeps a time-step loop's
/// iterations identical (compacted) unless the rank really is stuck. The token machine's
/// schedule does not depend on time, so it drives at once (0).
double driveGraceSeconds();

/// ready()'s rule over a per-request look Done(Request) (each transport's own), for every
/// implementation alike.
template <class DoneFn> bool requestsReady(int N, const MPI_Request Reqs[], bool Any, DoneFn Done) {
  bool Active = false;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    Active = true;
    const bool D = Done(Reqs[I]);
    if (D && Any)
      return true;
    if (!D && !Any)
      return false;
  }
  return !Any || !Active;
}

/// Whether collectiveStarted records anything (the trace variant while tracing): the entry
/// point computes the collective's byte count only then.
bool recordsCollectives();
/// A collective of kind K on the communicator C (comms::lookup's record) starts at Block (Root
/// -1 if it has none; Bytes this rank contributes); its lowered messages follow.
void collectiveStarted(mpiete_site_t Block, const comms::Info &C, trace::CollKind K, int Root,
                       uint64_t Bytes);

/// Runs a real MPI operation that is collective over Comm's members (communicator creation and
/// release): Fn(Arg) calls the PMPI routine. The trace variant just calls it; the token machine
/// lets every member run it at the same time while no compute block is being timed.
int collectiveCall(mpiete_site_t Block, MPI_Comm Comm, int (*Fn)(void *), void *Arg);

/// After a communicator-creating call at Block on Parent returned New and comms::created
/// registered it (New is MPI_COMM_NULL on a process that is not a member). Every member calls
/// it at the same point, so the trace variant can make New's shadow communicator here.
void commCreated(mpiete_site_t Block, MPI_Comm Parent, MPI_Comm New);
/// MPI_Comm_free at Block, before comms::freed forgets Comm and PMPI_Comm_free releases it.
void commFreed(mpiete_site_t Block, MPI_Comm Comm);

} // namespace mpiete::transport

#endif // MPIETE_RUNTIME_TRANSPORT_H
