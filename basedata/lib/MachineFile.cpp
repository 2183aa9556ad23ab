// machine.yaml written from and read into a MachineFile.
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/basedata/YamlParser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <type_traits>

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
    if (!G.RepeatSeconds.empty())
      E << YAML::Key << "repeat_means" << YAML::Value << YAML::Flow << G.RepeatSeconds;
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
  if (!P.Heap.empty())
    E << YAML::Key << "heap" << YAML::Value << P.Heap;
  E << YAML::Key << "compiler" << YAML::Value << P.Compiler;
  E << YAML::Key << "flags" << YAML::Value << P.Flags;
  if (!P.BlockMap.empty()) {
    E << YAML::Key << "block_map" << YAML::Value << P.BlockMap;
    if (!P.Fingerprint.empty())
      E << YAML::Key << "fingerprint" << YAML::Value << P.Fingerprint;
  }
  E << YAML::Key << "date" << YAML::Value << P.Date;
  E << YAML::Key << "tool" << YAML::Value << P.Tool;
  if (!P.Command.empty())
    E << YAML::Key << "command" << YAML::Value << P.Command;
  if (P.ProbeSeconds > 0)
    E << YAML::Key << "probe_seconds" << YAML::Value << P.ProbeSeconds;
  if (P.SampleCap > 0) {
    // Sampled, not timed whole: the loops' later iterations were skipped (docs/probes.md).
    E << YAML::Key << "sample_cap" << YAML::Value << P.SampleCap;
    E << YAML::Key << "capped_loops" << YAML::Value << YAML::Flow << P.CappedLoops;
  }
  if (P.SampleStride > 0) {
    // Loops of pure computation sampled: the skipped iterations' time is estimated.
    E << YAML::Key << "sample_stride" << YAML::Value << P.SampleStride;
    E << YAML::Key << "sampled_loops" << YAML::Value << YAML::BeginSeq;
    for (const std::string &L : P.SampledLoops)
      E << L;
    E << YAML::EndSeq;
    E << YAML::Key << "sampled_seconds" << YAML::Value << P.SampledSeconds;
  }
  if (!P.WildcardsFrom.empty())
    E << YAML::Key << "wildcards_from" << YAML::Value << P.WildcardsFrom;
  if (P.Repeats > 1) // each record the median of these timing runs (repeat_means: each run's)
    E << YAML::Key << "repeats" << YAML::Value << P.Repeats;
  if (!P.FirstRanks.empty()) {
    E << YAML::Key << "first_ranks" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (int R : P.FirstRanks)
      E << R;
    E << YAML::EndSeq;
  }
  if (!P.CombinedFrom.empty()) // probe-compute --combine: each record the median of these files
    E << YAML::Key << "combined_from" << YAML::Value << P.CombinedFrom;
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

// Checked reads (issue 14): every value of its type and in a plausible range, a located error
// naming the key otherwise; yaml-cpp's throwing lookups are never used.

/// At most a week per execution: a larger mean is a corrupt file, not a measurement.
constexpr double MaxSeconds = 7 * 24 * 3600.0;
constexpr int64_t MaxCount = int64_t(1) << 62;
constexpr int64_t MaxRanks = 1 << 24;
constexpr int64_t MaxRepeats = 1000;

bool readInt(YamlParser &P, const YAML::Node &Map, const char *Key, int &Out, int64_t Min,
             int64_t Max) {
  int64_t V = Out;
  if (!P.integer(Map, Key, V, Min, Max, false))
    return false;
  Out = int(V);
  return true;
}

bool readCount(YamlParser &P, const YAML::Node &Map, const char *Key, uint64_t &Out,
               bool Required = false) {
  int64_t V = int64_t(Out);
  if (!P.integer(Map, Key, V, 0, MaxCount, Required))
    return false;
  Out = uint64_t(V);
  return true;
}

