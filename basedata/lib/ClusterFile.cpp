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
      if (T.RanksPerNode > 0)
        E << YAML::Key << "ranks_per_node" << YAML::Value << T.RanksPerNode;
      if (T.Cores > 0)
        E << YAML::Key << "cores" << YAML::Value << T.Cores;
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
bool fileName(YamlParser &Y, const YAML::Node &Map, const char *Key, std::string &Out) {
  YAML::Node N;
  if (!YamlParser::find(Map, Key, N))
    return true;
  if (!N.IsScalar() || N.Scalar().empty())
    return Y.expected(N, Key, "a file name");
  Out = N.Scalar();
  return true;
}

/// One of Choices (the first when missing).
bool choice(YamlParser &Y, const YAML::Node &Map, const char *Key, const char *A, const char *B,
            bool &IsA) {
  std::string V = A;
  if (!Y.string(Map, Key, V, false))
    return false;
  if (V != A && V != B)
    return Y.error(Map[Key],
                   std::string(Key) + " must be '" + A + "' or '" + B + "' (got '" + V + "')");
  IsA = V == A;
  return true;
}

bool parseRoot(const std::string &Name, const YAML::Node &Root, ClusterSpec &Out,
               DiagnosticSink &Diags) {
  Out = ClusterSpec();
  YamlParser Y{Name, Diags, "cluster"};
  YAML::Node Format, Version;
  long long V = 0;
  if (!Root.IsMap() || !YamlParser::find(Root, "format", Format) || !Format.IsScalar() ||
      Format.Scalar() != "mpiete-cluster" || !YamlParser::find(Root, "version", Version) ||
      !Version.IsScalar() || !YAML::convert<long long>::decode(Version, V) ||
      V != ClusterSpec::FormatVersion)
    return Y.error(Root, "not a cluster file: a map with 'format: mpiete-cluster', 'version: 1' "
                         "expected");
  constexpr int64_t MaxCount = 1 << 24;
  int64_t RanksPerNode = 0;
  YAML::Node Rpn;
  if (!YamlParser::find(Root, "ranks_per_node", Rpn))
    return Y.error(Root, "'ranks_per_node' (> 0) is required");
  if (!Y.integerValue(Rpn, "ranks_per_node", RanksPerNode, 1, MaxCount))
    return false;
  Out.RanksPerNode = int(RanksPerNode);
  bool Block = true;
  if (!choice(Y, Root, "placement", "block", "round-robin", Block))
    return false;
  Out.Placement = Block ? ClusterPlacement::Block : ClusterPlacement::RoundRobin;
  YAML::Node Types;
  if (!Y.list(Root, "nodes", Types, false))
    return false;
  if (Types.IsSequence()) {
    Out.NodesAt = locOf(Name, Types);
    for (const YAML::Node &T : Types) {
      if (!T.IsMap())
        return Y.expected(T, "nodes", "a list of {count, machine}");
      ClusterNodeType &Type = Out.Nodes.emplace_back();
      int64_t Count = 0;
      YAML::Node CountNode;
      if (!YamlParser::find(T, "count", CountNode))
        return Y.error(T, "a node type needs 'count' > 0");
      if (!Y.integerValue(CountNode, "count", Count, 0, MaxCount))
        return false;
      if (Count < 1)
        return Y.error(T, "a node type needs 'count' > 0");
      if (!fileName(Y, T, "machine", Type.Machine))
        return false;
      Type.Count = int(Count);
      for (auto [Key, Field] :
           {std::pair{"ranks_per_node", &Type.RanksPerNode}, std::pair{"cores", &Type.Cores}}) {
        YAML::Node N;
        int64_t V = 0;
        if (!YamlParser::find(T, Key, N))
          continue;
        if (!Y.integerValue(N, Key, V, 1, MaxCount))
          return false;
        *Field = int(V);
      }
    }
  }
  if (!fileName(Y, Root, "inter_node_network", Out.InterNodeNetwork) ||
      !fileName(Y, Root, "intra_node_network", Out.IntraNodeNetwork))
    return false;
  bool Fair = true;
  if (!choice(Y, Root, "contention", "fair", "none", Fair))
    return false;
  Out.Contention = Fair ? ClusterContention::Fair : ClusterContention::None;
  YAML::Node B;
  if (Y.present(Root, "link_bandwidth", B, false)) {
    double Capacity = 0;
    // Bytes per second: above 0 (a fair share of 0 never ends), at most 1 PB/s.
    if (!Y.finiteValue(B, "link_bandwidth", Capacity, 0, 1e15))
      return false;
    // Without contention the capacity is never used, and never was checked.
    if (!(Capacity > 0) && Out.Contention == ClusterContention::Fair)
      return Y.error(B, "'link_bandwidth' must be bytes per second (> 0)");
    if (Capacity > 0)
      Out.LinkBandwidth = Capacity;
  }
  YAML::Node C;
  if (YamlParser::find(Root, "contention_network", C)) {
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
  std::string Text;
  return readBaseDataText(Path, "cluster", Text, Diags) && parseClusterSpec(Path, Text, Out, Diags);
}

std::string clusterPath(const std::string &ClusterPath, const std::string &File) {
  std::filesystem::path P = File;
  return P.is_relative() ? (std::filesystem::path(ClusterPath).parent_path() / P).string() : File;
}

} // namespace mpiete
