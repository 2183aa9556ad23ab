// The message index of a run's streams, message-set matching and message-volume balancing.
#include "mpiete/whatif/Messages.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace mpiete::whatif {

using namespace estimator;

MessageIndex buildMessageIndex(std::span<EventSource *const> Sources) {
  MessageIndex X;
  X.Started.resize(Sources.size());
  X.Completions.resize(Sources.size());
  X.ReceiveCompletions.resize(Sources.size());
  Event E;
  for (size_t R = 0; R < Sources.size(); ++R) {
    std::unordered_map<uint64_t, uint32_t> Live; // request id -> message
    std::unordered_set<uint64_t> LiveRecvs;      // every receive from a rank, collectives' too
    while (Sources[R]->next(E)) {
      if (E.Kind == EventKind::SendStart || E.Kind == EventKind::RecvStart) {
        if (E.Kind == EventKind::RecvStart && E.Peer != ProcNull)
          LiveRecvs.insert(E.Request);
        if (E.Context != 0 || E.Peer == ProcNull)
          continue; // lowered collectives and null peers are not the user's messages
        if (E.Index > UINT32_MAX || X.Started[R].size() >= UINT32_MAX)
          X.Overflow = true;
        Live[E.Request] = uint32_t(X.Started[R].size());
        X.Started[R].push_back(
            {E.Count, uint32_t(E.Index), E.Peer, E.Tag, E.Kind == EventKind::RecvStart});
      } else if (E.Kind == EventKind::Completion) {
        bool Data = false;
        for (const CompletedRequest &C : E.Completed)
          Data |= LiveRecvs.erase(C.Request) > 0;
        if (Data) {
          if (E.Index > UINT32_MAX)
            X.Overflow = true;
          X.ReceiveCompletions[R].push_back(uint32_t(E.Index));
        }
        for (const CompletedRequest &C : E.Completed) {
          auto It = Live.find(C.Request);
          if (It == Live.end())
            continue;
          MessageIndex::Message &M = X.Started[R][It->second];
          if (M.Recv && C.Source >= 0)
            M.Peer = C.Source;
          if (M.Recv && C.Tag != NoStatus)
            M.Tag = C.Tag;
          if (E.Index > UINT32_MAX)
            X.Overflow = true;
          X.Completions[R].push_back({uint32_t(E.Index), It->second});
          Live.erase(It);
        }
      }
    }
  }
  return X;
}

bool MessageIndex::completes(int Rank, uint64_t Record, const MessageSet &Set) const {
  if (Rank < 0 || size_t(Rank) >= Completions.size())
    return false;
  const auto &C = Completions[size_t(Rank)];
  if (Record > UINT32_MAX)
    return false;
  for (auto It = std::lower_bound(C.begin(), C.end(), std::pair<uint32_t, uint32_t>{Record, 0});
       It != C.end() && It->first == Record; ++It) {
    const Message &M = Started[size_t(Rank)][It->second];
    if ((Set.Peer < 0 || M.Peer == Set.Peer) && (!Set.Tag || M.Tag == *Set.Tag))
      return true;
  }
  return false;
}

bool MessageIndex::waitsForData(int Rank, uint64_t Record) const {
  if (Rank < 0 || size_t(Rank) >= ReceiveCompletions.size() || Record > UINT32_MAX)
    return false;
  const auto &C = ReceiveCompletions[size_t(Rank)];
  return std::binary_search(C.begin(), C.end(), uint32_t(Record));
}

std::vector<uint64_t> MessageIndex::volumes(int Rank, const StepMap *Steps) const {
  std::vector<uint64_t> V(Steps ? Steps->steps() : 1, 0);
  for (const Message &M : Started[size_t(Rank)]) {
    if (M.Recv)
      continue;
    size_t K = Steps ? Steps->stepOf(Rank, M.Record) : 0;
    if (K < V.size())
      V[K] += M.Bytes;
  }
  return V;
}

Scenario balanceVolume(const MessageIndex &Index, const StepMap *Steps,
                       std::optional<size_t> Step) {
  const size_t NR = Index.Started.size();
  std::vector<std::vector<uint64_t>> V(NR);
  for (size_t R = 0; R < NR; ++R)
    V[R] = Index.volumes(int(R), Steps);
  Scenario S;
  S.Steps = Steps;
  const size_t NS = Steps ? Steps->steps() : 1;
  for (size_t K = 0; K < NS; ++K) {
    if (Step && *Step != K)
      continue;
    double Sum = 0;
    for (size_t R = 0; R < NR; ++R)
      Sum += double(V[R][K]);
    const double Mean = NR ? Sum / double(NR) : 0;
    for (size_t R = 0; R < NR; ++R)
      if (V[R][K] > 0 && double(V[R][K]) != Mean)
        S.VolumeFactors[{int(R), K}] = Mean / double(V[R][K]);
  }
  S.Label = !Steps ? "balance the message volume"
            : Step ? "balance the message volume of step " + std::to_string(*Step + 1)
                   : "balance the message volume of every step";
  return S;
}

bool ScenarioSource::next(Event &E) {
  if (!Inner.next(E))
    return false;
  if (E.Kind == EventKind::SendStart && E.Context == 0 && !S.VolumeFactors.empty()) {
    size_t K = S.Steps ? S.Steps->stepOf(Rank, E.Index) : 0;
    auto It = S.VolumeFactors.find({Rank, K});
    if (It != S.VolumeFactors.end())
      E.Count = uint64_t(std::llround(double(E.Count) * It->second));
  }
  return true;
}

} // namespace mpiete::whatif
