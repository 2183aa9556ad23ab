// The block partition policy both frontends follow (BlockPartition.h).
#include "mpiete/frontend/BlockPartition.h"

#include <algorithm>

namespace mpiete {

StmtTraits &StmtTraits::operator+=(const StmtTraits &O) {
  Communicates = Communicates || O.Communicates;
  Jumps = Jumps || O.Jumps;
  Entered = Entered || O.Entered;
  Directive = Directive || O.Directive;
  Structured = Structured || O.Structured;
  return *this;
}

bool PartitionPolicy::isComputation(const StmtTraits &S) const {
  return !S.Communicates && !S.Jumps && !S.Entered && !S.Directive && !(SeedBlocks && S.Structured);
}

bool PartitionPolicy::continuesRun(const StmtTraits &Last, const StmtTraits &S) const {
  return Last.File == S.File;
}

BlockRange PartitionPolicy::blockOf(std::span<const StmtTraits> Run) const {
  BlockRange R{0, Run.size()};
  while (R.First < R.Last && Run[R.First].NoCode)
    ++R.First;
  while (R.Last > R.First && Run[R.Last - 1].NoCode && !Run[R.Last - 1].Declaration)
    --R.Last;
  return R;
}

bool PartitionPolicy::timedWhole(const StmtTraits &Header, std::span<const StmtTraits> Body) const {
  if (!isComputation(Header) ||
      !std::all_of(Body.begin(), Body.end(), [&](const StmtTraits &S) { return isComputation(S); }))
    return false;
  return !Header.NoCode ||
         std::any_of(Body.begin(), Body.end(), [](const StmtTraits &S) { return !S.NoCode; });
}

} // namespace mpiete
