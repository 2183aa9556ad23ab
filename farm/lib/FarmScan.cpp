// Recognises a task farm in the replayed event streams and records the replay's farm span.
#include "mpiete/farm/FarmScan.h"

#include <algorithm>

namespace mpiete::farm {

using namespace estimator;

namespace {

class WatchedSource : public EventSource {
public:
  WatchedSource(FarmScan &Scan, int Rank, EventSource &Inner)
      : Scan(Scan), Rank(Rank), Inner(Inner) {}
  bool next(Event &E) override {
    if (!Inner.next(E))
      return false;
    if (!Scan.gaveUp())
      Scan.see(Rank, E);
    return true;
  }
  std::string name() const override { return Inner.name(); }
  bool failed() const override { return Inner.failed(); }

private:
  FarmScan &Scan;
  int Rank;
  EventSource &Inner;
};

} // namespace

FarmScan::FarmScan(int Ranks, TimelineSink *Next, bool Unmarked)
    : Logs(size_t(Ranks)), Next(Next), Unmarked(Unmarked) {}

void FarmScan::notePeer(RankLog &L, int32_t Peer) {
  if (Peer < 0 || L.ManyPeers || std::find(L.Peers.begin(), L.Peers.end(), Peer) != L.Peers.end())
    return;
  if (L.Peers.size() == MaxPeers)
    L.ManyPeers = true;
  else
    L.Peers.push_back(Peer);
  // Only a master names more than one peer: a second rank that does makes this no farm (a
  // stencil's ranks each name their neighbours in their first exchange).
  if (L.Peers.size() == 2 && ++RanksWithPeers == 2)
    giveUp();
}

void FarmScan::giveUp() {
  GaveUp = true;
  if (!Next)
    stopEvents(); // the engine stops calling span() and message()
  Logs.clear();
  Logs.shrink_to_fit();
  Arrows.clear();
  Arrows.shrink_to_fit();
  Spans.clear();
}

std::unique_ptr<EventSource> FarmScan::watch(int Rank, EventSource &Inner) {
  return std::make_unique<WatchedSource>(*this, Rank, Inner);
}

void FarmScan::see(int Rank, const Event &E) {
  if (E.Context != 0 || size_t(Rank) >= Logs.size())
    return; // lowered collectives are no farm's messages (and after giveUp, Logs is empty)
  RankLog &L = Logs[size_t(Rank)];
  switch (E.Kind) {
  case EventKind::SendStart:
    if (Unmarked && ++SendsKept > UnmarkedCap)
      return giveUp();
    L.Sends.push_back({E.Peer, E.Tag, E.Count, E.Block});
    if (Unmarked)
      notePeer(L, E.Peer); // may give up (Logs and L are then gone)
    break;
  case EventKind::RecvStart:
    if (E.Peer == AnySource)
      L.WildRequests.insert(E.Request);
    else if (Unmarked)
      notePeer(L, E.Peer);
    break;
  case EventKind::Probe:
    if (E.Peer == AnySource && E.Found) {
      ++L.Wildcards;
      L.WildSites.insert(E.Block);
    }
    break;
  case EventKind::Completion:
    for (const CompletedRequest &C : E.Completed)
      if (L.WildRequests.erase(C.Request)) {
        ++L.Wildcards;
        L.WildSites.insert(E.Block);
      }
    break;
  default:
    break;
  }
}

void FarmScan::span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) {
  if (Kind != SpanKind::Compute && !Unmarked) {
    auto [It, New] = Spans.try_emplace({Rank, Block}, Begin, End);
    if (!New) {
      It->second.first = std::min(It->second.first, Begin);
      It->second.second = std::max(It->second.second, End);
    }
  }
  if (Next)
    Next->span(Rank, Kind, Block, Begin, End);
}

void FarmScan::message(const MessageArrow &A) {
  if (Unmarked && !GaveUp) {
    if (Arrows.size() == UnmarkedCap)
      giveUp();
    else
      Arrows.push_back(
          {A.Source, A.Dest, A.Tag, A.Bytes, A.SendSite, A.RecvSite, A.SendBegin, A.RecvEnd});
  }
  if (Next)
    Next->message(A);
}

void FarmScan::highlight(int Rank, TimeNs Begin, TimeNs End, std::string_view Label) {
  if (Next)
    Next->highlight(Rank, Begin, End, Label);
}

void FarmScan::finish() {
  if (Next)
    Next->finish();
}

std::set<std::pair<int, BlockId>> FarmScan::resultSites(const RecognizedFarm &F) const {
  std::set<std::pair<int, BlockId>> Sites;
  for (int W : F.Workers)
    for (const Send &S : Logs[size_t(W)].Sends)
      if (S.Dest == F.Master)
        Sites.insert({W, S.Site});
  return Sites;
}

