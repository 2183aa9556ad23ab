// `mpiete best-config`: which nodes of a heterogeneous cluster, and how many ranks per node of
// each type, give the shortest predicted time (seed 002), from a scaling model and the machine
// file of each node type in the cluster file.
#include "CommandUtil.h"
#include "Model.h"

#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/estimator/BaseData.h"
#include "mpiete/estimator/Cluster.h"
#include "mpiete/scaling/BestConfig.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

namespace mpiete {

using namespace estimator;
using namespace scaling;

namespace {

void writeYaml(std::ostream &OS, const ClusterProblem &Problem, const BestConfigResult &R,
               bool Exhaustive, const std::string &Cluster, const std::string &Model,
               const std::string &Profiles, const std::string &Command) {
  YAML::Emitter E;
  E.SetDoublePrecision(std::numeric_limits<double>::max_digits10);
  auto Config = [&](const ConfigResult &C, bool WithBound) {
    E << YAML::Flow << YAML::BeginMap << YAML::Key << "ranks" << YAML::Value << C.C.ranks()
      << YAML::Key << "nodes" << YAML::Value << YAML::Flow << C.C.Nodes << YAML::Key
      << "ranks_per_node" << YAML::Value << YAML::Flow << C.C.PerNode << YAML::Key
      << "predicted_seconds" << YAML::Value << C.Seconds;
    if (WithBound)
      E << YAML::Key << "bound_seconds" << YAML::Value << C.Bound;
    E << YAML::EndMap;
  };
  E << YAML::BeginMap << YAML::Key << "format" << YAML::Value << "mpiete-best-config" << YAML::Key
    << "version" << YAML::Value << 1 << YAML::Key << "tool" << YAML::Value
    << std::string("mpiete ") + MPIETE_VERSION << YAML::Key << "command" << YAML::Value << Command
    << YAML::Key << "cluster" << YAML::Value << Cluster << YAML::Key << "model" << YAML::Value
    << Model << YAML::Key << "size" << YAML::Value << Problem.Size;
  if (!Profiles.empty())
    E << YAML::Key << "occurrence_profiles" << YAML::Value << Profiles;
  E << YAML::Key << "extrapolated" << YAML::Value << true;
  E << YAML::Key << "node_types" << YAML::Value << YAML::BeginSeq;
  for (const NodeTypeSpec &T : Problem.Types)
    E << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << T.Name << YAML::Key
      << "count" << YAML::Value << T.Count << YAML::Key << "cores" << YAML::Value << T.Cores
      << YAML::Key << "speed" << YAML::Value << T.Speed << YAML::EndMap;
  E << YAML::EndSeq << YAML::Key << "configurations" << YAML::Value << R.Configurations << YAML::Key
    << "replayed" << YAML::Value << R.Replayed << YAML::Key << "exhaustive" << YAML::Value
    << Exhaustive;
  if (R.LeftOut)
    E << YAML::Key << "left_out" << YAML::Value << R.LeftOut << YAML::Key << "left_out_why"
      << YAML::Value << R.LeftOutWhy;
  E << YAML::Key << "best" << YAML::Value;
  Config(R.Best, false);
  E << YAML::Key << "replayed_configurations" << YAML::Value << YAML::BeginSeq;
  for (const ConfigResult &C : R.Evaluated)
    Config(C, true);
  E << YAML::EndSeq << YAML::EndMap;
  OS << "# mpiete best-config: the shortest predicted time over the cluster's configurations "
        "(docs/scale.md)\n"
     << E.c_str() << "\n";
}

} // namespace

int runBestConfig(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete best-config", 0, 0};
  CommandLine C("best-config",
                "usage: mpiete best-config --cluster cluster.yaml --model model.yaml --network "
                "network.yaml\n                          [--size W] [--cores C,...] "
                "[--max-ranks-per-node M] [--exhaustive]",
                "Seed 002's question: which nodes of each type, and how many ranks per node, "
                "give the\nshortest predicted time. Each node type of the cluster file has a "
                "machine file of the\nprogram: its speed relative to the model's machine. Ranks "
                "beyond a node's cores time-share\nit. Every configuration is replayed from the "
                "model (--exhaustive), or they are replayed in\norder of a lower bound (the "
                "slowest rank's compute) until it passes the best time found:\nthe same answer, "
                "fewer replays.",
                "  mpiete best-config --cluster hetero.yaml --model model.yaml --network net.yaml "
                "--size 4000 --cores 1,1\n");
  std::string ClusterPath, ModelPath, NetworkPath, CoresText;
  double Size = 0;
  int MaxPerNode = 0, Top = 5;
  bool Exhaustive = false;
  std::string Format = "text", Output;
  C.App.add_option("--cluster", ClusterPath, "the cluster: node types and machine files")
      ->type_name("FILE");
  C.App.add_option("--model", ModelPath, "the scaling model (mpiete model)")->type_name("FILE");
  C.App.add_option("--network", NetworkPath, "the network (unless the cluster names one)")
      ->type_name("FILE");
  C.App.add_option("--size", Size, "the problem size (default: the model's first run's)");
  C.App
      .add_option("--cores", CoresText,
                  "cores per node, one per node type (default: the cluster file's, else 1)")
      ->type_name("C,...");
  C.App.add_option("--max-ranks-per-node", MaxPerNode,
                   "the most ranks a node runs (default: the cluster's ranks_per_node)");
  C.App.add_option("--top", Top, "list the best N configurations replayed (default 5)");
  C.App.add_flag("--exhaustive", Exhaustive, "replay every configuration");
  C.App
      .add_option("--format", Format,
                  "text (default) or yaml: every replayed configuration with its predicted "
                  "seconds and bound, for scripts")
      ->check(CLI::IsMember({"text", "yaml"}));
  C.App.add_option("-o", Output, "write the result there (default: standard output)")
      ->type_name("FILE");
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  if (ClusterPath.empty() || ModelPath.empty()) {
    Diags.error(Tool, "needs --cluster and --model", "usage");
    return 1;
  }
  ClusterSpec Spec;
  ScalingModelFile File;
  if (!loadClusterSpec(ClusterPath, Spec, Diags) || !loadExtrapolationModel(ModelPath, Diags, File))
    return 1;
  if (Spec.Nodes.empty()) {
    Diags.error(Spec.NodesAt, "the cluster lists no node types (nodes: [{count, machine}])",
                "cluster");
    return 1;
  }
  std::vector<int> Cores;
  {
    std::stringstream S(CoresText);
    std::string Item;
    try {
      while (std::getline(S, Item, ','))
        Cores.push_back(std::stoi(Item));
    } catch (...) {
      Cores.assign(1, 0);
    }
  }
  if (!Cores.empty() && Cores.size() != Spec.Nodes.size()) {
    Diags.error(Tool,
                "--cores gives one count per node type (" + std::to_string(Spec.Nodes.size()) + ")",
                "usage");
    return 1;
  }
  ClusterProblem Problem;
  Problem.File = &File;
  Problem.Size = Size > 0 ? Size : (File.Runs.empty() ? 1 : File.Runs.front().Size);
  if (std::string Why = File.unmeasuredSize(Problem.Size); !Why.empty()) {
    Diags.error({ModelPath, 0, 0}, Why, "scale");
    return 1;
  }
  for (size_t I = 0; I < Spec.Nodes.size(); ++I) {
    const ClusterNodeType &T = Spec.Nodes[I];
    NodeTypeSpec N;
    N.Count = T.Count;
    N.Cores = !Cores.empty() ? Cores[I] : T.Cores > 0 ? T.Cores : 1;
    const std::string Machine = T.Machine.empty() ? "" : clusterPath(ClusterPath, T.Machine);
    N.Name = T.Machine.empty() ? "type" + std::to_string(I + 1) : T.Machine;
    if (!machineSpeed(File, Machine, Diags, N.Speed))
      return 1;
    Problem.Types.push_back(N);
  }
  ClusterLinks Links;
  if (!scaledClusterLinks(Spec, ClusterPath, NetworkPath, Diags, Links))
    return 1;
  Problem.Inter = Links.Inter;
  Problem.Intra = Links.Intra;
  Problem.Contention = Links.Contention;
  Problem.Capacity = Links.Capacity;
  MachineFile ProfileRun;
  std::string ProfilePath;
  if (loadProfileRun(File, Diags, ProfileRun, ProfilePath))
    Problem.Profiles = &ProfileRun;
  CommStructure S;
  if (!learnModelStructure(File, Diags, S))
    return 1;
  Problem.Structure = &S;
  Problem.MeasuredRanks = measuredRanks(File);
  BestConfigResult R;
  std::string Err;
  const bool Found = searchBestConfig(
      Problem, MaxPerNode > 0 ? MaxPerNode : std::max(1, Spec.RanksPerNode), Exhaustive, R, Err);
  if (R.LeftOut)
    Diags.warning({modelSiteName(File, R.LeftOutSite), 0, 0},
                  std::to_string(R.LeftOut) + " of the " + std::to_string(R.Configurations) +
                      " configurations are left out: " + R.LeftOutWhy,
                  "scale");
  if (!Found) {
    Diags.error({ModelPath, 0, 0}, Err, "scale");
    return 1;
  }
  // The answer's counts that no base run showed how the program rounds.
  warnFractions(File, S, R.Best.C.ranks(), Problem.Size, "the best configuration's ", Diags);
  std::ofstream OutFile;
  std::ostream *OS = openOutput(!Output.empty() ? &Output : nullptr, OutFile, "result", Diags);
  if (!OS)
    return 1;
  std::stable_sort(
      R.Evaluated.begin(), R.Evaluated.end(),
      [](const ConfigResult &A, const ConfigResult &B) { return A.Seconds < B.Seconds; });
  if (Format == "yaml") {
    writeYaml(*OS, Problem, R, Exhaustive, ClusterPath, ModelPath, ProfilePath,
              joinArgs("best-config", Args));
    return 0;
  }
  std::ostream &Out = *OS;
  Out << "node types:\n";
  for (const NodeTypeSpec &T : Problem.Types) {
    char Buf[64];
    std::snprintf(Buf, sizeof Buf, "%.4g", T.Speed);
    Out << "  " << T.Name << ": " << T.Count << " nodes, " << T.Cores << " cores, compute time x "
        << Buf << "\n";
  }
  if (Problem.Profiles)
    Out << "occurrence_profiles: " << ProfilePath << "\n";
  Out << "configurations: " << R.Configurations << "\nreplayed: " << R.Replayed
      << (Exhaustive ? " (exhaustive)" : " (the others' bounds exceed the best)") << "\n";
  if (R.LeftOut)
    Out << "left out: " << R.LeftOut << " (" << R.LeftOutWhy << ")\n";
  Out << "best: " << R.Best.C.text(Problem.Types) << " (" << R.Best.C.ranks()
      << " ranks)\npredicted_seconds: " << R.Best.Seconds << "\nextrapolated: true\n"
      << "next best:\n";
  int Listed = 0;
  for (const ConfigResult &E : R.Evaluated)
    if (Listed < Top - 1 && !(E.C.Nodes == R.Best.C.Nodes && E.C.PerNode == R.Best.C.PerNode)) {
      Out << "  " << E.Seconds << " s  " << E.C.text(Problem.Types) << "\n";
      ++Listed;
    }
  return 0;
}

} // namespace mpiete
