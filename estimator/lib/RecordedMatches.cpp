// Wildcard receives replayed as the recorded run matched them (RecordedMatches.h).
#include "mpiete/estimator/RecordedMatches.h"

#include <utility>

namespace mpiete::estimator {

namespace {

bool wildcardReceive(const Event &E) {
  return E.Kind == EventKind::RecvStart && E.Peer != ProcNull &&
         (E.Peer == AnySource || E.Tag == AnyTag);
}

} // namespace

void RecordedMatchSource::settle(Held &H, int32_t Source, int32_t Tag) {
  H.Waiting = false;
  bool Known = true;
  if (H.E.Peer == AnySource) {
    if (Source >= 0)
      H.E.Peer = Source;
    else
      Known = false;
  }
  if (H.E.Tag == AnyTag) {
    if (Tag >= 0)
      H.E.Tag = Tag;
    else
      Known = false;
  }
  ++(Known ? Resolved : Unresolved);
}

void RecordedMatchSource::settleRequest(uint64_t Request, int32_t Source, int32_t Tag) {
  if (uint64_t *At = Pending.find(Request)) {
    settle(Buffer[size_t(*At - Base)], Source, Tag);
    Pending.erase(Request);
  }
}

bool RecordedMatchSource::pull() {
  Event E;
  if (!In.next(E))
    return false;
  const uint64_t Pos = Base + Buffer.size();
  if (Pending.size() > 0) {
    if (E.Kind == EventKind::Completion) {
      for (const CompletedRequest &C : E.Completed)
        settleRequest(C.Request, C.Source, C.Tag);
    } else if (E.Kind == EventKind::RequestFree) {
      settleRequest(E.Request, NoStatus, NoStatus);
    }
  }
  hold(std::move(E), Pos);
  return true;
}

void RecordedMatchSource::hold(Event &&E, uint64_t Pos) {
  const bool Wait = wildcardReceive(E);
  if (Wait) {
    // A request id reused before the earlier receive completed would be a broken trace; the
    // earlier one then goes on as it was.
    settleRequest(E.Request, NoStatus, NoStatus);
    Pending.getOrInsert(E.Request, Pos) = Pos;
  }
  Buffer.push_back({std::move(E), Wait});
}

bool RecordedMatchSource::next(Event &E) {
  for (;;) {
    if (!Buffer.empty()) {
      Held &H = Buffer.front();
      if (H.Waiting && !Ended && Buffer.size() <= MaxHeld) {
        if (!pull())
          Ended = true;
        continue;
      }
      if (H.Waiting) // the stream ended or the look-ahead is used up: as recorded, a wildcard
        settleRequest(H.E.Request, NoStatus, NoStatus);
      E = std::move(H.E);
      Buffer.pop_front();
      ++Base;
      return true;
    }
    if (Ended || !In.next(E))
      return (Ended = true, false);
    // Nothing held: an event other than a wildcard receive goes straight on.
    if (!wildcardReceive(E)) {
      ++Base;
      return true;
    }
    hold(std::move(E), Base);
  }
}

} // namespace mpiete::estimator
