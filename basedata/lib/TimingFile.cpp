// Reads a rank's timing file and turns it into the machine file's seconds.
#include "mpiete/basedata/TimingFile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace mpiete {

namespace {

// Checked words (issue 14): counts are unsigned decimal numbers that fit (no sign, no
// fraction), times finite and >= 0; anything else names the file, the line and the field.

std::vector<std::string> wordsOf(const std::string &Line) {
  std::istringstream S(Line);
  std::vector<std::string> Words;
  std::string W;
  while (S >> W)
    Words.push_back(W);
  return Words;
}

bool countOf(const std::string &W, uint64_t &Out) {
  const char *End = W.data() + W.size();
  auto [Ptr, Ec] = std::from_chars(W.data(), End, Out);
  return Ec == std::errc() && Ptr == End;
}

/// Nanoseconds: finite, >= 0, at most a week.
bool nanosOf(const std::string &W, double &Out) {
  char *End = nullptr;
  const double V = std::strtod(W.c_str(), &End);
  if (W.empty() || *End != '\0' || !std::isfinite(V) || V < 0 || V > 6.048e14)
    return false;
  Out = V;
  return true;
}

bool intOf(const std::string &W, int &Out, int Min, int Max) {
  const char *End = W.data() + W.size();
  int V = 0;
  auto [Ptr, Ec] = std::from_chars(W.data(), End, V);
  if (Ec != std::errc() || Ptr != End || V < Min || V > Max)
    return false;
  Out = V;
  return true;
}

} // namespace

