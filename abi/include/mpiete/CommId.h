// Communicator ids (docs/trace-format.md): 0 is MPI_COMM_WORLD, 1 MPI_COMM_SELF, and a
// communicator made by a collective call on Parent gets a hash of (Parent's id, the number of
// communicator-creating calls on Parent before this one, its smallest member's world rank): the
// same on every member, different per colour. The runtime gives ids by it, and the scaling
// model computes the ids a sub-communicator has at rank counts never run.
#ifndef MPIETE_COMMID_H
#define MPIETE_COMMID_H

#include <stdint.h>

#ifdef __cplusplus
namespace mpiete {

/// splitmix64's finalizer.
constexpr uint64_t commIdMix(uint64_t X) {
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

/// The id of the communicator made by the Seq-th communicator-creating call on Parent (from 0),
/// whose smallest member is world rank MinWorld.
constexpr uint64_t childCommId(uint64_t Parent, uint64_t Seq, int MinWorld) {
  uint64_t Id = commIdMix(commIdMix(Parent ^ 0x6d70696574650000ULL) + Seq);
  Id = commIdMix(Id + static_cast<uint64_t>(MinWorld));
  return Id < 2 ? Id + 2 : Id; // 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF
}

} // namespace mpiete
#endif

#endif
