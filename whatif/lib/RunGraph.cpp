// The recorded run: compact interval records, the critical path walked back on the implicit
// DAG, the F3 sum of times.
#include "mpiete/whatif/RunGraph.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace mpiete::whatif {

void RunRecorder::interval(int Rank, uint64_t Record, SpanKind Kind, BlockId From, BlockId Block,
                           TimeNs Begin, TimeNs End) {
  if (Rank < 0 || size_t(Rank) >= Runs.size() || End <= Begin)
    return;
  auto [It, New] = SegmentIndex[From].try_emplace(Block, uint32_t(Segments.size()));
  if (New)
    Segments.push_back({From, Block});
  if (Record > UINT32_MAX || It->second >= (1u << KindShift))
    Overflow = true;
  Runs[size_t(Rank)].push_back(
      {Begin, End, uint32_t(Record), It->second | uint32_t(Kind) << KindShift});
}

void RunRecorder::dependency(int Rank, uint64_t Record, TimeNs, TimeNs End, int Peer,
                             TimeNs PeerTime, BlockId PeerBlock) {
  // The engine reports the dependency right after charging the wait.
  if (Rank < 0 || size_t(Rank) >= Runs.size() || Runs[size_t(Rank)].empty())
    return;
  const auto &V = Runs[size_t(Rank)];
  const Packed &W = V.back();
  if (SpanKind(W.SegmentAndKind >> KindShift) != SpanKind::Wait || W.Record != uint32_t(Record) ||
      W.End != End)
    return;
  auto &P = Peers[size_t(Rank)];
  const uint32_t Index = uint32_t(V.size() - 1);
  if (!P.empty() && P.back().Index == Index)
    P.back() = {PeerTime, Index, Peer, PeerBlock};
  else
    P.push_back({PeerTime, Index, Peer, PeerBlock});
}

bool RunRecorder::empty() const {
  return std::all_of(Runs.begin(), Runs.end(), [](const auto &V) { return V.empty(); });
}

Interval RunRecorder::at(int Rank, size_t I) const {
  const Packed &X = Runs[size_t(Rank)][I];
  Interval Out;
  Out.Rank = Rank;
  Out.Record = X.Record;
  Out.Kind = SpanKind(X.SegmentAndKind >> KindShift);
  std::tie(Out.From, Out.Block) = Segments[X.SegmentAndKind & ((1u << KindShift) - 1)];
  Out.Begin = X.Begin;
  Out.End = X.End;
  if (Out.Kind == SpanKind::Wait) {
    const auto &P = Peers[size_t(Rank)];
    auto It = std::lower_bound(P.begin(), P.end(), uint32_t(I),
                               [](const PeerOf &Y, uint32_t X) { return Y.Index < X; });
    if (It != P.end() && It->Index == I) {
      Out.Peer = It->Peer;
      Out.PeerTime = It->PeerTime;
      Out.PeerBlock = It->PeerBlock;
    }
  }
  return Out;
}

long RunRecorder::find(int Rank, TimeNs T) const {
  if (Rank < 0 || size_t(Rank) >= Runs.size())
    return -1;
  const auto &V = Runs[size_t(Rank)];
  auto It = std::upper_bound(V.begin(), V.end(), T,
                             [](TimeNs X, const Packed &I) { return X < I.Begin; });
  return It == V.begin() ? -1 : long(It - V.begin()) - 1;
}

long RunRecorder::findBefore(int Rank, TimeNs T) const {
  if (Rank < 0 || size_t(Rank) >= Runs.size())
    return -1;
  const auto &V = Runs[size_t(Rank)];
  auto It =
      std::upper_bound(V.begin(), V.end(), T, [](TimeNs X, const Packed &I) { return X < I.End; });
  return It == V.begin() ? -1 : long(It - V.begin()) - 1;
}

// The DAG is implicit. An edge u -> v weighs End(v) - End(u): program order (v's own time and
// any gap before it) and a message (from what the sender did before its event to the end of
// the wait it ended); a wait ended by a message is brought only to its start by its own rank.
// Every path to v therefore has the length End(v), except the program-order path into a
// message-ended wait (Begin(v) < End(v)): the longest path's predecessor of v is its message's
// sender for such a wait and its rank's previous interval otherwise, and the path is found by
// walking back from the last interval without building the graph (the first rounds built it on
// Boost.Graph and searched it with dag_shortest_paths: the same path, 237 bytes an event).
CriticalPath walkCriticalPath(const RunRecorder &Run,
                              const std::function<void(const PathStep &)> &Visit) {
  CriticalPath Out;
  // The path ends at the interval ending last (ties: the lowest rank).
  int R = -1;
  TimeNs LastEnd = std::numeric_limits<TimeNs>::min();
  size_t Total = 0;
  for (int Q = 0; Q < Run.ranks(); ++Q) {
    Total += Run.size(Q);
    if (Run.size(Q) && Run.at(Q, Run.size(Q) - 1).End > LastEnd) {
      LastEnd = Run.at(Q, Run.size(Q) - 1).End;
      R = Q;
    }
  }
  if (R < 0)
    return Out;
  Out.Length = LastEnd;
  long I = long(Run.size(R)) - 1;
  while (I >= 0) {
    // A cycle would need a message arriving no later than its own sender's event: the
    // recorded replay never has one, but a walk longer than the run stops rather than loops.
    if (Out.Intervals++ > Total)
      throw std::logic_error("whatif: the recorded run's dependencies form a cycle");
    PathStep S;
    S.At = Run.at(R, size_t(I));
    int PR = R;
    long P = -1;
    if (S.At.Kind == SpanKind::Wait && S.At.Peer >= 0) {
      // From what the partner did before its event, not the interval starting with it: in an
      // exchange both ranks' waits start when their sends do, and each waits for the other's
      // send, not for the other's wait.
      PR = S.At.Peer;
      P = Run.findBefore(PR, S.At.PeerTime);
    } else {
      P = I - 1;
    }
    const TimeNs PrevEnd = P >= 0 ? Run.at(PR, size_t(P)).End : 0;
    S.Seconds = S.At.End - PrevEnd;
    S.Kind = P >= 0 && PR != R ? SpanKind::Comm : S.At.Kind;
    Visit(S);
    R = PR;
    I = P;
  }
  return Out;
}

CriticalPath criticalPath(const RunRecorder &Run) {
  std::vector<PathStep> Steps;
  CriticalPath Out = walkCriticalPath(Run, [&](const PathStep &S) { Steps.push_back(S); });
  Out.Steps = std::move(Steps);
  return Out;
}

TimeNs sumOfTimesBound(const RunRecorder &Run, const Scenario &S, bool NoWaits) {
  ScenarioAssumptions A(S);
  // Balancing (steps, segments) is in the factors: each rank's compute is its balanced share.
  TimeNs Worst = 0;
  for (int R = 0; R < Run.ranks(); ++R) {
    TimeNs Sum = 0;
    for (size_t K = 0; K < Run.size(R); ++K) {
      const Interval I = Run.at(R, K);
      TimeNs D = I.End - I.Begin;
      if (I.Kind == SpanKind::Compute)
        D = A.compute(R, I.Record, I.From, I.Block, D);
      else if (I.Kind == SpanKind::Wait && (NoWaits || A.zeroWait(R, I.Record, I.Block)))
        D = 0;
      Sum += D;
    }
    Worst = std::max(Worst, Sum);
  }
  return Worst;
}

} // namespace mpiete::whatif
