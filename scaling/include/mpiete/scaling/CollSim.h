// The lowered collectives without MPI: runs the runtime's own lowering code (runtime/lib/coll,
// the same decision table and algorithms the trace probe records) on a simulated transport, so
// a collective kept as one call in the communication structure becomes, at any rank count, the
// exact point-to-point events the trace probe would have recorded.
#ifndef MPIETE_SCALING_COLLSIM_H
#define MPIETE_SCALING_COLLSIM_H

#include "mpiete/TraceFormat.h"
#include "mpiete/estimator/Event.h"

#include <string>
#include <vector>

namespace mpiete::scaling {

/// One collective call as the trace's Collective record gives it, plus what the record does not
/// say and the lowering needs: the element size (splitting algorithms cut at elements) and
/// whether the operation commutes (learnt by which reproduces the measured messages).
struct CollCall {
  trace::CollKind Kind = trace::CollKind::Barrier;
  int32_t Root = -1;  ///< world rank, -1 if none
  uint64_t Bytes = 0; ///< the call's size: see collBytes() for what it means per kind
  uint32_t Elem = 8;  ///< element size in bytes
  bool Commutative = true;
  estimator::BlockId Site = 0;
  uint64_t Comm = 0; ///< the id its messages carry: the world's or one with the world's members
  /// Uneven counts (MPI_Gatherv, MPI_Allgatherv, MPI_Scatterv, MPI_Alltoallv): each member's
  /// count, indexed by its rank in the communicator (its Collective record; a scatter's member
  /// records none: what it receives); null: equal counts from Bytes. A gather's member
  /// contributes its bytes, a scatter's receives them; an all-to-all's sends member j
  /// bytes(R) * bytes(j) / the sum of all (the outer product of the members' shares: a
  /// transpose of blocks as even as they come).
  const std::vector<uint64_t> *RankBytes = nullptr;
};

/// Why a collective of kind K is never lowered at another size (a neighbourhood collective's
/// peers and an alltoallw's datatypes are not in the trace); empty for the kinds that are.
std::string collNotLowered(trace::CollKind K);

/// Whether the kind's counts may differ between the members (CollCall::RankBytes).
bool collHasRankBytes(trace::CollKind K);

/// Whether the lowering splits the call's size among the members (the scatters, the
/// all-to-alls, the reduce-scatters: each member gets Bytes / P when the counts are equal).
bool collSplitsBytes(trace::CollKind K);

/// The call's size from rank-independent facts: the root's Collective record for the rooted
/// scatters and the broadcast (the other ranks record 0), this rank's record otherwise.
bool collBytesFromRoot(trace::CollKind K);

/// Appends rank R's lowered events of C at P ranks on the world communicator to Out, in the
/// order the trace probe records them, normalised (normaliseEvent). Request ids continue from
/// LastRequest (updated). False with Why when the kind cannot be lowered with these counts (an
/// all-to-all's blocks that are no whole elements).
bool lowerCollective(const CollCall &C, int R, int P, uint64_t &LastRequest,
                     std::vector<estimator::Event> &Out, std::string &Why);

/// Clears the fields of E its kind does not carry (the trace reader leaves earlier records'
/// values there), so events compare by what they mean.
void normaliseEvent(estimator::Event &E);

} // namespace mpiete::scaling

#endif
