// machine.yaml written from and read into a MachineFile.
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/basedata/YamlParser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace mpiete {

void writeMachineFile(std::ostream &OS, const MachineFile &File) {
  const MachineProvenance &P = File.Provenance;
  YAML::Emitter E;
  E.SetDoublePrecision(6);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-compute";
  E << YAML::Key << "version" << YAML::Value << MachineFile::FormatVersion;
  E << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "program" << YAML::Value << P.Program;
  E << YAML::Key << "arguments" << YAML::Value << YAML::Flow << P.Arguments;
  E << YAML::Key << "ranks" << YAML::Value << P.Ranks;
  E << YAML::Key << "host" << YAML::Value << P.Host;
  E << YAML::Key << "cpu_model" << YAML::Value << P.CpuModel;
  E << YAML::Key << "cpu_mhz" << YAML::Value << P.CpuMhz;
  E << YAML::Key << "cpu" << YAML::Value << P.Cpu;
  E << YAML::Key << "token_passing" << YAML::Value << P.TokenPassing;
  // How many ranks computed at once (each on its own processor, from `cpu` on): 1 is seed
  // 004's one rank at a time.
  E << YAML::Key << "ranks_per_node" << YAML::Value << P.RanksPerNode;
  E << YAML::Key << "compiler" << YAML::Value << P.Compiler;
  E << YAML::Key << "flags" << YAML::Value << P.Flags;
  if (!P.BlockMap.empty()) {
    E << YAML::Key << "block_map" << YAML::Value << P.BlockMap;
    if (!P.Fingerprint.empty())
      E << YAML::Key << "fingerprint" << YAML::Value << P.Fingerprint;
  }
  E << YAML::Key << "date" << YAML::Value << P.Date;
  E << YAML::Key << "tool" << YAML::Value << P.Tool;
  E << YAML::EndMap;
  E << YAML::Key << "timer_overhead_seconds" << YAML::Value << File.TimerOverheadSeconds;
  E << YAML::Key << "ranks" << YAML::Value << YAML::BeginSeq;
  for (const MachineRank &R : File.Ranks) {
    E << YAML::BeginMap;
    E << YAML::Key << "rank" << YAML::Value << R.Rank;
    E << YAML::Key << "timer_overhead_seconds" << YAML::Value << R.TimerOverheadSeconds;
    E << YAML::Key << "blocks" << YAML::Value << YAML::BeginSeq;
    for (const MachineBlock &B : R.Blocks) {
      E << YAML::Flow << YAML::BeginMap;
      // Quoted: an all-digit unit would read as a sexagesimal number in YAML 1.1.
      E << YAML::Key << "id" << YAML::Value << YAML::DoubleQuoted << formatBlockId(B.Id);
      E << YAML::Key << "kind" << YAML::Value << (B.Loop ? "loop" : "block");
      E << YAML::Key << "executions" << YAML::Value << B.Executions;
      if (B.Loop)
        E << YAML::Key << "iterations" << YAML::Value << B.Iterations;
      E << YAML::Key << "mean_seconds" << YAML::Value << B.MeanSeconds;
      E << YAML::Key << "stddev_seconds" << YAML::Value << B.StddevSeconds;
      E << YAML::Key << "min_seconds" << YAML::Value << B.MinSeconds;
      E << YAML::Key << "max_seconds" << YAML::Value << B.MaxSeconds;
      E << YAML::EndMap;
    }
    E << YAML::EndSeq;
    E << YAML::EndMap;
  }
  E << YAML::EndSeq;
  E << YAML::EndMap;
  OS << "# mpiete compute base data: seconds per execution of every compute block (loops timed\n"
        "# whole: per iteration), measured with ranks_per_node ranks running at a time.\n"
     << E.c_str() << "\n";
}

namespace {

/// Provenance describes the measurement: never an error, defaults where missing.
void readProvenance(YAML::Node P, MachineProvenance &Out) {
  Out.Program = P["program"].as<std::string>("");
  if (P["arguments"].IsSequence())
    for (const YAML::Node &A : P["arguments"])
      Out.Arguments.push_back(A.as<std::string>(""));
  Out.Ranks = P["ranks"].as<int>(0);
  Out.Host = P["host"].as<std::string>("");
  Out.CpuModel = P["cpu_model"].as<std::string>("");
  Out.CpuMhz = P["cpu_mhz"].as<std::string>("");
  Out.Cpu = P["cpu"].as<int>(-1);
  Out.TokenPassing = P["token_passing"].as<bool>(true);
  Out.RanksPerNode = P["ranks_per_node"].as<int>(1);
  Out.Compiler = P["compiler"].as<std::string>("unknown");
  Out.Flags = P["flags"].as<std::string>("unknown");
  Out.BlockMap = P["block_map"].as<std::string>("");
  Out.Fingerprint = P["fingerprint"].as<std::string>("");
  Out.Date = P["date"].as<std::string>("");
  Out.Tool = P["tool"].as<std::string>("");
}

} // namespace

bool parseMachineFile(const std::string &Name, const std::string &Text, MachineFile &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only) {
  Out = MachineFile();
  YAML::Node Root;
  YamlParser P{Name, Diags, "compute"};
  if (!P.load(Text, Root))
    return false;
  if (!Root.IsMap() || Root["format"].as<std::string>("") != "mpiete-compute")
    return P.error(Root, "not a compute file: 'format: mpiete-compute' expected");
  if (Root["version"].as<int>(0) != MachineFile::FormatVersion)
    return P.error(Root["version"], "unsupported compute file version (1 expected)");
  YAML::Node Ranks = Root["ranks"];
  if (!Ranks.IsSequence())
    return P.error(Root, "missing sequence 'ranks'");
  readProvenance(Root["provenance"], Out.Provenance);
  Out.TimerOverheadSeconds = Root["timer_overhead_seconds"].as<double>(0);
  std::vector<int> Missing = Only ? *Only : std::vector<int>();
  for (const YAML::Node &R : Ranks) {
    int Rank = R["rank"].as<int>(-1);
    if (Rank < 0 || !R["blocks"].IsSequence())
      return P.error(R, "a rank needs 'rank' and 'blocks'");
    if (Only) {
      auto It = std::find(Missing.begin(), Missing.end(), Rank);
      if (It == Missing.end())
        continue;
      Missing.erase(It);
    }
    MachineRank &MR = Out.Ranks.emplace_back();
    MR.Rank = Rank;
    MR.TimerOverheadSeconds = R["timer_overhead_seconds"].as<double>(0);
    for (const YAML::Node &B : R["blocks"]) {
      MachineBlock &MB = MR.Blocks.emplace_back();
      if (!parseBlockId(B["id"].as<std::string>(""), MB.Id))
        return P.error(B, "bad block id (expected <unit as 8 hex digits>:<index>)");
      MB.MeanSeconds = P.number(B, "mean_seconds");
      if (!P.Ok)
        return false;
      MB.Loop = B["kind"].as<std::string>("") == "loop";
      MB.Executions = B["executions"].as<uint64_t>(0);
      MB.Iterations = B["iterations"].as<uint64_t>(0);
      MB.StddevSeconds = B["stddev_seconds"].as<double>(0);
      MB.MinSeconds = B["min_seconds"].as<double>(0);
      MB.MaxSeconds = B["max_seconds"].as<double>(0);
    }
  }
  if (!Missing.empty())
    return P.error(Root, "no compute data for rank " + std::to_string(Missing.front()) +
                             " (collect it with probe-compute at the program's rank count)");
  return true;
}

bool loadMachineFile(const std::string &Path, MachineFile &Out, DiagnosticSink &Diags,
                     const std::vector<int> *Only) {
  std::string Text;
  return readBaseDataText(Path, "compute", Text, Diags) &&
         parseMachineFile(Path, Text, Out, Diags, Only);
}

bool parseBlockId(const std::string &Text, uint64_t &Out) {
  std::optional<uint64_t> Id = parseBlockId(std::string_view(Text));
  if (!Id)
    return false;
  Out = *Id;
  return true;
}

} // namespace mpiete