std::optional<RecognizedFarm> FarmScan::recognize() const {
  if (GaveUp)
    return std::nullopt;
  RecognizedFarm F;
  uint64_t Most = 1;
  for (size_t R = 0; R < Logs.size(); ++R)
    if (Logs[R].Wildcards > Most) {
      Most = Logs[R].Wildcards;
      F.Master = int(R);
    }
  if (F.Master < 0)
    return std::nullopt;
  const RankLog &M = Logs[size_t(F.Master)];
  F.WildcardReceives = M.Wildcards;
  auto SendsBack = [&](int32_t W) {
    if (W < 0 || size_t(W) >= Logs.size() || W == F.Master)
      return false;
    const auto &S = Logs[size_t(W)].Sends;
    return std::any_of(S.begin(), S.end(), [&](const Send &X) { return X.Dest == F.Master; });
  };
  std::map<int32_t, uint64_t> TagCount;
  for (const Send &S : M.Sends)
    if (S.Bytes > 0 && SendsBack(S.Dest))
      ++TagCount[S.Tag];
  if (TagCount.empty())
    return std::nullopt;
  F.WorkTag = std::max_element(TagCount.begin(), TagCount.end(), [](auto &A, auto &B) {
                return A.second < B.second;
              })->first;
  uint64_t WorkBytes = 0;
  std::set<BlockId> WorkSites;
  for (const Send &S : M.Sends)
    if (S.Bytes > 0 && S.Tag == F.WorkTag && SendsBack(S.Dest)) {
      F.TracedWorkerOfTask.push_back(S.Dest);
      WorkBytes += S.Bytes;
      WorkSites.insert(S.Site);
      if (std::find(F.Workers.begin(), F.Workers.end(), S.Dest) == F.Workers.end())
        F.Workers.push_back(S.Dest);
    }
  const uint64_t Tasks = F.TracedWorkerOfTask.size();
  if (Tasks < 2 || M.Wildcards < Tasks)
    return std::nullopt;
  if (Unmarked) {
    if (F.Workers.size() < 2 || Tasks <= F.Workers.size())
      return std::nullopt;
    for (int W : F.Workers) {
      const RankLog &L = Logs[size_t(W)];
      if (L.ManyPeers ||
          std::any_of(L.Peers.begin(), L.Peers.end(), [&](int32_t P) { return P != F.Master; }))
        return std::nullopt;
    }
  }
  F.WorkBytes = WorkBytes / Tasks;
  uint64_t ResultBytes = 0, Results = 0;
  for (int W : F.Workers)
    for (const Send &S : Logs[size_t(W)].Sends)
      if (S.Dest == F.Master) {
        ResultBytes += S.Bytes;
        ++Results;
      }
  F.ResultBytes = Results ? ResultBytes / Results : 0;
  if (Unmarked) {
    // The first work message's start on the master; the end of the receive (or wait) that
    // took the last message a worker sent the master from its own send sites (its results).
    const std::set<std::pair<int, BlockId>> ResultSites = resultSites(F);
    for (const Arrow &A : Arrows) {
      if (A.Source == F.Master && A.Tag == F.WorkTag && WorkSites.count(A.SendSite) &&
          (F.ReplayStart < 0 || A.SendBegin < F.ReplayStart))
        F.ReplayStart = A.SendBegin;
      if (A.Dest == F.Master && ResultSites.count({A.Source, A.SendSite}))
        F.ReplayEnd = std::max(F.ReplayEnd, A.RecvEnd);
    }
    return F;
  }
  for (const auto &[Key, BeginEnd] : Spans) {
    if (Key.first != F.Master)
      continue;
    if (WorkSites.count(Key.second) && (F.ReplayStart < 0 || BeginEnd.first < F.ReplayStart))
      F.ReplayStart = BeginEnd.first;
    if (M.WildSites.count(Key.second))
      F.ReplayEnd = std::max(F.ReplayEnd, BeginEnd.second);
  }
  return F;
}

std::vector<TimeNs> FarmScan::replayedTaskTimes(const RecognizedFarm &F) const {
  if (GaveUp || !Unmarked)
    return {};
  // Per worker: its work messages' receive ends and its sends to the master's starts, both in
  // the order they were matched (one tag, one pair of ranks: MPI's non-overtaking order).
  // Only messages sent at the user's own send sites count: a lowered collective's messages
  // have the collective's site.
  std::set<std::pair<int, BlockId>> UserSites = resultSites(F);
  for (const Send &S : Logs[size_t(F.Master)].Sends)
    if (S.Tag == F.WorkTag)
      UserSites.insert({F.Master, S.Site});
  std::map<int, std::vector<TimeNs>> WorkEnds, ResultStarts;
  for (const Arrow &A : Arrows) {
    if (!UserSites.count({A.Source, A.SendSite}))
      continue;
    if (A.Source == F.Master && A.Tag == F.WorkTag && A.Bytes > 0)
      WorkEnds[A.Dest].push_back(A.RecvEnd);
    else if (A.Dest == F.Master)
      ResultStarts[A.Source].push_back(A.SendBegin);
  }
  std::map<int, size_t> NextWork, NextResult;
  std::vector<TimeNs> Times;
  Times.reserve(F.TracedWorkerOfTask.size());
  for (int W : F.TracedWorkerOfTask) {
    const std::vector<TimeNs> &Ends = WorkEnds[W];
    const std::vector<TimeNs> &Starts = ResultStarts[W];
    size_t &J = NextWork[W];
    size_t &K = NextResult[W];
    if (J == Ends.size())
      return {};
    const TimeNs Received = Ends[J++];
    // A worker may send before its first task (asking for work): the result is its first send
    // to the master that starts after the work arrived.
    while (K < Starts.size() && Starts[K] < Received)
      ++K;
    if (K == Starts.size())
      return {};
    Times.push_back(Starts[K++] - Received);
  }
  return Times;
}

} // namespace mpiete::farm
