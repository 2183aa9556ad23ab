// Communicator tracking shared by both variants: every communicator the program uses gets an
// id that all its members agree on, and its members' ranks in MPI_COMM_WORLD, so that traces
// name every peer as a world rank and the token machine can route messages between processes.
//
// Ids: MPI_COMM_WORLD is 0, MPI_COMM_SELF is 1 (per process: never shared). A communicator made
// by a collective call on Parent gets hash(Parent's id, the number of communicator-creating
// calls made on Parent before it, the smallest world rank among its members): every member
// computes the same value without communicating, and two colours of one Comm_split differ.
// Only local MPI calls (PMPI_Comm_group, PMPI_Group_translate_ranks, ...) are used here.
#ifndef MPIETE_RUNTIME_COMMS_H
#define MPIETE_RUNTIME_COMMS_H

#include "mpiete/instrument.h"

#include <cstdint>

namespace mpiete::comms {

struct Info {
  uint64_t Id = 0;
  int Size = 0;
  int MyRank = 0;             ///< this process's rank in the communicator
  const int *World = nullptr; ///< World[r]: the world rank of member r (Size entries)
  /// The transport's private matching space for this communicator's collective traffic (the
  /// trace variant's PMPI_Comm_dup), or MPI_COMM_NULL. Set by the transport (setShadow).
  MPI_Comm Shadow = MPI_COMM_NULL;
};

/// Registers MPI_COMM_WORLD and MPI_COMM_SELF; called once after PMPI_Init.
void initWorld();

/// The communicator's record. An unknown communicator (not made through a rewritten call) is
/// a fatal runtime error naming the call site Block.
const Info &lookup(MPI_Comm Comm, mpiete_site_t Block);

/// World rank of Rank in Comm; MPI_PROC_NULL, MPI_ANY_SOURCE pass through unchanged.
int worldRank(const Info &C, int Rank);
/// Rank in the communicator of a world rank, or -1 if it is not a member.
int localRank(const Info &C, int WorldRank);

/// After a communicator-creating call on Parent returned New (MPI_COMM_NULL allowed: then only
/// the per-parent counter advances, keeping it equal on every member).
void created(MPI_Comm Parent, MPI_Comm New, mpiete_site_t Block);
/// Before MPI_Comm_free releases Comm. Its record stays valid while retained (below).
void freed(MPI_Comm Comm);

/// Stores the transport's shadow communicator of the registered communicator Comm.
void setShadow(MPI_Comm Comm, MPI_Comm Shadow);

/// Keeps a record alive past freed() (a pending request on a communicator the program already
/// freed still completes and must name its peer); every retain is paired with one release.
void retain(const Info &C);
void release(const Info &C);

} // namespace mpiete::comms

#endif // MPIETE_RUNTIME_COMMS_H