/// Provenance describes the measurement: optional keys, defaults where missing, but each of
/// its type; a block map without its fingerprint would silently skip the build check.
bool readProvenance(YamlParser &P, const YAML::Node &Root, MachineProvenance &Out) {
  YAML::Node Prov;
  if (!P.map(Root, "provenance", Prov, false))
    return false;
  if (!Prov.IsMap()) // absent
    return true;
  YAML::Node Args;
  bool Ok =
      P.string(Prov, "program", Out.Program, false) && P.list(Prov, "arguments", Args, false) &&
      readInt(P, Prov, "ranks", Out.Ranks, 0, MaxRanks) &&
      P.string(Prov, "host", Out.Host, false) && P.string(Prov, "cpu_model", Out.CpuModel, false) &&
      P.string(Prov, "cpu_mhz", Out.CpuMhz, false) &&
      readInt(P, Prov, "cpu", Out.Cpu, -1, MaxRanks) &&
      P.boolean(Prov, "token_passing", Out.TokenPassing, false) &&
      readInt(P, Prov, "ranks_per_node", Out.RanksPerNode, 1, MaxRanks) &&
      P.string(Prov, "heap", Out.Heap, false) && P.string(Prov, "compiler", Out.Compiler, false) &&
      P.string(Prov, "flags", Out.Flags, false) &&
      P.string(Prov, "block_map", Out.BlockMap, false) &&
      P.string(Prov, "fingerprint", Out.Fingerprint, false) &&
      P.string(Prov, "date", Out.Date, false) && P.string(Prov, "tool", Out.Tool, false) &&
      P.string(Prov, "command", Out.Command, false) &&
      P.finite(Prov, "probe_seconds", Out.ProbeSeconds, 0, MaxSeconds, false) &&
      readInt(P, Prov, "sample_cap", Out.SampleCap, 0, MaxRanks) &&
      readInt(P, Prov, "sample_stride", Out.SampleStride, 0, 1 << 20) &&
      P.finite(Prov, "sampled_seconds", Out.SampledSeconds, 0, MaxSeconds, false) &&
      P.string(Prov, "wildcards_from", Out.WildcardsFrom, false) &&
      readInt(P, Prov, "repeats", Out.Repeats, 1, MaxRepeats);
  for (const auto &[Key, List] :
       {std::pair<const char *, std::vector<std::string> *>{"capped_loops", &Out.CappedLoops},
        {"sampled_loops", &Out.SampledLoops},
        {"combined_from", &Out.CombinedFrom}}) {
    YAML::Node Node;
    if (!Ok || !P.list(Prov, Key, Node, false))
      return false;
    if (Node.IsSequence())
      for (const YAML::Node &C : Node) {
        if (!C.IsScalar())
          return P.expected(C, Key, "a list of strings");
        List->push_back(C.Scalar());
      }
  }
  YAML::Node First;
  if (!P.list(Prov, "first_ranks", First, false))
    return false;
  if (First.IsSequence())
    for (const YAML::Node &F : First) {
      int64_t R = 0;
      if (!P.integerValue(F, "first_ranks", R, 0, MaxRanks))
        return false;
      Out.FirstRanks.push_back(int(R));
    }
  if (Args.IsSequence())
    for (const YAML::Node &A : Args) {
      if (!A.IsScalar())
        return P.expected(A, "arguments", "a list of strings");
      Out.Arguments.push_back(A.Scalar());
    }
  if (!Out.CombinedFrom.empty() && Out.CombinedFrom.size() != size_t(Out.Repeats))
    return P.error(Prov, "'combined_from' lists " + std::to_string(Out.CombinedFrom.size()) +
                             " files where 'repeats' says " + std::to_string(Out.Repeats) +
                             " timing runs were combined");
  if (!Out.BlockMap.empty() && Out.Fingerprint.empty())
    return P.error(Prov, "'block_map' without its 'fingerprint': the check that the traces come "
                         "from the same build needs it");
  return true;
}

/// The times every block and segment record has: a mean (required) and optional spread.
bool readTimes(YamlParser &P, const YAML::Node &N, double &Mean, double &Stddev, double &Min,
               double &Max) {
  if (!P.nonNegative(N, "mean_seconds", Mean, MaxSeconds) ||
      !P.nonNegative(N, "stddev_seconds", Stddev, MaxSeconds, false) ||
      !P.nonNegative(N, "min_seconds", Min, MaxSeconds, false) ||
      !P.nonNegative(N, "max_seconds", Max, MaxSeconds, false))
    return false;
  if (Min > Max)
    return P.error(N, "'min_seconds' is larger than 'max_seconds'");
  return true;
}