std::string readRankTiming(const std::string &Path, int Rank, RankTiming &Out) {
  std::ifstream In(Path);
  if (!In)
    return "cannot open '" + Path + "'";
  std::string Line;
  unsigned LineNo = 0;
  auto Bad = [&](const std::string &What) {
    return Path + ":" + std::to_string(LineNo) + ": " + What;
  };
  // "field 'Name' of the Kind record must be What (got 'Word')".
  auto BadField = [&](const char *Kind, const char *Name, const char *What,
                      const std::string &Word) {
    return Bad(std::string("field '") + Name + "' of the " + Kind + " record must be " + What +
               " (got '" + Word + "')");
  };
  ++LineNo;
  if (!std::getline(In, Line) || Line.rfind("# mpiete timing rank ", 0) != 0)
    return Bad("not a timing file of mpiete's timing probe");
  Out.Rank = Rank;
  const char *Count = "a whole number >= 0";
  const char *Nanos = "a finite number of nanoseconds >= 0";
  // `# capped-mean FROM TO N NANOS` lines (headers: before the segments they name), and their
  // line numbers for the error of one that names no segment.
  std::map<std::pair<uint64_t, uint64_t>, std::pair<SegmentTiming, unsigned>> CappedMeans;
  while (std::getline(In, Line)) {
    ++LineNo;
    const std::vector<std::string> W = wordsOf(Line);
    if (W.empty())
      continue;
    if (W[0][0] == '#') {
      if (W.size() < 3 || W[0] != "#")
        continue; // a comment
      const std::string &Key = W[1], &Value = W[2];
      if (Key == "timer-overhead-ns") {
        if (!nanosOf(Value, Out.OverheadNs) || Out.OverheadNs > 1e9)
          return BadField("header", "timer-overhead-ns",
                          "a finite number of nanoseconds in "
                          "[0, 1e9]",
                          Value);
      } else if (Key == "token-passing") {
        if (Value != "on" && Value != "off")
          return BadField("header", "token-passing", "on or off", Value);
        Out.TokenPassing = Value == "on";
      } else if (Key == "cpu") {
        if (!intOf(Value, Out.Cpu, -1, 1 << 24))
          return BadField("header", "cpu", "a processor number >= -1", Value);
      } else if (Key == "ranks-per-node") {
        if (!intOf(Value, Out.RanksPerNode, 1, 1 << 24))
          return BadField("header", "ranks-per-node", "a whole number >= 1", Value);
      } else if (Key == "heap") {
        if (Value != "kept" && Value != "native")
          return BadField("header", "heap", "kept or native", Value);
        Out.Heap = Value;
      } else if (Key == "capped-mean") {
        SegmentTiming C;
        if (W.size() != 6 || !parseBlockId(W[2], C.From) || !parseBlockId(W[3], C.To))
          return Bad("malformed capped-mean record '" + Line + "' (# capped-mean FROM TO N NANOS)");
        if (!countOf(W[4], C.CappedExecutions) || C.CappedExecutions == 0)
          return BadField("capped-mean", "occurrences", "a whole number >= 1", W[4]);
        if (!countOf(W[5], C.CappedNanos))
          return BadField("capped-mean", "nanoseconds", Count, W[5]);
        CappedMeans[{C.From, C.To}] = {C, LineNo};
      } else if (Key == "partition") {
        if (Value != "segments" && Value != "blocks")
          return Bad("unknown partition '" + Value + "' (segments or blocks)");
        Out.Partition = Value;
      }
      continue;
    }
    if (W[0] == "segment" || W[0] == "series") {
      const std::string &Kind = W[0];
      uint64_t FromId = 0, ToId = 0;
      if (W.size() < 3 || !parseBlockId(W[1], FromId) || !parseBlockId(W[2], ToId))
        return Bad("malformed " + Kind + " record '" + Line + "'");
      if (Kind == "segment") {
        // segment FROM TO executions nanos min max stddev
        if (W.size() != 8)
          return Bad("malformed segment record '" + Line + "' (7 fields after 'segment')");
        SegmentTiming &G = Out.Segments.emplace_back();
        G.From = FromId;
        G.To = ToId;
        if (!countOf(W[3], G.Executions) || G.Executions == 0)
          return BadField("segment", "executions", "a whole number >= 1", W[3]);
        if (!countOf(W[4], G.Nanos))
          return BadField("segment", "nanoseconds", Count, W[4]);
        if (!nanosOf(W[5], G.MinNs) || !nanosOf(W[6], G.MaxNs) || !nanosOf(W[7], G.StddevNs) ||
            G.MinNs > G.MaxNs)
          return Bad("malformed segment record '" + Line + "': min, max and stddev must be " +
                     Nanos + ", min <= max");
        continue;
      }
      // A series follows its segment's line.
      if (Out.Segments.empty() || Out.Segments.back().From != FromId ||
          Out.Segments.back().To != ToId || !Out.Segments.back().Series.empty())
        return Bad("series without its segment line right before it");
      SegmentTiming &G = Out.Segments.back();
      uint64_t N = 0;
      if (W.size() < 5 || !countOf(W[3], G.SeriesWidth) || !countOf(W[4], N) ||
          G.SeriesWidth == 0 || N == 0)
        return Bad("malformed series record '" + Line.substr(0, 80) + "'");
      if (W.size() - 5 < N)
        return Bad("series of " + std::to_string(N) + " buckets has only " +
                   std::to_string(W.size() - 5));
      if (W.size() - 5 > N)
        return Bad("series has more than its " + std::to_string(N) + " buckets");
      G.Series.reserve(N);
      for (size_t K = 5; K < W.size(); ++K) {
        uint64_t V = 0;
        if (!countOf(W[K], V))
          return BadField("series", "bucket", Count, W[K]);
        G.Series.push_back(V);
      }
      // N buckets of Width occurrences, the last one holding the remainder.
      if ((N - 1) * G.SeriesWidth >= G.Executions || N * G.SeriesWidth < G.Executions)
        return Bad("series of " + std::to_string(N) + " buckets of " +
                   std::to_string(G.SeriesWidth) + " does not hold the segment's " +
                   std::to_string(G.Executions) + " executions");
      continue;
    }
    // ID KIND executions [trips] [nanos min max stddev]
    BlockTiming B;
    if (W.size() < 3)
      return Bad("malformed record '" + Line + "'");
    const std::string &Kind = W[1];
    if (!countOf(W[2], B.Executions))
      return BadField(Kind.c_str(), "executions", Count, W[2]);
    if (Kind != "block" && Kind != "loop")
      continue; // communication, init, finalize: counted, not timed
    if (!parseBlockId(W[0], B.Id))
      return Bad("malformed record '" + Line + "' (bad block id '" + W[0] + "')");
    B.Loop = Kind == "loop";
    const size_t Fields = B.Loop ? 8 : 7;
    if (W.size() != Fields)
      return Bad("malformed timed record '" + Line + "' (" + std::to_string(Fields) +
                 " fields expected)");
    size_t I = 3;
    if (B.Loop && !countOf(W[I++], B.Trips))
      return BadField("loop", "trips", Count, W[3]);
    if (!countOf(W[I], B.Nanos))
      return BadField(Kind.c_str(), "nanoseconds", Count, W[I]);
    if (!nanosOf(W[I + 1], B.MinNs) || !nanosOf(W[I + 2], B.MaxNs) ||
        !nanosOf(W[I + 3], B.StddevNs) || B.MinNs > B.MaxNs)
      return Bad("malformed timed record '" + Line + "': min, max and stddev must be " + Nanos +
                 ", min <= max");
    Out.Blocks.push_back(B);
  }
  for (SegmentTiming &G : Out.Segments) {
    auto It = CappedMeans.find({G.From, G.To});
    if (It == CappedMeans.end())
      continue;
    const SegmentTiming &C = It->second.first;
    if (C.CappedExecutions > G.Executions) {
      LineNo = It->second.second;
      return Bad("capped-mean record of " + std::to_string(C.CappedExecutions) +
                 " occurrences for a segment of " + std::to_string(G.Executions));
    }
    G.CappedExecutions = C.CappedExecutions;
    G.CappedNanos = C.CappedNanos;
    CappedMeans.erase(It);
  }
  if (!CappedMeans.empty()) {
    LineNo = CappedMeans.begin()->second.second;
    return Bad("capped-mean record for a segment the file has no segment line for");
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
    MS.MeanSeconds =
        G.CappedExecutions != 0
            ? static_cast<double>(G.CappedNanos) / static_cast<double>(G.CappedExecutions) * 1e-9
            : static_cast<double>(G.Nanos) / static_cast<double>(G.Executions) * 1e-9;
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
