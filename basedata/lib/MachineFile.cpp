// machine.yaml written from and read into a MachineFile.
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/basedata/YamlParser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string_view>

namespace mpiete {

namespace {

/// Seconds of a series bucket: sums of integer nanoseconds, so 12 digits keep them exact up
/// to 1000 s per bucket.
std::string seriesText(const std::vector<double> &Seconds) {
  std::string Out;
  char Buf[32];
  for (double S : Seconds) {
    std::snprintf(Buf, sizeof Buf, "%.12g", S);
    if (!Out.empty())
      Out += ' ';
    Out += Buf;
  }
  return Out;
}

void writeSegments(YAML::Emitter &E, const MachineRank &R) {
  E << YAML::Key << "segments" << YAML::Value << YAML::BeginSeq;
  for (const MachineSegment &G : R.Segments) {
    E << YAML::Flow << YAML::BeginMap;
    E << YAML::Key << "from" << YAML::Value << YAML::DoubleQuoted << formatBlockId(G.From);
    E << YAML::Key << "to" << YAML::Value << YAML::DoubleQuoted << formatBlockId(G.To);
    E << YAML::Key << "executions" << YAML::Value << G.Executions;
    E << YAML::Key << "mean_seconds" << YAML::Value << G.MeanSeconds;
    E << YAML::Key << "stddev_seconds" << YAML::Value << G.StddevSeconds;
    E << YAML::Key << "min_seconds" << YAML::Value << G.MinSeconds;
    E << YAML::Key << "max_seconds" << YAML::Value << G.MaxSeconds;
    if (!G.SeriesSeconds.empty()) {
      E << YAML::Key << "series" << YAML::Value << YAML::BeginMap;
      E << YAML::Key << "width" << YAML::Value << G.SeriesWidth;
      E << YAML::Key << "seconds" << YAML::Value << YAML::DoubleQuoted
        << seriesText(G.SeriesSeconds);
      E << YAML::EndMap;
    }
    E << YAML::EndMap;
  }
  E << YAML::EndSeq;
}

} // namespace

void writeMachineFile(std::ostream &OS, const MachineFile &File) {
  const MachineProvenance &P = File.Provenance;
  YAML::Emitter E;
  E.SetDoublePrecision(6);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-compute";
  E << YAML::Key << "version" << YAML::Value << MachineFile::FormatVersion;
  // What the times are of: seed 004's compute blocks (a --mpiete-seed-blocks build) or the
  // compute segments between consecutive MPI calls.
  const bool Segments = File.Partition == MachinePartition::Segments;
  E << YAML::Key << "partition" << YAML::Value << (Segments ? "segments" : "blocks");
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
  if (P.ProbeSeconds > 0)
    E << YAML::Key << "probe_seconds" << YAML::Value << P.ProbeSeconds;
  E << YAML::EndMap;
  E << YAML::Key << "timer_overhead_seconds" << YAML::Value << File.TimerOverheadSeconds;
  E << YAML::Key << "ranks" << YAML::Value << YAML::BeginSeq;
  for (const MachineRank &R : File.Ranks) {
    E << YAML::BeginMap;
    E << YAML::Key << "rank" << YAML::Value << R.Rank;
    E << YAML::Key << "timer_overhead_seconds" << YAML::Value << R.TimerOverheadSeconds;
    if (Segments && R.Blocks.empty()) {
      writeSegments(E, R);
      E << YAML::EndMap;
      continue;
    }
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
    if (Segments || !R.Segments.empty())
      writeSegments(E, R);
    E << YAML::EndMap;
  }
  E << YAML::EndSeq;
  E << YAML::EndMap;
  if (Segments)
    OS << "# mpiete compute base data: seconds per execution of every compute segment (the\n"
          "# computation between two consecutive MPI calls, from: the call it starts after, to:\n"
          "# the call it ends at; series: sums of `width` consecutive executions), measured with\n"
          "# ranks_per_node ranks running at a time.\n";
  else
    OS << "# mpiete compute base data: seconds per execution of every compute block (loops timed\n"
          "# whole: per iteration), measured with ranks_per_node ranks running at a time.\n";
  OS << E.c_str() << "\n";
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
  Out.ProbeSeconds = P["probe_seconds"].as<double>(0);
}

bool readSegments(YamlParser &P, const YAML::Node &List, MachineRank &MR) {
  for (const YAML::Node &G : List) {
    MachineSegment &MS = MR.Segments.emplace_back();
    if (!parseBlockId(G["from"].as<std::string>(""), MS.From) ||
        !parseBlockId(G["to"].as<std::string>(""), MS.To))
      return P.error(G, "bad segment 'from' or 'to' (expected call site ids "
                        "<unit as 8 hex digits>:<index>)");
    MS.MeanSeconds = P.number(G, "mean_seconds");
    if (!P.Ok)
      return false;
    MS.Executions = G["executions"].as<uint64_t>(0);
    MS.StddevSeconds = G["stddev_seconds"].as<double>(0);
    MS.MinSeconds = G["min_seconds"].as<double>(0);
    MS.MaxSeconds = G["max_seconds"].as<double>(0);
    YAML::Node S = G["series"];
    if (!S.IsDefined())
      continue;
    MS.SeriesWidth = S["width"].as<uint64_t>(0);
    std::istringstream Text(S["seconds"].as<std::string>(""));
    double V = 0;
    while (Text >> V)
      MS.SeriesSeconds.push_back(V);
    const uint64_t N = MS.SeriesSeconds.size();
    if (MS.SeriesWidth == 0 || N == 0 || !Text.eof() || (N - 1) * MS.SeriesWidth >= MS.Executions ||
        N * MS.SeriesWidth < MS.Executions)
      return P.error(S, "bad series: 'width' and 'seconds' (one sum per bucket of width "
                        "executions) must cover the segment's executions");
  }
  return true;
}

} // namespace