bool readId(YamlParser &P, const YAML::Node &N, const char *Key, uint64_t &Out, const char *What) {
  std::string Text;
  if (!P.string(N, Key, Text))
    return false;
  if (!parseBlockId(Text, Out))
    return P.error(N, std::string("bad ") + What +
                          " (expected <unit as 8 hex digits>:<index>, got '" + Text + "')");
  return true;
}

bool readBlock(YamlParser &P, const YAML::Node &B, MachineBlock &MB) {
  if (!B.IsMap())
    return P.expected(B, "blocks", "a list of maps");
  std::string Kind = "block";
  if (!readId(P, B, "id", MB.Id, "block id") || !P.string(B, "kind", Kind, false))
    return false;
  if (Kind != "block" && Kind != "loop")
    return P.error(B, "'kind' must be block or loop (got '" + Kind + "')");
  MB.Loop = Kind == "loop";
  return readCount(P, B, "executions", MB.Executions) &&
         readCount(P, B, "iterations", MB.Iterations) &&
         readTimes(P, B, MB.MeanSeconds, MB.StddevSeconds, MB.MinSeconds, MB.MaxSeconds);
}

/// A segment's repeat_means: one mean per timing run that made it (at most Repeats of them,
/// two or more), the record's mean their median.
bool readRepeatMeans(YamlParser &P, const YAML::Node &G, int Repeats, MachineSegment &MS) {
  YAML::Node L;
  if (!P.list(G, "repeat_means", L, false))
    return false;
  if (!L.IsSequence()) // absent
    return true;
  for (const YAML::Node &V : L) {
    double S = -1;
    if (V.IsScalar()) {
      char *End = nullptr;
      S = std::strtod(V.Scalar().c_str(), &End);
      if (*End != '\0')
        S = -1;
    }
    if (!std::isfinite(S) || S < 0 || S > MaxSeconds)
      return P.expected(V, "repeat_means", "a list of seconds >= 0");
    MS.RepeatSeconds.push_back(S);
  }
  const size_t N = MS.RepeatSeconds.size();
  if (N < 2 || N > size_t(Repeats))
    return P.error(L, "'repeat_means' holds " + std::to_string(N) +
                          " means: one per timing run that made the segment, from 2 to the "
                          "provenance's 'repeats' (" +
                          std::to_string(Repeats) + ")");
  if (const double Median = medianOf(MS.RepeatSeconds);
      std::abs(MS.MeanSeconds - Median) > 1e-5 * std::max(MS.MeanSeconds, Median) + 1e-12)
    return P.error(G, "'mean_seconds' is not the median of 'repeat_means'");
  return true;
}

bool readSegment(YamlParser &P, const YAML::Node &G, int Repeats, MachineSegment &MS) {
  if (!G.IsMap())
    return P.expected(G, "segments", "a list of maps");
  if (!readId(P, G, "from", MS.From, "segment 'from' (a call site id)") ||
      !readId(P, G, "to", MS.To, "segment 'to' (a call site id)") ||
      !readCount(P, G, "executions", MS.Executions) ||
      !readTimes(P, G, MS.MeanSeconds, MS.StddevSeconds, MS.MinSeconds, MS.MaxSeconds) ||
      !readRepeatMeans(P, G, Repeats, MS))
    return false;
  YAML::Node S;
  if (!P.map(G, "series", S, false))
    return false;
  if (!S.IsMap()) // absent
    return true;
  int64_t Width = 0;
  std::string Seconds;
  if (!P.positive(S, "width", Width, MaxCount) || !P.string(S, "seconds", Seconds))
    return false;
  MS.SeriesWidth = uint64_t(Width);
  std::istringstream Text(Seconds);
  std::string Word;
  while (Text >> Word) {
    char *End = nullptr;
    const double V = std::strtod(Word.c_str(), &End);
    if (*End != '\0' || !std::isfinite(V) || V < 0)
      return P.error(S, "bad series: '" + Word + "' is not a finite number of seconds >= 0");
    MS.SeriesSeconds.push_back(V);
  }
  const uint64_t N = MS.SeriesSeconds.size();
  if (N == 0 || (N - 1) * MS.SeriesWidth >= MS.Executions || N * MS.SeriesWidth < MS.Executions)
    return P.error(S, "bad series: 'width' and 'seconds' (one sum per bucket of width "
                      "executions) must cover the segment's executions");
  return true;
}

} // namespace

