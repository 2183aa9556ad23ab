// A cluster spec to the node map, compute tables and links the engine replays against.
#include "mpiete/estimator/Cluster.h"

#include <algorithm>
#include <map>
#include <set>

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

std::string counted(int N, const char *Noun) {
  return std::to_string(N) + " " + Noun + (N == 1 ? "" : "s");
}

RankPlacement placeRanks(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks) {
  RankPlacement P;
  // The nodes in order, as many as hold the ranks: their type and room.
  std::vector<int> TypeOfNode, Room;
  for (size_t T = 0; T < Spec.Nodes.size(); ++T)
    for (int I = 0; I < Spec.Nodes[T].Count && P.ListedRanks < Ranks; ++I) {
      TypeOfNode.push_back(int(T));
      Room.push_back(Spec.ranksPerNode(int(T)));
      P.ListedRanks += Room.back();
    }
  P.ListedNodes = int(TypeOfNode.size());
  for (int Held = P.ListedRanks; Held < Ranks; Held += Spec.ranksPerNode(-1)) {
    TypeOfNode.push_back(-1);
    Room.push_back(Spec.ranksPerNode(-1));
  }
  P.Nodes = int(TypeOfNode.size());
  P.ListedRanks = std::min(P.ListedRanks, Ranks);
  P.NodeOfRank.resize(size_t(Ranks));
  P.RanksOnNode.assign(size_t(P.Nodes), 0);
  int Node = 0;
  for (int R = 0; R < Ranks; ++R) {
    while (P.RanksOnNode[size_t(Node)] == Room[size_t(Node)]) // block: only forward
      Node = (Node + 1) % P.Nodes;
    P.NodeOfRank[size_t(R)] = Node;
    ++P.RanksOnNode[size_t(Node)];
    if (Spec.Placement == ClusterPlacement::RoundRobin)
      Node = (Node + 1) % P.Nodes;
  }
  P.TypeOfRank.resize(size_t(Ranks));
  P.MachineOfRank.resize(size_t(Ranks));
  for (int R = 0; R < Ranks; ++R) {
    const int T = TypeOfNode[size_t(P.NodeOfRank[size_t(R)])];
    P.TypeOfRank[size_t(R)] = T;
    if (T >= 0 && !Spec.Nodes[size_t(T)].Machine.empty())
      P.MachineOfRank[size_t(R)] = clusterPath(ClusterPath, Spec.Nodes[size_t(T)].Machine);
  }
  return P;
}

bool checkListedNodes(const ClusterSpec &Spec, const RankPlacement &Place, const std::string &Asked,
                      DiagnosticSink &Diags) {
  if (Spec.Nodes.empty() || Place.ListedNodes == Place.Nodes)
    return true;
  Diags.error(Spec.NodesAt,
              "the node types list " + counted(Place.ListedNodes, "node") + " holding " +
                  counted(Place.ListedRanks, "rank") + ", but " + Asked,
              "cluster");
  return false;
}

