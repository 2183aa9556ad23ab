// Reads a rank's timing file and turns it into the machine file's seconds.
#include "mpiete/basedata/TimingFile.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mpiete {

std::string readRankTiming(const std::string &Path, int Rank, RankTiming &Out) {
  std::ifstream In(Path);
  if (!In)
    return "cannot open '" + Path + "'";
  std::string Line;
  unsigned LineNo = 0;
  auto Bad = [&](const std::string &What) {
    return Path + ":" + std::to_string(LineNo) + ": " + What;
  };
  if (!std::getline(In, Line) || Line.rfind("# mpiete timing rank ", 0) != 0)
    return Bad("not a timing file of mpiete's timing probe");
  ++LineNo;
  Out.Rank = Rank;
  while (std::getline(In, Line)) {
    ++LineNo;
    if (Line.empty())
      continue;
    std::istringstream S(Line);
    if (Line[0] == '#') {
      std::string Hash, Key, Value;
      S >> Hash >> Key >> Value;
      if (Key == "timer-overhead-ns")
        Out.OverheadNs = std::strtod(Value.c_str(), nullptr);
      else if (Key == "token-passing")
        Out.TokenPassing = Value == "on";
      else if (Key == "cpu")
        Out.Cpu = std::atoi(Value.c_str());
      else if (Key == "ranks-per-node")
        Out.RanksPerNode = std::atoi(Value.c_str());
      else if (Key == "partition") {
        if (Value != "segments" && Value != "blocks")
          return Bad("unknown partition '" + Value + "' (segments or blocks)");
        Out.Partition = Value;
      }
      continue;
    }
    if (Line.rfind("segment ", 0) == 0 || Line.rfind("series ", 0) == 0) {
      std::string Kind, From, To;
      S >> Kind >> From >> To;
      uint64_t FromId = 0, ToId = 0;
      if (!S || !parseBlockId(From, FromId) || !parseBlockId(To, ToId))
        return Bad("malformed " + Kind + " record '" + Line + "'");
      if (Kind == "segment") {
        SegmentTiming &G = Out.Segments.emplace_back();
        G.From = FromId;
        G.To = ToId;
        S >> G.Executions >> G.Nanos >> G.MinNs >> G.MaxNs >> G.StddevNs;
        if (!S || G.Executions == 0)
          return Bad("malformed segment record '" + Line + "'");
        continue;
      }
      // A series follows its segment's line.
      if (Out.Segments.empty() || Out.Segments.back().From != FromId ||
          Out.Segments.back().To != ToId || !Out.Segments.back().Series.empty())
        return Bad("series without its segment line right before it");
      SegmentTiming &G = Out.Segments.back();
      uint64_t N = 0;
      S >> G.SeriesWidth >> N;
      if (!S || G.SeriesWidth == 0 || N == 0)
        return Bad("malformed series record '" + Line + "'");
      G.Series.reserve(N);
      for (uint64_t K = 0; K < N; ++K) {
        uint64_t V = 0;
        if (!(S >> V))
          return Bad("series of " + std::to_string(N) + " buckets has only " + std::to_string(K));
        G.Series.push_back(V);
      }
      std::string Extra;
      if (S >> Extra)
        return Bad("series has more than its " + std::to_string(N) + " buckets");
      // N buckets of Width occurrences, the last one holding the remainder.
      if ((N - 1) * G.SeriesWidth >= G.Executions || N * G.SeriesWidth < G.Executions)
        return Bad("series of " + std::to_string(N) + " buckets of " +
                   std::to_string(G.SeriesWidth) + " does not hold the segment's " +
                   std::to_string(G.Executions) + " executions");
      continue;
    }
    BlockTiming B;
    std::string Id, Kind;
    S >> Id >> Kind >> B.Executions;
    if (!S)
      return Bad("malformed record '" + Line + "'");
    if (Kind != "block" && Kind != "loop")
      continue; // communication, init, finalize: counted, not timed
    if (!parseBlockId(Id, B.Id))
      return Bad("malformed record '" + Line + "'");
    B.Loop = Kind == "loop";
    if (B.Loop)
      S >> B.Trips;
    S >> B.Nanos >> B.MinNs >> B.MaxNs >> B.StddevNs;
    if (!S)
      return Bad("malformed timed record '" + Line + "'");
    Out.Blocks.push_back(B);
  }
  if (!Out.TokenPassing)
    return Path + ": the program did not run under token passing (was it linked with "
                  "the timing runtime?)";
  return "";
}

MachineRank machineRankOf(const RankTiming &R) {
  MachineRank M;
  M.Rank = R.Rank;
  M.TimerOverheadSeconds = R.OverheadNs * 1e-9;
  for (const BlockTiming &B : R.Blocks) {
    const double Net = std::max(0.0, static_cast<double>(B.Nanos) -
                                         R.OverheadNs * static_cast<double>(B.Executions));
    const uint64_t Per = B.Loop ? B.Trips : B.Executions;
    const double Mean = Per != 0 ? Net / static_cast<double>(Per) : 0;
    MachineBlock &MB = M.Blocks.emplace_back();
    MB.Id = B.Id;
    MB.Loop = B.Loop;
    MB.Executions = B.Executions;
    MB.Iterations = B.Trips;
    MB.MeanSeconds = Mean * 1e-9;
    MB.StddevSeconds = B.StddevNs * 1e-9;
    MB.MinSeconds = std::max(0.0, B.MinNs - (B.Loop ? 0 : R.OverheadNs)) * 1e-9;
    MB.MaxSeconds = std::max(0.0, B.MaxNs - (B.Loop ? 0 : R.OverheadNs)) * 1e-9;
  }
  // Segments as measured: their clock reads are the MPI entry points' own, so no timer
  // overhead is inside them to subtract.
  for (const SegmentTiming &G : R.Segments) {
    MachineSegment &MS = M.Segments.emplace_back();
    MS.From = G.From;
    MS.To = G.To;
    MS.Executions = G.Executions;
    MS.MeanSeconds = static_cast<double>(G.Nanos) / static_cast<double>(G.Executions) * 1e-9;
    MS.StddevSeconds = G.StddevNs * 1e-9;
    MS.MinSeconds = G.MinNs * 1e-9;
    MS.MaxSeconds = G.MaxNs * 1e-9;
    MS.SeriesWidth = G.Series.empty() ? 0 : G.SeriesWidth;
    MS.SeriesSeconds.reserve(G.Series.size());
    for (uint64_t Ns : G.Series)
      MS.SeriesSeconds.push_back(static_cast<double>(Ns) * 1e-9);
  }
  return M;
}

} // namespace mpiete