bool parseMachineFile(const std::string &Name, const std::string &Text, MachineFile &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only) {
  Out = MachineFile();
  YAML::Node Root;
  YamlParser P{Name, Diags, "compute"};
  if (!P.load(Text, Root))
    return false;
  std::string Format;
  if (!Root.IsMap() || !P.string(Root, "format", Format) || Format != "mpiete-compute")
    return P.Ok ? P.error(Root, "not a compute file: 'format: mpiete-compute' expected") : false;
  int64_t Version = 0;
  if (!P.integer(Root, "version", Version, 1, MachineFile::FormatVersion))
    return false;
  std::string Partition = "blocks";
  if (Version >= 2 && !P.string(Root, "partition", Partition))
    return false;
  if (Partition != "blocks" && Partition != "segments")
    return P.error(Root, "'partition: blocks' or 'partition: segments' expected (got '" +
                             Partition + "')");
  Out.Partition = Partition == "segments" ? MachinePartition::Segments : MachinePartition::Blocks;
  YAML::Node Ranks;
  if (!P.list(Root, "ranks", Ranks) || !readProvenance(P, Root, Out.Provenance) ||
      !P.nonNegative(Root, "timer_overhead_seconds", Out.TimerOverheadSeconds, 1, false))
    return false;
  // The ranks measured: each once, each inside the run's world when the provenance says it.
  const int World = Out.Provenance.Ranks;
  std::vector<int> Missing;
  if (Only)
    Missing = *Only;
  else
    for (int R = 0; R < World; ++R)
      Missing.push_back(R);
  std::vector<bool> Seen;
  for (const YAML::Node &R : Ranks) {
    if (!R.IsMap())
      return P.expected(R, "ranks", "a list of maps");
    int64_t Rank = 0;
    if (!P.integer(R, "rank", Rank, 0, MaxRanks - 1))
      return false;
    if (World > 0 && Rank >= World)
      return P.error(R, "rank " + std::to_string(Rank) + " in a file measured with " +
                            std::to_string(World) + " ranks (provenance 'ranks')");
    if (Seen.size() <= size_t(Rank))
      Seen.resize(size_t(Rank) + 1);
    if (Seen[size_t(Rank)])
      return P.error(R, "rank " + std::to_string(Rank) + " appears twice");
    Seen[size_t(Rank)] = true;
    YAML::Node Blocks, Segments;
    if (!P.list(R, "blocks", Blocks, false) ||
        (Version >= 2 && !P.list(R, "segments", Segments, false)))
      return false;
    if (!Blocks.IsSequence() && !Segments.IsSequence())
      return P.error(R, Version >= 2 ? "a rank needs 'blocks' or 'segments'"
                                     : "a rank needs 'blocks'");
    auto It = std::find(Missing.begin(), Missing.end(), int(Rank));
    if (It != Missing.end())
      Missing.erase(It);
    else if (Only)
      continue;
    MachineRank &MR = Out.Ranks.emplace_back();
    MR.Rank = int(Rank);
    if (!P.nonNegative(R, "timer_overhead_seconds", MR.TimerOverheadSeconds, 1, false))
      return false;
    for (const YAML::Node &B : Blocks)
      if (!readBlock(P, B, MR.Blocks.emplace_back()))
        return false;
    for (const YAML::Node &G : Segments)
      if (!readSegment(P, G, Out.Provenance.Repeats, MR.Segments.emplace_back()))
        return false;
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

double medianOf(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  const size_t H = V.size() / 2;
  return V.empty() ? 0.0 : V.size() % 2 ? V[H] : (V[H - 1] + V[H]) / 2;
}

/// The median record of one segment (block) over the runs that made it: the run nearest the
/// median, its times scaled to it.
template <typename Record> Record medianRecord(const std::vector<const Record *> &Runs) {
  std::vector<double> Means;
  for (const Record *R : Runs)
    Means.push_back(R->MeanSeconds);
  const double Median = medianOf(Means);
  const Record *Near = Runs.front();
  for (const Record *R : Runs)
    if (std::abs(R->MeanSeconds - Median) < std::abs(Near->MeanSeconds - Median))
      Near = R;
  Record Out = *Near;
  const double F = Near->MeanSeconds > 0 ? Median / Near->MeanSeconds : 1.0;
  Out.MeanSeconds = Median;
  Out.StddevSeconds *= F;
  Out.MinSeconds *= F;
  Out.MaxSeconds *= F;
  if constexpr (std::is_same_v<Record, MachineSegment>)
    for (double &X : Out.SeriesSeconds)
      X *= F;
  return Out;
}

bool combineRepeatedRuns(const std::vector<MachineFile> &Runs, MachineFile &Out, std::string &Why) {
  if (Runs.empty()) {
    Why = "no timing run";
    return false;
  }
  for (size_t K = 1; K < Runs.size(); ++K) {
    if (Runs[K].Ranks.size() != Runs.front().Ranks.size()) {
      Why = "timing run " + std::to_string(K + 1) + " measured " +
            std::to_string(Runs[K].Ranks.size()) + " ranks, the first " +
            std::to_string(Runs.front().Ranks.size());
      return false;
    }
    for (size_t I = 0; I < Runs[K].Ranks.size(); ++I)
      if (Runs[K].Ranks[I].Rank != Runs.front().Ranks[I].Rank) {
        Why = "timing run " + std::to_string(K + 1) + " lists rank " +
              std::to_string(Runs[K].Ranks[I].Rank) + " where the first lists rank " +
              std::to_string(Runs.front().Ranks[I].Rank);
        return false;
      }
  }
  Out = Runs.front();
  Out.Provenance.Repeats = int(Runs.size());
  for (const MachineFile &Run : Runs)
    Out.TimerOverheadSeconds = std::max(Out.TimerOverheadSeconds, Run.TimerOverheadSeconds);
  if (Runs.size() == 1)
    return true;
  for (size_t I = 0; I < Out.Ranks.size(); ++I) {
    MachineRank &To = Out.Ranks[I];
    // Per segment, in the order the runs first made them, every run's record.
    std::vector<std::pair<uint64_t, uint64_t>> Order;
    std::map<std::pair<uint64_t, uint64_t>, std::vector<const MachineSegment *>> Segments;
    std::vector<uint64_t> BlockOrder;
    std::map<uint64_t, std::vector<const MachineBlock *>> Blocks;
    for (const MachineFile &Run : Runs) {
      const MachineRank &From = Run.Ranks[I];
      To.TimerOverheadSeconds = std::max(To.TimerOverheadSeconds, From.TimerOverheadSeconds);
      for (const MachineSegment &G : From.Segments) {
        auto &List = Segments[{G.From, G.To}];
        if (List.empty())
          Order.push_back({G.From, G.To});
        List.push_back(&G);
      }
      for (const MachineBlock &B : From.Blocks) {
        auto &List = Blocks[B.Id];
        if (List.empty())
          BlockOrder.push_back(B.Id);
        List.push_back(&B);
      }
    }
    To.Segments.clear();
    for (const auto &Key : Order) {
      const std::vector<const MachineSegment *> &List = Segments[Key];
      MachineSegment G = medianRecord(List);
      G.RepeatSeconds.clear();
      if (List.size() > 1) // a segment only one run made has no spread to show
        for (const MachineSegment *R : List)
          G.RepeatSeconds.push_back(R->MeanSeconds);
      To.Segments.push_back(std::move(G));
    }
    To.Blocks.clear();
    for (uint64_t Id : BlockOrder)
      To.Blocks.push_back(medianRecord(Blocks[Id]));
  }
  return true;
}

std::vector<double> repeatedRunsCompute(const MachineFile &File, double &Records) {
  Records = 0;
  std::vector<double> Runs;
  if (File.Provenance.Repeats < 2 || File.Partition != MachinePartition::Segments)
    return Runs;
  Runs.assign(size_t(File.Provenance.Repeats), 0.0);
  for (const MachineRank &R : File.Ranks)
    for (const MachineSegment &G : R.Segments) {
      const double N = double(G.Executions);
      Records += G.MeanSeconds * N;
      for (size_t K = 0; K < Runs.size(); ++K)
        Runs[K] += (K < G.RepeatSeconds.size() ? G.RepeatSeconds[K] : G.MeanSeconds) * N;
    }
  return Runs;
}

bool parseBlockId(const std::string &Text, uint64_t &Out) {
  std::optional<uint64_t> Id = parseBlockId(std::string_view(Text));
  if (!Id)
    return false;
  Out = *Id;
  return true;
}

} // namespace mpiete