bool buildCluster(const ClusterSpec &Spec, const std::string &ClusterPath, int Ranks,
                  NetworkModelKind Kind, const ClusterDefaults &Defaults,
                  TableComputeModel &Compute, DiagnosticSink &Diags,
                  std::unique_ptr<ClusterNetworkModel> &Out) {
  RankPlacement Place = placeRanks(Spec, ClusterPath, Ranks);
  if (!checkListedNodes(Spec, Place, "the program has " + std::to_string(Ranks), Diags))
    return false;
  for (size_t T = 0; T < Spec.Nodes.size(); ++T) {
    const int K = Spec.ranksPerNode(int(T));
    if (Spec.Nodes[T].Cores > 0 && K > Spec.Nodes[T].Cores)
      Diags.warning(Spec.NodesAt,
                    "a node type runs " + std::to_string(K) + " ranks on " +
                        std::to_string(Spec.Nodes[T].Cores) +
                        " cores: a trace replay takes its machine file's times as measured "
                        "(time-sharing is modelled in a scaling model's replay, estimate --ranks)",
                    "cluster");
  }
  // Per machine file: its ranks, and how many ranks share the nodes of the types that use it
  // (a note for each count the file was not measured with).
  std::map<std::string, std::vector<int>> RanksOfMachine;
  std::vector<bool> TypeUsed(Spec.Nodes.size() + 1, false); // the last: past the list
  for (int R = 0; R < Ranks; ++R) {
    const int T = Place.TypeOfRank[size_t(R)];
    TypeUsed[T >= 0 ? size_t(T) : Spec.Nodes.size()] = true;
    if (const std::string &M = Place.MachineOfRank[size_t(R)]; !M.empty())
      RanksOfMachine[M].push_back(R);
  }
  std::map<std::string, std::set<int>> PerNodeOfMachine;
  for (size_t T = 0; T <= Spec.Nodes.size(); ++T)
    if (TypeUsed[T]) {
      const bool Listed = T < Spec.Nodes.size() && !Spec.Nodes[T].Machine.empty();
      PerNodeOfMachine[Listed ? clusterPath(ClusterPath, Spec.Nodes[T].Machine) : Defaults.Machine]
          .insert(Spec.ranksPerNode(T < Spec.Nodes.size() ? int(T) : -1));
    }
  for (int K : PerNodeOfMachine[Defaults.Machine])
    noteRanksPerNode(Defaults.Machine, Defaults.MachineProv.RanksPerNode, K, Diags);
  for (const auto &[File, Only] : RanksOfMachine) {
    MachineProvenance Prov;
    if (!loadMachineYaml(File, Compute, Diags, &Only, &Prov))
      return false;
    if (File != Defaults.Machine)
      for (int K : PerNodeOfMachine[File])
        noteRanksPerNode(File, Prov.RanksPerNode, K, Diags);
  }

  ClusterLinks Links;
  if (!clusterLinks(Spec, ClusterPath, Kind, Defaults, Diags, Links))
    return false;
  Out =
      std::make_unique<ClusterNetworkModel>(std::move(Place.NodeOfRank), Links.Intra, Links.Inter);
  if (Links.Contention == ContentionKind::Fair)
    Out->setContention(ContentionKind::Fair, Links.Capacity);
  return true;
}

bool clusterLinks(const ClusterSpec &Spec, const std::string &ClusterPath, NetworkModelKind Kind,
                  const ClusterDefaults &Defaults, DiagnosticSink &Diags, ClusterLinks &Out) {
  Out = {};
  Out.Inter = Defaults.Inter;
  std::string InterPath = Defaults.InterPath;
  if (!Spec.InterNodeNetwork.empty()) {
    InterPath = clusterPath(ClusterPath, Spec.InterNodeNetwork);
    Out.Inter = loadNetworkYaml(InterPath, Kind, Diags);
    if (!Out.Inter)
      return false;
  }
  if (!Out.Inter) {
    Diags.error({ClusterPath, 0, 0}, "names no inter_node_network and no --network was given",
                "cluster");
    return false;
  }
  Out.Intra = Out.Inter;
  if (!Spec.IntraNodeNetwork.empty()) {
    Out.Intra = loadNetworkYaml(clusterPath(ClusterPath, Spec.IntraNodeNetwork), Kind, Diags);
    if (!Out.Intra)
      return false;
  }

  // Contention: the capacity of each node's link, from the most direct evidence given.
  if (Spec.Contention == ClusterContention::None)
    return true;
  if (Spec.LinkBandwidth) {
    Out.Capacity = *Spec.LinkBandwidth;
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
    Out.Capacity = Pairs.AggregateBytesPerSecond;
  } else {
    NetworkPairs Pairs;
    if (!loadNetworkPairs(InterPath, Pairs, Diags))
      return false;
    Out.Capacity = Pairs.AggregateBytesPerSecond; // 0 for one pair: what one pair achieves (1/G)
  }
  Out.Contention = ContentionKind::Fair;
  return true;
}

} // namespace mpiete::estimator
