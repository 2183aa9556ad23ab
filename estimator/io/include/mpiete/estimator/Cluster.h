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

/// Where Spec puts Ranks ranks (Spec.RanksPerNode >= 1): each rank's node and that node's
/// machine file from the node types list, resolved against ClusterPath ("" when its type names
/// none or the list ends before it). A node holds its type's ranks_per_node (the top-level one
/// when the type gives none, or past the list's end); the ranks need the fewest nodes, in list
/// order, that hold them all. Block placement fills a node with consecutive ranks; round-robin
/// deals them round those nodes, passing over the full ones.
struct RankPlacement {
  int Nodes = 0;       ///< nodes the ranks need
  int ListedNodes = 0; ///< how many of them the node types list covers
  int ListedRanks = 0; ///< how many ranks the listed nodes hold
  std::vector<int> NodeOfRank;
  std::vector<std::string> MachineOfRank;
  std::vector<int> TypeOfRank;  ///< index into Spec.Nodes; -1 past the list's end
  std::vector<int> RanksOnNode; ///< per node: the ranks placed on it
};
RankPlacement placeRanks(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks);

/// "1 node", "2 nodes": N and Noun, plural unless N is 1.
std::string counted(int N, const char *Noun);

/// False, with an error at the node types list ("... but " + Asked), when Spec lists node
/// types and Place needed nodes past them.
bool checkListedNodes(const ClusterSpec &Spec, const RankPlacement &Place, const std::string &Asked,
                      DiagnosticSink &Diags);

/// The links of Spec (read from ClusterPath, which its paths are relative to): the inter-node
/// network (the cluster's, else Defaults.Inter), the intra-node one (else the inter-node one),
/// and the contention between nodes with each node link's capacity (bytes per second; 0: what
/// one pair achieves). False (reported) on error.
struct ClusterLinks {
  std::shared_ptr<LinkModel> Intra, Inter;
  ContentionKind Contention = ContentionKind::None;
  double Capacity = 0;
};
bool clusterLinks(const ClusterSpec &Spec, const std::string &ClusterPath, NetworkModelKind Kind,
                  const ClusterDefaults &Defaults, DiagnosticSink &Diags, ClusterLinks &Out);

/// Builds the network of Spec (read from the file ClusterPath, which its paths are relative
/// to) for Ranks ranks. Ranks on a node of a listed type take their compute times from that
/// type's file (which must hold every such rank), added to Compute. False (reported) on error.
bool buildCluster(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks,
                  NetworkModelKind Kind, const ClusterDefaults &Defaults,
                  TableComputeModel &Compute, DiagnosticSink &Diags,
                  std::unique_ptr<ClusterNetworkModel> &Out);

} // namespace mpiete::estimator

#endif
