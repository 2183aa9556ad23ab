// A cluster file (basedata/ClusterFile.h) made into the estimator's models: ranks on nodes,
// each node type's compute data, intra- and inter-node links and the links' capacity.
#ifndef MPIETE_ESTIMATOR_CLUSTER_H
#define MPIETE_ESTIMATOR_CLUSTER_H

#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/estimator/BaseData.h"

#include <memory>
#include <string>
#include <vector>

namespace mpiete::estimator {

/// The estimate's defaults the cluster file may override: the --network link (and its file)
/// and the --machine file (its ranks already in the compute model).
struct ClusterDefaults {
  std::shared_ptr<LinkModel> Inter;
  std::string InterPath;
  std::string Machine;
  MachineProvenance MachineProv;
};

/// Where Spec puts Ranks ranks (Spec.RanksPerNode >= 1): each rank's node (block placement
/// fills a node with consecutive ranks, cyclic deals them round the nodes) and that node's
/// machine file from the node types list, resolved against ClusterPath ("" when its type names
/// none or the list ends before it).
struct RankPlacement {
  int Nodes = 0;       ///< nodes the ranks need
  int ListedNodes = 0; ///< how many of them the node types list covers
  std::vector<int> NodeOfRank;
  std::vector<std::string> MachineOfRank;
};
RankPlacement placeRanks(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks);

/// Builds the network of Spec (read from the file ClusterPath, which its paths are relative
/// to) for Ranks ranks. Ranks on a node of a listed type take their compute times from that
/// type's file (which must hold every such rank), added to Compute. False (reported) on error.
bool buildCluster(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks,
                  NetworkModelKind Kind, const ClusterDefaults &Defaults,
                  TableComputeModel &Compute, DiagnosticSink &Diags,
                  std::unique_ptr<ClusterNetworkModel> &Out);

} // namespace mpiete::estimator

#endif
