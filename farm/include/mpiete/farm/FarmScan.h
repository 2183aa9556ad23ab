// Finds a task farm in the program base data as the engine replays it: a master whose
// wildcard receives collect results from workers it sent work to, and the replay's farm span.
#ifndef MPIETE_FARM_FARMSCAN_H
#define MPIETE_FARM_FARMSCAN_H

#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/Timeline.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>
#include <vector>

namespace mpiete::farm {

using estimator::BlockId;
using estimator::TimeNs;

struct RecognizedFarm {
  int Master = -1;
  std::vector<int> Workers;            ///< in the order of their first work message
  std::vector<int> TracedWorkerOfTask; ///< each work message's destination, in send order
  int WorkTag = 0;
  uint64_t WorkBytes = 0, ResultBytes = 0; ///< the messages' mean sizes
  uint64_t WildcardReceives = 0;           ///< the master's wildcard receives and probes
  /// The replay's farm on the master (with the traced assignment): the start of its first
  /// work send and the end of its last wildcard receive; -1 if the replay did not reach them.
  TimeNs ReplayStart = -1, ReplayEnd = -1;
};

/// Sees every event on its way to the engine (watch) and every span the engine charges (as
/// the engine's timeline sink, passing them on to Next). Keeps each rank's user sends, so it
/// is only set up for programs that have task costs (tasks.yaml).
class FarmScan : public estimator::TimelineSink {
public:
  FarmScan(int Ranks, estimator::TimelineSink *Next = nullptr);
  /// A source that passes Inner's events on and shows them to this scan as rank Rank's.
  std::unique_ptr<estimator::EventSource> watch(int Rank, estimator::EventSource &Inner);
  void see(int Rank, const estimator::Event &E);

  void span(int Rank, estimator::SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) override;
  void message(const estimator::MessageArrow &A) override;
  void highlight(int Rank, TimeNs Begin, TimeNs End, std::string_view Label) override;
  void finish() override;

  /// The farm, when there is one: the rank with the most wildcard receives (at least two),
  /// the ranks it sent to that sent back to it, the work messages (its sends to them with the
  /// most frequent tag among non-empty ones), and at least as many wildcard receives as work
  /// messages.
  std::optional<RecognizedFarm> recognize() const;

private:
  struct Send {
    int32_t Dest, Tag;
    uint64_t Bytes;
    BlockId Site;
  };
  struct RankLog {
    std::vector<Send> Sends;
    std::unordered_set<uint64_t> WildRequests;
    uint64_t Wildcards = 0;
    std::set<BlockId> WildSites;
  };
  std::vector<RankLog> Logs;
  estimator::TimelineSink *Next;
  /// (rank, site) -> earliest span begin and latest span end there.
  std::map<std::pair<int, BlockId>, std::pair<TimeNs, TimeNs>> Spans;
};

} // namespace mpiete::farm

#endif
