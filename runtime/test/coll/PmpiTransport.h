// Test-only hooks of PmpiTransport.cpp, the transport double the collective tests link instead
// of a real transport: shadow communicators and message counters.
#ifndef MPIETE_TEST_COLL_PMPITRANSPORT_H
#define MPIETE_TEST_COLL_PMPITRANSPORT_H

#include "mpiete/instrument.h"

#include <cstdint>

namespace mpiete::testing {

/// Gives Comm its private collective context (a PMPI_Comm_dup): collective over Comm, so it is
/// done up front by every member rather than lazily inside a collective some rank may skip.
void registerComm(MPI_Comm Comm);
void unregisterComm(MPI_Comm Comm);

/// What one process sent and received through the transport since the last reset.
struct Counts {
  static constexpr int MaxPeers = 64;
  uint64_t SentMsgs[MaxPeers]; // by destination rank in the communicator
  uint64_t SentBytes[MaxPeers];
  uint64_t Starts;      // isend + irecv calls
  uint64_t Waits;       // wait / waitall calls
  uint64_t OtherBlocks; // events recorded under a block other than the expected one
  uint64_t UserContext; // messages in the user's context (collectives must use none)
};

/// Resets the counters; events not under Block count as OtherBlocks.
void resetCounts(mpiete_site_t Block);
const Counts &counts();

} // namespace mpiete::testing

#endif // MPIETE_TEST_COLL_PMPITRANSPORT_H
