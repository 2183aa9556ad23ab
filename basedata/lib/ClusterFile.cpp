// cluster.yaml written from and read into a ClusterSpec.
#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/basedata/YamlParser.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <limits>

namespace mpiete {

void writeClusterSpec(std::ostream &OS, const ClusterSpec &Spec) {
  YAML::Emitter E;
  E.SetDoublePrecision(std::numeric_limits<double>::max_digits10);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-cluster";
  E << YAML::Key << "version" << YAML::Value << ClusterSpec::FormatVersion;
  E << YAML::Key << "ranks_per_node" << YAML::Value << Spec.RanksPerNode;
  E << YAML::Key << "placement" << YAML::Value
    << (Spec.Placement == ClusterPlacement::Block ? "block" : "round-robin");
  if (!Spec.Nodes.empty()) {
    E << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
    for (const ClusterNodeType &T : Spec.Nodes) {
      E << YAML::Flow << YAML::BeginMap << YAML::Key << "count" << YAML::Value << T.Count;
      if (!T.Machine.empty())
        E << YAML::Key << "machine" << YAML::Value << T.Machine;
      E << YAML::EndMap;
    }
    E << YAML::EndSeq;
  }
  if (!Spec.InterNodeNetwork.empty())
    E << YAML::Key << "inter_node_network" << YAML::Value << Spec.InterNodeNetwork;
  if (!Spec.IntraNodeNetwork.empty())
    E << YAML::Key << "intra_node_network" << YAML::Value << Spec.IntraNodeNetwork;
  E << YAML::Key << "contention" << YAML::Value
    << (Spec.Contention == ClusterContention::Fair ? "fair" : "none");
  if (!Spec.ContentionNetwork.empty())
    E << YAML::Key << "contention_network" << YAML::Value << Spec.ContentionNetwork;
  if (Spec.LinkBandwidth)
    E << YAML::Key << "link_bandwidth" << YAML::Value << *Spec.LinkBandwidth;
  E << YAML::EndMap;
  OS << "# mpiete cluster (docs/estimator.md)\n" << E.c_str() << '\n';
}

namespace {

DiagLoc locOf(const std::string &Name, const YAML::Node &N) {
  return {Name, unsigned(N.Mark().line + 1), unsigned(N.Mark().column + 1)};
}

/// A file name; false (reported) if the key holds something else.
bool fileName(YamlParser &Y, YAML::Node Map, const char *Key, std::string &Out) {
  YAML::Node N = Map[Key];
  if (!N)
    return true;
  if (!N.IsScalar())
    return Y.error(N, std::string("'") + Key + "' must be a file name");
  Out = N.as<std::string>();
  return true;
}

bool parseRoot(const std::string &Name, YAML::Node Root, ClusterSpec &Out, DiagnosticSink &Diags) {
  Out = ClusterSpec();
  YamlParser Y{Name, Diags, "cluster"};
  if (!Root.IsMap() || Root["format"].as<std::string>("") != "mpiete-cluster" ||
      Root["version"].as<int>(0) != ClusterSpec::FormatVersion)
    return Y.error(Root, "not a cluster file: 'format: mpiete-cluster', 'version: 1' expected");
  Out.RanksPerNode = Root["ranks_per_node"].as<int>(0);
  if (Out.RanksPerNode <= 0)
    return Y.error(Root, "'ranks_per_node' (> 0) is required");
  std::string Placement = Root["placement"].as<std::string>("block");
  if (Placement != "block" && Placement != "round-robin")
    return Y.error(Root["placement"], "placement must be 'block' or 'round-robin'");
  Out.Placement = Placement == "block" ? ClusterPlacement::Block : ClusterPlacement::RoundRobin;
  if (YAML::Node Types = Root["nodes"]) {
    if (!Types.IsSequence())
      return Y.error(Types, "'nodes' must be a list of {count, machine}");
    Out.NodesAt = locOf(Name, Types);
    for (const YAML::Node &T : Types) {
      ClusterNodeType &Type = Out.Nodes.emplace_back();
      Type.Count = T["count"].as<int>(0);
      if (Type.Count <= 0)
        return Y.error(T, "a node type needs 'count' > 0");
      if (!fileName(Y, T, "machine", Type.Machine))
        return false;
    }
  }
  if (!fileName(Y, Root, "inter_node_network", Out.InterNodeNetwork) ||
      !fileName(Y, Root, "intra_node_network", Out.IntraNodeNetwork))
    return false;
  std::string Contention = Root["contention"].as<std::string>("fair");
  if (Contention != "fair" && Contention != "none")
    return Y.error(Root["contention"], "contention must be 'fair' or 'none'");
  Out.Contention = Contention == "fair" ? ClusterContention::Fair : ClusterContention::None;
  if (YAML::Node B = Root["link_bandwidth"]) {
    double Capacity = B.as<double>(0);
    // Without contention the capacity is never used, and never was checked.
    if (!(Capacity > 0) && Out.Contention == ClusterContention::Fair)
      return Y.error(B, "'link_bandwidth' must be bytes per second (> 0)");
    if (Capacity > 0)
      Out.LinkBandwidth = Capacity;
  }
  if (YAML::Node C = Root["contention_network"]) {
    if (!fileName(Y, Root, "contention_network", Out.ContentionNetwork))
      return false;
    Out.ContentionNetworkAt = locOf(Name, C);
  }
  return true;
}

} // namespace

bool parseClusterSpec(const std::string &Name, const std::string &Text, ClusterSpec &Out,
                      DiagnosticSink &Diags) {
  YAML::Node Root;
  YamlParser Y{Name, Diags, "cluster"};
  return Y.load(Text, Root) && parseRoot(Name, Root, Out, Diags);
}

bool loadClusterSpec(const std::string &Path, ClusterSpec &Out, DiagnosticSink &Diags) {
  YAML::Node Root;
  try {
    Root = YAML::LoadFile(Path);
  } catch (const YAML::Exception &E) {
    Diags.error({Path, unsigned(E.mark.line + 1), unsigned(E.mark.column + 1)}, E.msg, "cluster");
    return false;
  }
  return parseRoot(Path, Root, Out, Diags);
}

std::string clusterPath(const std::string &ClusterPath, const std::string &File) {
  std::filesystem::path P = File;
  return P.is_relative() ? (std::filesystem::path(ClusterPath).parent_path() / P).string() : File;
}

} // namespace mpiete
