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

FarmScan::FarmScan(int Ranks, TimelineSink *Next) : Logs(size_t(Ranks)), Next(Next) {}

std::unique_ptr<EventSource> FarmScan::watch(int Rank, EventSource &Inner) {
  return std::make_unique<WatchedSource>(*this, Rank, Inner);
}

void FarmScan::see(int Rank, const Event &E) {
  if (E.Context != 0 || size_t(Rank) >= Logs.size())
    return; // lowered collectives are no farm's messages
  RankLog &L = Logs[size_t(Rank)];
  switch (E.Kind) {
  case EventKind::SendStart:
    L.Sends.push_back({E.Peer, E.Tag, E.Count, E.Block});
    break;
  case EventKind::RecvStart:
    if (E.Peer == AnySource)
      L.WildRequests.insert(E.Request);
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
  if (Kind != SpanKind::Compute) {
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

std::optional<RecognizedFarm> FarmScan::recognize() const {
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
  F.WorkBytes = WorkBytes / Tasks;
  uint64_t ResultBytes = 0, Results = 0;
  for (int W : F.Workers)
    for (const Send &S : Logs[size_t(W)].Sends)
      if (S.Dest == F.Master) {
        ResultBytes += S.Bytes;
        ++Results;
      }
  F.ResultBytes = Results ? ResultBytes / Results : 0;
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

} // namespace mpiete::farm
