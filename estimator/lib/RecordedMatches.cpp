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
  --PendingCount;
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

bool RecordedMatchSource::pull() {
  Event E;
  if (!In.next(E))
    return false;
  const uint64_t Pos = Base + Buffer.size();
  if (PendingCount > 0) {
    if (E.Kind == EventKind::Completion) {
      for (const CompletedRequest &C : E.Completed)
        if (uint64_t *At = Pending.find(C.Request)) {
          settle(Buffer[size_t(*At - Base)], C.Source, C.Tag);
          Pending.erase(C.Request);
        }
    } else if (E.Kind == EventKind::RequestFree) {
      if (uint64_t *At = Pending.find(E.Request)) {
        settle(Buffer[size_t(*At - Base)], NoStatus, NoStatus);
        Pending.erase(E.Request);
      }
    }
  }
  const bool Wait = wildcardReceive(E);
  if (Wait) {
    // A request id reused before the earlier receive completed would be a broken trace; the
    // earlier one then goes on as it was.
    if (uint64_t *At = Pending.find(E.Request)) {
      settle(Buffer[size_t(*At - Base)], NoStatus, NoStatus);
      Pending.erase(E.Request);
    }
    Pending.getOrInsert(E.Request, Pos) = Pos;
    ++PendingCount;
  }
  Buffer.push_back({std::move(E), Wait});
  return true;
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
      if (H.Waiting) { // the stream ended or the look-ahead is used up: as recorded, a wildcard
        Pending.erase(H.E.Request);
        settle(H, NoStatus, NoStatus);
      }
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
    Pending.getOrInsert(E.Request, Base) = Base;
    ++PendingCount;
    Buffer.push_back({std::move(E), true});
  }
}

} // namespace mpiete::estimator
