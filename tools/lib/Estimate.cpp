// `mpiete estimate`: reads the three base data, replays the traces and writes the prediction.
#include "mpiete/estimator/BaseData.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/Report.h"
#include "mpiete/estimator/YamlParser.h"
#include "mpiete/frontend/BlockMap.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/Commands.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <tuple>

namespace mpiete {

namespace {

using namespace estimator;

const char *EstimateUsage =
    "usage: mpiete estimate --program DIR --machine machine.yaml --network network.yaml\n"
    "                       [--cluster cluster.yaml] [--model table|loggps]\n"
    "                       [--format text|yaml|json] [-o FILE] [--timeline out.json]\n"
    "                       [--region START,END] [--region-start START] [--region-end END]\n"
    "Replays the program base data (DIR/rank<N>.trace) against the compute base data\n"
    "(machine.yaml) and the communication base data (network.yaml; with --cluster, ranks on one\n"
    "node use the cluster's intra-node network) and prints the predicted run time.\n"
    "A region bound is a block id (0aa758c0:11) or FILE:LINE of a statement (main.c:66): the\n"
    "prediction then runs from the start of that block's first execution to the end of the\n"
    "end block on each rank (default: MPI_Init to MPI_Finalize).\n\n"
    "Example:\n  mpiete estimate --program traces/ --machine machine.yaml --network network.yaml "
    "--timeline run.json\n";

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

/// cluster.yaml (format mpiete-cluster, version 1; docs/estimator.md):
///   ranks_per_node: 2                 ranks each node runs
///   placement: block                  block (0..k-1 on node 0, ...) or round-robin
///   nodes:                            optional node types, in node order
///     - {count: 2, machine: a.yaml}   a machine omitted: the --machine file
///   inter_node_network: net.yaml      optional, default: the --network file
///   intra_node_network: shm.yaml      optional, default: the inter-node network
///   contention: fair                  fair (default): transfers between nodes share each
///                                     node's links; none: every transfer at its own rate
///   contention_network: pairs.yaml    optional: probe-comm --pairs K data whose aggregate
///                                     bandwidth is each link's capacity
///   link_bandwidth: 1.2e10            optional: the capacity in bytes per second instead
/// Paths are relative to the cluster file. Ranks on a node of a listed type take their compute
/// times from that type's file (which must hold every such rank); others from --machine.
bool loadCluster(const std::string &Path, int Ranks, NetworkModelKind Kind,
                 std::shared_ptr<LinkModel> Inter, std::string InterPath,
                 const std::string &DefaultMachine, const MachineProvenance &DefaultProv,
                 TableComputeModel &Compute, DiagnosticSink &Diags,
                 std::unique_ptr<ClusterNetworkModel> &Out) {
  YAML::Node Root;
  try {
    Root = YAML::LoadFile(Path);
  } catch (const YAML::Exception &E) {
    Diags.error({Path, unsigned(E.mark.line + 1), unsigned(E.mark.column + 1)}, E.msg, "cluster");
    return false;
  }
  YamlParser Y{Path, Diags, "cluster"};
  auto Relative = [&](const std::string &File) {
    std::filesystem::path P = File;
    return P.is_relative() ? (std::filesystem::path(Path).parent_path() / P).string() : File;
  };
  if (!Root.IsMap() || Root["format"].as<std::string>("") != "mpiete-cluster" ||
      Root["version"].as<int>(0) != 1)
    return Y.error(Root, "not a cluster file: 'format: mpiete-cluster', 'version: 1' expected");
  int PerNode = Root["ranks_per_node"].as<int>(0);
  if (PerNode <= 0)
    return Y.error(Root, "'ranks_per_node' (> 0) is required");
  std::string Placement = Root["placement"].as<std::string>("block");
  if (Placement != "block" && Placement != "round-robin")
    return Y.error(Root["placement"], "placement must be 'block' or 'round-robin'");
  int Nodes = (Ranks + PerNode - 1) / PerNode;
  std::vector<int> Node(Ranks);
  for (int R = 0; R < Ranks; ++R)
    Node[R] = Placement == "block" ? R / PerNode : R % Nodes;

  // Node types: the machine file of every node.
  std::vector<std::string> MachineOfNode(Nodes);
  if (YAML::Node Types = Root["nodes"]) {
    if (!Types.IsSequence())
      return Y.error(Types, "'nodes' must be a list of {count, machine}");
    int Next = 0;
    for (const YAML::Node &T : Types) {
      int Count = T["count"].as<int>(0);
      if (Count <= 0)
        return Y.error(T, "a node type needs 'count' > 0");
      std::string Machine = T["machine"] ? Relative(T["machine"].as<std::string>()) : "";
      for (int I = 0; I < Count && Next < Nodes; ++I)
        MachineOfNode[Next++] = Machine;
    }
    if (Next < Nodes)
      return Y.error(Types, "the node types list " + std::to_string(Next) + " nodes, but " +
                                std::to_string(Ranks) + " ranks at " + std::to_string(PerNode) +
                                " per node need " + std::to_string(Nodes));
  }
  std::map<std::string, std::vector<int>> RanksOfMachine;
  for (int R = 0; R < Ranks; ++R)
    if (!MachineOfNode[Node[R]].empty())
      RanksOfMachine[MachineOfNode[Node[R]]].push_back(R);
  noteRanksPerNode(DefaultMachine, DefaultProv.RanksPerNode, PerNode, Diags);
  for (const auto &[File, Only] : RanksOfMachine) {
    MachineProvenance Prov;
    if (!loadMachineYaml(File, Compute, Diags, &Only, &Prov))
      return false;
    if (File != DefaultMachine)
      noteRanksPerNode(File, Prov.RanksPerNode, PerNode, Diags);
  }

  if (Root["inter_node_network"]) {
    InterPath = Relative(Root["inter_node_network"].as<std::string>());
    Inter = loadNetworkYaml(InterPath, Kind, Diags);
    if (!Inter)
      return false;
  }
  std::shared_ptr<LinkModel> IntraLink = Inter;
  if (Root["intra_node_network"]) {
    IntraLink =
        loadNetworkYaml(Relative(Root["intra_node_network"].as<std::string>()), Kind, Diags);
    if (!IntraLink)
      return false;
  }
  Out = std::make_unique<ClusterNetworkModel>(std::move(Node), IntraLink, std::move(Inter));

  // Contention: the capacity of each node's link, from the most direct evidence given.
  std::string Contention = Root["contention"].as<std::string>("fair");
  if (Contention != "fair" && Contention != "none")
    return Y.error(Root["contention"], "contention must be 'fair' or 'none'");
  if (Contention == "none")
    return true;
  double Capacity = 0;
  if (YAML::Node B = Root["link_bandwidth"]) {
    Capacity = B.as<double>(0);
    if (!(Capacity > 0))
      return Y.error(B, "'link_bandwidth' must be bytes per second (> 0)");
  } else if (YAML::Node C = Root["contention_network"]) {
    std::string File = Relative(C.as<std::string>());
    NetworkPairs Pairs;
    if (!loadNetworkPairs(File, Pairs, Diags))
      return false;
    if (Pairs.Pairs < 2)
      return Y.error(C, "'" + File +
                            "' was measured with one pair; measure the link capacity with "
                            "'mpiete probe-comm --pairs K' (K > 1)");
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

/// The block map probe-program copied into the program directory, if it is there: the report
/// names blocks by file, lines and procedure.
std::map<BlockId, std::string> blockDescriptions(const std::string &ProgramDir,
                                                 DiagnosticSink &Diags) {
  std::map<BlockId, std::string> Out;
  std::string Path = (std::filesystem::path(ProgramDir) / "blocks.yaml").string();
  if (!std::filesystem::exists(Path))
    return Out;
  BlockMap Map;
  if (!readBlockMap(Path, Map, Diags))
    return Out;
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks) {
      std::string D = B.File + ":" + std::to_string(B.BeginLine);
      if (B.EndLine != B.BeginLine)
        D += "-" + std::to_string(B.EndLine);
      D += " " + B.Procedure;
      if (!B.Routine.empty())
        D += ": " + B.Routine + (B.Phase.empty() ? "" : " (" + B.Phase + ")");
      else if (B.WholeLoop)
        D += ": loop";
      Out[U.blockId(B.Index)] = std::move(D);
    }
  return Out;
}

/// A region bound (seed 004 section 3.2.1): a block id, or FILE:LINE of a statement, resolved
/// through the block map in the program directory to the block holding that line (for the
/// start the first such block, for the end the last; a line between blocks takes the next
/// block for the start and the previous one for the end).
std::optional<BlockId> regionBlock(const std::string &Spec, bool IsStart,
                                   const std::string &ProgramDir, DiagnosticSink &Diags) {
  BlockId Id;
  if (parseBlockId(Spec, Id))
    return Id;
  const DiagLoc Tool{"mpiete estimate", 0, 0};
  size_t Colon = Spec.rfind(':');
  unsigned Line = 0;
  if (Colon == std::string::npos || Colon + 1 == Spec.size() ||
      Spec.find_first_not_of("0123456789", Colon + 1) != std::string::npos ||
      (Line = unsigned(std::stoul(Spec.substr(Colon + 1)))) == 0) {
    Diags.error(Tool,
                "bad region bound '" + Spec +
                    "' (a block id such as 0aa758c0:11, or "
                    "FILE:LINE)",
                "usage");
    return std::nullopt;
  }
  std::string File = Spec.substr(0, Colon);
  std::string MapPath = (std::filesystem::path(ProgramDir) / "blocks.yaml").string();
  BlockMap Map;
  if (!std::filesystem::exists(MapPath)) {
    Diags.error(Tool,
                "a FILE:LINE region bound needs the block map '" + MapPath +
                    "' (probe-program copies it there)",
                "usage");
    return std::nullopt;
  }
  if (!readBlockMap(MapPath, Map, Diags))
    return std::nullopt;
  auto SameFile = [&](const std::string &Path) {
    std::filesystem::path A = Path, B = File;
    return A == B || (A.filename() == B.filename() &&
                      (B.parent_path().empty() || A.string().ends_with(B.string())));
  };
  std::optional<BlockId> Holding, Beside;
  unsigned BesideLine = 0;
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks) {
      if (!SameFile(B.File) || B.Kind == BlockKind::Init || B.Kind == BlockKind::Finalize)
        continue;
      BlockId Id = U.blockId(B.Index);
      if (B.BeginLine <= Line && Line <= B.EndLine) {
        if (!Holding || !IsStart)
          Holding = Id; // blocks come in source order: the first for a start, the last for an end
      } else if (IsStart && B.BeginLine > Line && (!Beside || B.BeginLine < BesideLine)) {
        Beside = Id;
        BesideLine = B.BeginLine;
      } else if (!IsStart && B.EndLine < Line && (!Beside || B.EndLine >= BesideLine)) {
        Beside = Id;
        BesideLine = B.EndLine;
      }
    }
  if (Holding)
    return Holding;
  if (Beside)
    return Beside;
  Diags.error(Tool,
              "no block at or " + std::string(IsStart ? "after" : "before") + " '" + Spec +
                  "' in the block map '" + MapPath + "'",
              "usage");
  return std::nullopt;
}

} // namespace

int runEstimate(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete estimate", 0, 0};
  std::map<std::string, std::string> Opt;
  static const char *const Known[] = {"--program",    "--machine",  "--network", "--cluster",
                                      "--format",     "--timeline", "--model",   "--region-start",
                                      "--region-end", "--region",   "-o"};
  for (size_t I = 0; I < Args.size(); ++I) {
    if (Args[I] == "-h" || Args[I] == "--help") {
      std::cout << EstimateUsage;
      return 0;
    }
    bool Ok = false;
    for (const char *K : Known)
      Ok |= Args[I] == K;
    if (!Ok || I + 1 == Args.size()) {
      Diags.error(Tool, Ok ? "'" + Args[I] + "' needs a value" : "unknown option '" + Args[I] + "'",
                  "usage");
      std::cerr << EstimateUsage;
      return 1;
    }
    Opt[Args[I]] = Args[I + 1];
    ++I;
  }
  for (const char *Required : {"--program", "--machine", "--network"})
    if (!Opt.count(Required)) {
      Diags.error(Tool, std::string("missing ") + Required, "usage");
      std::cerr << EstimateUsage;
      return 1;
    }
  std::string Format = Opt.count("--format") ? Opt["--format"] : "text";
  std::string ModelName = Opt.count("--model") ? Opt["--model"] : "table";
  if (Format != "text" && Format != "yaml" && Format != "json") {
    Diags.error(Tool, "unknown format '" + Format + "' (text, yaml or json)", "usage");
    return 1;
  }
  if (ModelName != "table" && ModelName != "loggps") {
    Diags.error(Tool, "unknown network model '" + ModelName + "' (table or loggps)", "usage");
    return 1;
  }
  NetworkModelKind Kind = ModelName == "table" ? NetworkModelKind::Table : NetworkModelKind::LogGPS;

  EngineOptions EO;
  if (Opt.count("--region")) {
    size_t Comma = Opt["--region"].find(',');
    if (Comma == std::string::npos) {
      Diags.error(Tool, "--region takes START,END (block ids or FILE:LINE)", "usage");
      return 1;
    }
    Opt["--region-start"] = Opt["--region"].substr(0, Comma);
    Opt["--region-end"] = Opt["--region"].substr(Comma + 1);
  }
  for (auto [Key, Field, IsStart] : {std::tuple{"--region-start", &EO.RegionStart, true},
                                     std::tuple{"--region-end", &EO.RegionEnd, false}}) {
    if (!Opt.count(Key))
      continue;
    std::optional<BlockId> B = regionBlock(Opt[Key], IsStart, Opt["--program"], Diags);
    if (!B)
      return 1;
    *Field = *B;
  }

  std::vector<std::unique_ptr<TraceEventSource>> Traces;
  if (!openTraceDirectory(Opt["--program"], Diags, Traces))
    return 1;
  TableComputeModel Compute;
  MachineProvenance MachineProv;
  if (!loadMachineYaml(Opt["--machine"], Compute, Diags, nullptr, &MachineProv))
    return 1;
  // Base data of two different builds of the program cannot be combined: block ids would
  // silently mean other code.
  std::string TraceFp = Traces.front()->header().Fingerprint;
  const std::string &MachineFp = MachineProv.Fingerprint;
  if (!TraceFp.empty() && !MachineFp.empty() && TraceFp != MachineFp) {
    Diags.error({Opt["--machine"], 0, 0},
                "compute base data of another build of the program: fingerprint '" + MachineFp +
                    "', the traces in '" + Opt["--program"] + "' have '" + TraceFp +
                    "'; rebuild both probes together and collect both again",
                "estimate");
    return 1;
  }
  std::shared_ptr<LinkModel> Inter = loadNetworkYaml(Opt["--network"], Kind, Diags);
  if (!Inter)
    return 1;
  std::unique_ptr<ClusterNetworkModel> Net;
  if (Opt.count("--cluster")) {
    if (!loadCluster(Opt["--cluster"], int(Traces.size()), Kind, Inter, Opt["--network"],
                     Opt["--machine"], MachineProv, Compute, Diags, Net))
      return 1;
  } else {
    Net = std::make_unique<ClusterNetworkModel>(Inter);
  }

  std::ofstream TimelineFile;
  std::unique_ptr<ChromeTraceWriter> Timeline;
  if (Opt.count("--timeline")) {
    TimelineFile.open(Opt["--timeline"]);
    if (!TimelineFile) {
      Diags.error({Opt["--timeline"], 0, 0}, "cannot write the timeline", "io");
      return 1;
    }
    Timeline = std::make_unique<ChromeTraceWriter>(TimelineFile, int(Traces.size()));
    EO.Timeline = Timeline.get();
  }

  std::vector<EventSource *> Sources;
  for (auto &T : Traces)
    Sources.push_back(T.get());
  Engine E(Compute, *Net, EO);
  EstimateResult R = E.run(Sources);
  if (Timeline)
    Timeline->finish();
  for (const EngineError &Err : R.Errors)
    Diags.error(Err.File.empty() ? Tool : DiagLoc{Err.File, 0, 0}, Err.Message, "estimate");
  if (!R.Ok)
    return 1;
  if (!Compute.fallbacks().empty()) {
    const auto &[Rank, Block] = Compute.fallbacks().front();
    Diags.warning({Opt["--machine"], 0, 0},
                  std::to_string(Compute.fallbacks().size()) +
                      " (rank, block) pairs ran in the trace but not in the timing probe, e.g. "
                      "rank " +
                      std::to_string(Rank) + " block " + formatBlock(Block) +
                      "; they take the mean time of the ranks that ran them (the program is "
                      "nondeterministic)",
                  "estimate");
  }
  if (R.NondeterministicReceives) {
    Diags.warning(Tool,
                  std::to_string(R.NondeterministicReceives) +
                      " wildcard receives are predicted to match another message than the "
                      "recorded run: the program is nondeterministic",
                  "estimate");
    for (const std::string &N : R.NondeterminismNotes)
      Diags.note(Tool, N, "estimate");
  }

  ReportOptions RO;
  std::map<BlockId, std::string> Where = blockDescriptions(Opt["--program"], Diags);
  RO.Describe = [&Where](BlockId B) -> std::string {
    if ((B >> 32) == 0xffffffffu)
      return "MPI call from uninstrumented code";
    auto It = Where.find(B);
    return It == Where.end() ? std::string() : It->second;
  };
  RO.Provenance = {{"program", Opt["--program"]},
                   {"machine", Opt["--machine"]},
                   {"network", Opt["--network"]},
                   {"network_model", ModelName}};
  std::ofstream OutFile;
  std::ostream *OS = &std::cout;
  if (Opt.count("-o")) {
    OutFile.open(Opt["-o"]);
    if (!OutFile) {
      Diags.error({Opt["-o"], 0, 0}, "cannot write the output", "io");
      return 1;
    }
    OS = &OutFile;
  }
  if (Format == "yaml")
    writeYaml(*OS, R, RO);
  else if (Format == "json")
    writeJson(*OS, R, RO);
  else
    writeText(*OS, R, RO);
  return 0;
}

} // namespace mpiete
