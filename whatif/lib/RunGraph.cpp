// The run's DAG on Boost.Graph: longest path by a topological order (dag_shortest_paths on
// negated weights), the F3 sum of times.
#include "mpiete/whatif/RunGraph.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dag_shortest_paths.hpp>

#include <algorithm>
#include <limits>

namespace mpiete::whatif {

void RunRecorder::interval(int Rank, uint64_t Record, SpanKind Kind, BlockId From, BlockId Block,
                           TimeNs Begin, TimeNs End) {
  if (Rank < 0 || size_t(Rank) >= PerRank.size() || End <= Begin)
    return;
  Interval I;
  I.Rank = Rank;
  I.Record = Record;
  I.Kind = Kind;
  I.From = From;
  I.Block = Block;
  I.Begin = Begin;
  I.End = End;
  PerRank[size_t(Rank)].push_back(I);
}

void RunRecorder::dependency(int Rank, uint64_t Record, TimeNs, TimeNs End, int Peer,
                             TimeNs PeerTime, BlockId PeerBlock) {
  // The engine reports the dependency right after charging the wait.
  if (Rank < 0 || size_t(Rank) >= PerRank.size() || PerRank[size_t(Rank)].empty())
    return;
  Interval &W = PerRank[size_t(Rank)].back();
  if (W.Kind == SpanKind::Wait && W.Record == Record && W.End == End) {
    W.Peer = Peer;
    W.PeerTime = PeerTime;
    W.PeerBlock = PeerBlock;
  }
}

long RunRecorder::find(int Rank, TimeNs T) const {
  if (Rank < 0 || size_t(Rank) >= PerRank.size())
    return -1;
  const auto &V = PerRank[size_t(Rank)];
  auto It = std::upper_bound(V.begin(), V.end(), T,
                             [](TimeNs X, const Interval &I) { return X < I.Begin; });
  return It == V.begin() ? -1 : long(It - V.begin()) - 1;
}

long RunRecorder::findBefore(int Rank, TimeNs T) const {
  if (Rank < 0 || size_t(Rank) >= PerRank.size())
    return -1;
  const auto &V = PerRank[size_t(Rank)];
  auto It = std::upper_bound(V.begin(), V.end(), T,
                             [](TimeNs X, const Interval &I) { return X < I.End; });
  return It == V.begin() ? -1 : long(It - V.begin()) - 1;
}

CriticalPath criticalPath(const RunRecorder &Run) {
  using namespace boost;
  using Graph = adjacency_list<vecS, vecS, directedS, no_property, property<edge_weight_t, double>>;
  std::vector<size_t> First(Run.PerRank.size() + 1, 0);
  for (size_t R = 0; R < Run.PerRank.size(); ++R)
    First[R + 1] = First[R] + Run.PerRank[R].size();
  const size_t N = First.back();
  CriticalPath Out;
  if (N == 0)
    return Out;
  // Vertex N is the run's start. A vertex's distance is its interval's end: an edge u -> v
  // weighs End(v) - End(u) (program order: v's own time and any gap before it; a message:
  // from the sender's interval to the end of the wait it ended). Negated for the shortest
  // path search, which on a DAG takes any weights.
  Graph G(N + 1);
  auto at = [&](size_t R, size_t I) { return First[R] + I; };
  for (size_t R = 0; R < Run.PerRank.size(); ++R) {
    const auto &V = Run.PerRank[R];
    for (size_t I = 0; I < V.size(); ++I) {
      const Interval &X = V[I];
      TimeNs PrevEnd = I ? V[I - 1].End : 0;
      size_t Prev = I ? at(R, I - 1) : N;
      // A wait ended by a message is reached through it; its own rank only brings it to its
      // start.
      TimeNs Own = X.Kind == SpanKind::Wait && X.Peer >= 0 ? X.Begin : X.End;
      add_edge(Prev, at(R, I), -double(Own - PrevEnd), G);
      if (X.Kind == SpanKind::Wait && X.Peer >= 0) {
        // From what the partner did before its event, not the interval starting with it: in
        // an exchange both ranks' waits start when their sends do, and each waits for the
        // other's send, not for the other's wait (which would close a cycle).
        long U = Run.findBefore(X.Peer, X.PeerTime);
        if (U >= 0)
          add_edge(at(size_t(X.Peer), size_t(U)), at(R, I),
                   -double(X.End - Run.PerRank[size_t(X.Peer)][size_t(U)].End), G);
        else
          add_edge(N, at(R, I), -double(X.End), G);
      }
    }
  }
  std::vector<double> Dist(N + 1);
  std::vector<Graph::vertex_descriptor> Pred(N + 1);
  dag_shortest_paths(
      G, N,
      distance_map(make_iterator_property_map(Dist.begin(), get(vertex_index, G)))
          .predecessor_map(make_iterator_property_map(Pred.begin(), get(vertex_index, G))));
  // The path ends at the interval ending last (ties: the lowest rank).
  size_t Last = N;
  TimeNs LastEnd = std::numeric_limits<TimeNs>::min();
  for (size_t R = 0; R < Run.PerRank.size(); ++R)
    if (!Run.PerRank[R].empty() && Run.PerRank[R].back().End > LastEnd) {
      LastEnd = Run.PerRank[R].back().End;
      Last = at(R, Run.PerRank[R].size() - 1);
    }
  Out.Length = TimeNs(-Dist[Last]);
  auto intervalOf = [&](size_t V) -> const Interval & {
    size_t R = size_t(std::upper_bound(First.begin(), First.end(), V) - First.begin()) - 1;
    return Run.PerRank[R][V - First[R]];
  };
  for (size_t V = Last; V != N;) {
    size_t P = Pred[V];
    const Interval &X = intervalOf(V);
    PathStep S;
    S.At = X;
    S.Seconds = TimeNs(-Dist[V]) - (P == N ? 0 : TimeNs(-Dist[P]));
    bool ViaMessage = P != N && X.Kind == SpanKind::Wait && intervalOf(P).Rank != X.Rank;
    S.Kind = ViaMessage ? SpanKind::Comm : X.Kind;
    Out.Steps.push_back(S);
    if (P == V)
      break;
    V = P;
  }
  return Out;
}

TimeNs sumOfTimesBound(const RunRecorder &Run, const Scenario &S, bool NoWaits) {
  ScenarioAssumptions A(S);
  // Balancing (steps, segments) is in the factors: each rank's compute is its balanced share.
  TimeNs Worst = 0;
  for (size_t R = 0; R < Run.PerRank.size(); ++R) {
    TimeNs Sum = 0;
    for (const Interval &I : Run.PerRank[R]) {
      TimeNs D = I.End - I.Begin;
      if (I.Kind == SpanKind::Compute)
        D = A.compute(int(R), I.Record, I.From, I.Block, D);
      else if (I.Kind == SpanKind::Wait && (NoWaits || A.zeroWait(int(R), I.Record, I.Block)))
        D = 0;
      Sum += D;
    }
    Worst = std::max(Worst, Sum);
  }
  return Worst;
}

} // namespace mpiete::whatif
