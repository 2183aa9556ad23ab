// The engine's contention model: transfers between nodes stream as fluid flows through their
// nodes' egress and ingress links, transfers within a node (with endpoint sharing) through
// their ranks' endpoints, at the max-min fair rates LinkSharing gives them.
#include "EngineImpl.h"
#include "RoundNs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mpiete::estimator {

uint32_t Engine::Impl::newFlow(int32_t Src, int32_t Dst, const LinkModel &L, uint64_t Bytes,
                               TimeNs End, TimeNs Now, bool Packed, TimeNs Begin) {
  if (!Contention || Src == Dst)
    return NoIndex;
  int32_t A = NodeLinks ? NodeOf[uint32_t(Src)] : -1, B = NodeLinks ? NodeOf[uint32_t(Dst)] : -1;
  bool Between = A >= 0 && B >= 0 && A != B;
  // Within a node (or on a network without nodes): through the ranks' endpoints when the
  // network's transfers share them, else not shared at all.
  if (!Between && (!Endpoints || L.endpointRate() <= 0))
    return NoIndex;
  TimeNs Stream = L.streamTime(Bytes);
  // A flow alone fills its links at the sustained rate, whatever its own rate (an eager one
  // streams faster, but for a shorter time): the link share it takes at its own pace.
  double Rate = L.sustainedStreamRate();
  if (Stream <= 0 || Rate <= 0 || L.streamRate(Bytes) <= 0)
    return NoIndex;
  if (Packed && !Between && L.packedFlowRate() > 0) {
    // Both processors pack and unpack piece by piece: the whole transfer but its fixed part
    // is their work, which a rank's other transfers share (docs/estimator.md, "Contention").
    Stream = std::max<TimeNs>(0, End - Begin - (L.transfer(Bytes) - Stream));
    Rate = L.packedFlowRate();
  }
  // The streaming is the last part of the transfer. A rendezvous matched after its streaming
  // would have begun (the receive was posted while the envelope was on its way) has streamed
  // alone until now.
  TimeNs At = End - Stream;
  double Remaining = double(Stream);
  if (At < Now) {
    Remaining -= double(Now - At);
    At = Now;
  }
  if (Remaining <= 0)
    return NoIndex;
  uint32_t F = takeSlot(Flows, FreeFlows);
  Flow &W = Flows[F];
  W = Flow();
  W.Remaining = Remaining;
  W.Cap = Rate;
  if (Between) {
    W.Links[0] = uint32_t(A) * 2;     // egress of the sender's node
    W.Links[1] = uint32_t(B) * 2 + 1; // ingress of the receiver's node
  } else {
    W.Links[0] = EndpointBase + uint32_t(Src);
    W.Links[1] = EndpointBase + uint32_t(Dst);
  }
  push(At, QueueKind::FlowStart, F);
  return F;
}

namespace {
struct LaterMark {
  bool operator()(const std::pair<double, uint32_t> &A,
                  const std::pair<double, uint32_t> &B) const {
    return A.first != B.first ? A.first > B.first : A.second > B.second;
  }
};
} // namespace

void Engine::Impl::startFlow(uint32_t F, TimeNs Now) {
  LinkSharing::GroupId C = Sharing.addFlow(Flows[F].Links, Flows[F].Cap);
  if (C >= Classes.size())
    Classes.resize(C + 1);
  FlowClass &K = Classes[C];
  if (K.Members.empty()) {
    K.Work = 0;
    K.Fraction = 0;
    K.End = std::numeric_limits<TimeNs>::max(); // until shared out
  } else {
    K.Work += K.Fraction * double(Now - K.Updated);
  }
  K.Updated = Now;
  K.Members.emplace_back(K.Work + Flows[F].Remaining, F);
  std::push_heap(K.Members.begin(), K.Members.end(), LaterMark());
  FlowsDirty = true;
  DirtyTime = Now;
}

void Engine::Impl::endFlows(TimeNs Now) {
  // Backwards: a group that empties takes the last one's place, already looked at.
  for (size_t I = Sharing.activeGroups().size(); I-- > 0;) {
    LinkSharing::GroupId C = Sharing.activeGroups()[I];
    FlowClass &K = Classes[C];
    if (K.End > Now)
      continue;
    K.Work += K.Fraction * double(Now - K.Updated);
    K.Updated = Now;
    // The end was rounded to a nanosecond, half a nanosecond of progress at most. A member
    // that joined at this instant has at least a nanosecond to go.
    double Due = K.Work + 0.5 * K.Fraction + 1e-12 * K.Work;
    while (!K.Members.empty() && K.Members.front().first <= Due) {
      uint32_t F = K.Members.front().second;
      std::pop_heap(K.Members.begin(), K.Members.end(), LaterMark());
      K.Members.pop_back();
      Sharing.removeFlow(C);
      finishFlow(F, Now);
    }
  }
  FlowsDirty = true;
  DirtyTime = Now;
}

void Engine::Impl::finishFlow(uint32_t F, TimeNs Now) {
  const Flow W = Flows[F];
  FreeFlows.push_back(F);
  if (W.Env != NoIndex) {
    Envelopes[W.Env].Arrival = Now;
    Envelopes[W.Env].InTransit = false;
    drainChannel(Envelopes[W.Env].Channel);
    return;
  }
  complete(W.Recv, Now);
  if (W.Send != NoIndex)
    complete(W.Send, Now);
}

void Engine::Impl::reshare(TimeNs Now) {
  FlowsDirty = false;
  Sharing.solve();
  // Progress at the old rates up to now, then the new rates from here on. One queue entry for
  // the earliest end; an entry for an end that moved goes stale.
  TimeNs Next = std::numeric_limits<TimeNs>::max();
  for (LinkSharing::GroupId C : Sharing.activeGroups()) {
    FlowClass &K = Classes[C];
    K.Work += K.Fraction * double(Now - K.Updated);
    K.Updated = Now;
    if (K.Work > 1e9) {
      // Marks relative to a recent origin keep their rounding far below a nanosecond.
      for (std::pair<double, uint32_t> &M : K.Members)
        M.first -= K.Work;
      K.Work = 0;
    }
    // Exactly 1 at the own rate, so that a flow alone takes exactly its own time.
    K.Fraction = Sharing.atBound(C) ? 1 : std::max(Sharing.rate(C) / Sharing.bound(C), 1e-12);
    double Left = std::max(0.0, K.Members.front().first - K.Work);
    K.End = Now + (K.Fraction == 1 ? roundNs(Left) : roundNs(Left / K.Fraction));
    Next = std::min(Next, K.End);
  }
  if (Sharing.activeGroups().empty()) {
    FlowEndSeq = ~uint64_t(0);
    return;
  }
  if (FlowEndSeq != ~uint64_t(0) && FlowEndAt == Next)
    return;
  FlowEndSeq = Seq;
  FlowEndAt = Next;
  push(Next, QueueKind::FlowEnd, 0);
}

} // namespace mpiete::estimator