namespace {
bool parseMachineFileUnchecked(const std::string &Name, const std::string &Text, MachineFile &Out,
                               DiagnosticSink &Diags, const std::vector<int> *Only);
} // namespace

bool parseMachineFile(const std::string &Name, const std::string &Text, MachineFile &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only) {
  // yaml-cpp throws on a key looked up in a scalar or a missing node converted: a located error
  // instead, never an abort (fuzzing found both; issue 14 replaces these with checked reads).
  try {
    return parseMachineFileUnchecked(Name, Text, Out, Diags, Only);
  } catch (const YAML::Exception &E) {
    Out = MachineFile();
    Diags.error({Name, unsigned(E.mark.line + 1), unsigned(E.mark.column + 1)},
                "malformed compute file: " + E.msg, "compute");
    return false;
  }
}

namespace {
bool parseMachineFileUnchecked(const std::string &Name, const std::string &Text, MachineFile &Out,
                               DiagnosticSink &Diags, const std::vector<int> *Only) {
  Out = MachineFile();
  YAML::Node Root;
  YamlParser P{Name, Diags, "compute"};
  if (!P.load(Text, Root))
    return false;
  if (!Root.IsMap() || Root["format"].as<std::string>("") != "mpiete-compute")
    return P.error(Root, "not a compute file: 'format: mpiete-compute' expected");
  const int Version = Root["version"].as<int>(0);
  if (Version != 1 && Version != MachineFile::FormatVersion)
    return P.error(Root["version"], "unsupported compute file version (1 or 2 expected)");
  const std::string Partition = Version == 1 ? "blocks" : Root["partition"].as<std::string>("");
  if (Partition != "blocks" && Partition != "segments")
    return P.error(Root["partition"].IsDefined() ? Root["partition"] : Root,
                   "'partition: blocks' or 'partition: segments' expected");
  Out.Partition = Partition == "segments" ? MachinePartition::Segments : MachinePartition::Blocks;
  YAML::Node Ranks = Root["ranks"];
  if (!Ranks.IsSequence())
    return P.error(Root, "missing sequence 'ranks'");
  readProvenance(Root["provenance"], Out.Provenance);
  Out.TimerOverheadSeconds = Root["timer_overhead_seconds"].as<double>(0);
  std::vector<int> Missing = Only ? *Only : std::vector<int>();
  for (const YAML::Node &R : Ranks) {
    int Rank = R["rank"].as<int>(-1);
    // A key a rank lacks reads as an invalid node: asked for its type, it throws.
    auto IsList = [&R](const char *Key) { return R[Key].IsDefined() && R[Key].IsSequence(); };
    const bool HasSegments = Version >= 2 && IsList("segments");
    if (Rank < 0 || (!IsList("blocks") && !HasSegments))
      return P.error(R, Version >= 2 ? "a rank needs 'rank' and 'blocks' or 'segments'"
                                     : "a rank needs 'rank' and 'blocks'");
    if (Only) {
      auto It = std::find(Missing.begin(), Missing.end(), Rank);
      if (It == Missing.end())
        continue;
      Missing.erase(It);
    }
    MachineRank &MR = Out.Ranks.emplace_back();
    MR.Rank = Rank;
    MR.TimerOverheadSeconds = R["timer_overhead_seconds"].as<double>(0);
    for (const YAML::Node &B : IsList("blocks") ? R["blocks"] : YAML::Node()) {
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
    if (HasSegments && !readSegments(P, R["segments"], MR))
      return false;
  }
  if (!Missing.empty())
    return P.error(Root, "no compute data for rank " + std::to_string(Missing.front()) +
                             " (collect it with probe-compute at the program's rank count)");
  return true;
}

} // namespace

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
