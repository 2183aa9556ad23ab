// A cluster spec to the node map, compute tables and links the engine replays against.
#include "mpiete/estimator/Cluster.h"

#include <map>

namespace mpiete::estimator {
namespace {

/// A note when a machine file was measured with another number of ranks computing at once
/// (`probe-compute --ranks-per-node`) than the cluster runs per node: its blocks saw another
/// share of memory bandwidth and caches.
void noteRanksPerNode(const std::string &Machine, int Measured, int PerNode,
                      DiagnosticSink &Diags) {
  if (Measured != PerNode)
    Diags.note({Machine, 0, 0},
               "measured with " + std::to_string(Measured) +
                   " ranks computing at once, the cluster runs " + std::to_string(PerNode) +
                   " per node (mpiete probe-compute --ranks-per-node " + std::to_string(PerNode) +
                   " measures them sharing the node)",
               "estimate");
}

} // namespace

RankPlacement placeRanks(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks) {
  RankPlacement P;
  const int PerNode = Spec.RanksPerNode;
  P.Nodes = (Ranks + PerNode - 1) / PerNode;
  std::vector<std::string> MachineOfNode(size_t(P.Nodes));
  for (const ClusterNodeType &T : Spec.Nodes) {
    std::string Machine = T.Machine.empty() ? "" : clusterPath(ClusterPath, T.Machine);
    for (int I = 0; I < T.Count && P.ListedNodes < P.Nodes; ++I)
      MachineOfNode[size_t(P.ListedNodes++)] = Machine;
  }
  P.NodeOfRank.resize(size_t(Ranks));
  P.MachineOfRank.resize(size_t(Ranks));
  for (int R = 0; R < Ranks; ++R) {
    const int Node = Spec.Placement == ClusterPlacement::Block ? R / PerNode : R % P.Nodes;
    P.NodeOfRank[size_t(R)] = Node;
    P.MachineOfRank[size_t(R)] = MachineOfNode[size_t(Node)];
  }
  return P;
}

bool buildCluster(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks,
                  NetworkModelKind Kind, const ClusterDefaults &Defaults,
                  TableComputeModel &Compute, DiagnosticSink &Diags,
                  std::unique_ptr<ClusterNetworkModel> &Out) {
  const int PerNode = Spec.RanksPerNode;
  RankPlacement Place = placeRanks(Spec, ClusterPath, Ranks);
  if (!Spec.Nodes.empty() && Place.ListedNodes < Place.Nodes) {
    Diags.error(Spec.NodesAt,
                "the node types list " + std::to_string(Place.ListedNodes) + " nodes, but " +
                    std::to_string(Ranks) + " ranks at " + std::to_string(PerNode) +
                    " per node need " + std::to_string(Place.Nodes),
                "cluster");
    return false;
  }
  std::map<std::string, std::vector<int>> RanksOfMachine;
  for (int R = 0; R < Ranks; ++R)
    if (!Place.MachineOfRank[size_t(R)].empty())
      RanksOfMachine[Place.MachineOfRank[size_t(R)]].push_back(R);
  noteRanksPerNode(Defaults.Machine, Defaults.MachineProv.RanksPerNode, PerNode, Diags);
  for (const auto &[File, Only] : RanksOfMachine) {
    MachineProvenance Prov;
    if (!loadMachineYaml(File, Compute, Diags, &Only, &Prov))
      return false;
    if (File != Defaults.Machine)
      noteRanksPerNode(File, Prov.RanksPerNode, PerNode, Diags);
  }

  std::shared_ptr<LinkModel> Inter = Defaults.Inter;
  std::string InterPath = Defaults.InterPath;
  if (!Spec.InterNodeNetwork.empty()) {
    InterPath = clusterPath(ClusterPath, Spec.InterNodeNetwork);
    Inter = loadNetworkYaml(InterPath, Kind, Diags);
    if (!Inter)
      return false;
  }
  std::shared_ptr<LinkModel> IntraLink = Inter;
  if (!Spec.IntraNodeNetwork.empty()) {
    IntraLink = loadNetworkYaml(clusterPath(ClusterPath, Spec.IntraNodeNetwork), Kind, Diags);
    if (!IntraLink)
      return false;
  }
  Out = std::make_unique<ClusterNetworkModel>(std::move(Place.NodeOfRank), IntraLink,
                                              std::move(Inter));

  // Contention: the capacity of each node's link, from the most direct evidence given.
  if (Spec.Contention == ClusterContention::None)
    return true;
  double Capacity = 0;
  if (Spec.LinkBandwidth) {
    Capacity = *Spec.LinkBandwidth;
  } else if (!Spec.ContentionNetwork.empty()) {
    std::string File = clusterPath(ClusterPath, Spec.ContentionNetwork);
    NetworkPairs Pairs;
    if (!loadNetworkPairs(File, Pairs, Diags))
      return false;
    if (Pairs.Pairs < 2) {
      Diags.error(Spec.ContentionNetworkAt,
                  "'" + File +
                      "' was measured with one pair; measure the link capacity with "
                      "'mpiete probe-comm --pairs K' (K > 1)",
                  "cluster");
      return false;
    }
    Capacity = Pairs.AggregateBytesPerSecond;
  } else {
    NetworkPairs Pairs;
    if (!loadNetworkPairs(InterPath, Pairs, Diags))
      return false;
    Capacity = Pairs.AggregateBytesPerSecond; // 0 for one pair: what one pair achieves (1/G)
  }
  Out->setContention(ContentionKind::Fair, Capacity);
  return true;
}

} // namespace mpiete::estimator
