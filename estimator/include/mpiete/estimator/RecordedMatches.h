// Wildcard receives replayed as the recorded run matched them. A trace's calls after a wildcard
// receive follow the message the real run matched (a farm's master sends the next task to the
// worker whose result it took); when the replay matches another message (earliest predicted
// arrival, docs/estimator.md) and a later send waits for its receiver (rendezvous), the ranks
// can block each other where the real run did not. The estimate then replays again with this
// filter in front of every rank's stream (docs/estimator.md, "Wildcard receives").
#ifndef MPIETE_ESTIMATOR_RECORDEDMATCHES_H
#define MPIETE_ESTIMATOR_RECORDEDMATCHES_H

#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/FlatMap.h"

#include <cstddef>
#include <cstdint>
#include <deque>

namespace mpiete::estimator {

/// Passes In's events on, each wildcard receive (MPI_ANY_SOURCE or MPI_ANY_TAG) rewritten to
/// the source and tag its completion record says the real run matched. The receive is held
/// back, with the events after it, until that completion is read: at most MaxHeld events, past
/// which it goes on as the wildcard it was (counted in unresolved(), as are receives completed
/// without a status, freed, or never completed).
class RecordedMatchSource : public EventSource {
public:
  explicit RecordedMatchSource(EventSource &In, size_t MaxHeld = size_t(1) << 14)
      : In(In), MaxHeld(MaxHeld > 0 ? MaxHeld : 1) {}
  bool next(Event &E) override;
  std::string name() const override { return In.name(); }
  bool failed() const override { return In.failed(); }
  /// Wildcard receives given their recorded source and tag, and those passed on unchanged.
  uint64_t resolved() const { return Resolved; }
  uint64_t unresolved() const { return Unresolved; }

private:
  struct Held {
    Event E;
    bool Waiting = false; ///< a wildcard receive whose completion is not read yet
  };
  /// Reads one event of In into the buffer; false at In's end.
  bool pull();
  /// Appends E, at stream position Pos, to the buffer; a wildcard receive waits there for its
  /// completion.
  void hold(Event &&E, uint64_t Pos);
  void settle(Held &H, int32_t Source, int32_t Tag);
  /// Settles the held receive of Request, if one waits.
  void settleRequest(uint64_t Request, int32_t Source, int32_t Tag);

  EventSource &In;
  size_t MaxHeld;
  std::deque<Held> Buffer;
  uint64_t Base = 0;         ///< the stream position of Buffer.front()
  FlatMap<uint64_t> Pending; ///< request id -> stream position of its receive
  bool Ended = false;
  uint64_t Resolved = 0, Unresolved = 0;
};

} // namespace mpiete::estimator

#endif
