// cluster.yaml, and (where the estimator is built) the placement of ranks on the nodes it
// describes (estimator::placeRanks).
#include "FuzzInput.h"
#include "mpiete/basedata/ClusterFile.h"
#ifdef MPIETE_FUZZ_PLACEMENT
#include "mpiete/estimator/Cluster.h"
#endif

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
  mpiete::ClusterSpec S;
  if (!mpiete::parseClusterSpec("cluster.yaml", Text, S, Diags))
    return 0;
#ifdef MPIETE_FUZZ_PLACEMENT
  // Placement of as many ranks as the listed nodes hold and a few more (past the list), where
  // that stays small: every rank on a node with room, every node count right.
  long Held = 0;
  for (const mpiete::ClusterNodeType &T : S.Nodes)
    Held += long(T.Count) * (T.RanksPerNode > 0 ? T.RanksPerNode : S.RanksPerNode);
  if (Held > 4096)
    return 0;
  for (int Ranks : {1, int(Held), int(Held) + 3}) {
    if (Ranks < 1)
      continue;
    mpiete::estimator::RankPlacement P = mpiete::estimator::placeRanks(S, "cluster.yaml", Ranks);
    std::vector<int> On(size_t(P.Nodes), 0);
    for (int N : P.NodeOfRank)
      if (N < 0 || N >= P.Nodes || ++On[size_t(N)] > P.RanksOnNode[size_t(N)])
        std::abort();
    if (On != P.RanksOnNode || P.ListedNodes > P.Nodes)
      std::abort();
  }
#endif
  return 0;
}
