// The cluster file, cluster.yaml (format mpiete-cluster, version 1; docs/estimator.md): nodes,
// ranks per node, and which machine and network files describe them; types, writer, reader.
#ifndef MPIETE_BASEDATA_CLUSTERFILE_H
#define MPIETE_BASEDATA_CLUSTERFILE_H

#include "mpiete/support/Diagnostics.h"

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

/// `count` nodes of one machine type; Machine empty: the estimate's --machine file.
/// RanksPerNode 0: the file's top-level ranks_per_node; Cores 0: not given (one core).
struct ClusterNodeType {
  int Count = 0;
  std::string Machine;
  int RanksPerNode = 0;
  int Cores = 0;
};

enum class ClusterPlacement { Block, RoundRobin };
enum class ClusterContention { Fair, None };

/// The file as written (paths relative to it stay so; clusterPath resolves them):
///   ranks_per_node: 2                 ranks each node runs
///   placement: block                  block (0..k-1 on node 0, ...) or round-robin
///   nodes:                            optional node types, in node order
///     - {count: 2, machine: a.yaml}   a machine omitted: the --machine file
///     - {count: 3, machine: b.yaml, ranks_per_node: 1, cores: 1}
///                                     optional per type: its own ranks per node (default the
///                                     top-level one) and its cores (ranks beyond them
///                                     time-share the node in a scaling model's replay)
///   inter_node_network: net.yaml      optional, default: the --network file
///   intra_node_network: shm.yaml      optional, default: the inter-node network
///   contention: fair                  fair (default): transfers between nodes share each
///                                     node's links; none: every transfer at its own rate
///   contention_network: pairs.yaml    optional: probe-comm --pairs K data whose aggregate
///                                     bandwidth is each link's capacity
///   link_bandwidth: 1.2e10            optional: the capacity in bytes per second instead
struct ClusterSpec {
  static constexpr int FormatVersion = 1;
  int RanksPerNode = 0;
  ClusterPlacement Placement = ClusterPlacement::Block;
  std::vector<ClusterNodeType> Nodes;
  std::string InterNodeNetwork, IntraNodeNetwork; ///< empty: the defaults above
  ClusterContention Contention = ClusterContention::Fair;
  std::string ContentionNetwork;       ///< empty: none given
  std::optional<double> LinkBandwidth; ///< bytes per second
  /// The ranks a node of type Type runs (an index into Nodes; -1: a node past the list): its
  /// own ranks_per_node, else the top-level one (at least 1).
  int ranksPerNode(int Type) const {
    const int Own = Type >= 0 ? Nodes[size_t(Type)].RanksPerNode : 0;
    return Own > 0 ? Own : std::max(1, RanksPerNode);
  }
  /// Where `nodes` and `contention_network` are in the file (read, not written): what the
  /// spec says about them can only be checked against a program's rank count or another file.
  DiagLoc NodesAt, ContentionNetworkAt;
};

void writeClusterSpec(std::ostream &OS, const ClusterSpec &Spec);

/// Reads cluster.yaml from Text (Name for diagnostics, tagged [mpiete-cluster]); false
/// (reported at the place in the file) on error.
bool parseClusterSpec(const std::string &Name, const std::string &Text, ClusterSpec &Out,
                      DiagnosticSink &Diags);
bool loadClusterSpec(const std::string &Path, ClusterSpec &Out, DiagnosticSink &Diags);

/// File, named in the cluster file ClusterPath, relative to that file's directory.
std::string clusterPath(const std::string &ClusterPath, const std::string &File);

} // namespace mpiete

#endif
