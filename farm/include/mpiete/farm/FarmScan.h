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
/// the engine's timeline sink, passing them on to Next). Keeps each rank's user sends. For a
/// program without task costs (Unmarked) it also keeps the replay's messages, to time each
/// task on its worker, and gives up (recognize() finds nothing, nothing more is kept) past a
/// memory cap (a farm's messages are a few per task: a program of many messages is no farm
/// worth re-simulating) or as soon as a second rank names two peers (a farm's workers talk to
/// the master only).
class FarmScan : public estimator::TimelineSink {
public:
  /// More user sends, or more messages, than this (over all ranks): an unmarked scan gives up.
  static constexpr size_t UnmarkedCap = size_t(1) << 18;

  FarmScan(int Ranks, estimator::TimelineSink *Next = nullptr, bool Unmarked = false);
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
  ///
  /// An unmarked scan (no task costs say the program is a farm) asks more, so that a program
  /// whose wildcard receives are no farm's (a halo exchange that takes its neighbours in
  /// arrival order) is not taken for one: at least two workers, more tasks than workers, and
  /// every worker's user messages go to and come from the master only.
  std::optional<RecognizedFarm> recognize() const;

  /// Unmarked: each task's time on its traced worker in the replay, in the master's send
  /// order: from the end of the receive of its work message to the start of the worker's
  /// next send to the master (its result). Empty when a task has no such send or the scan
  /// gave up.
  std::vector<TimeNs> replayedTaskTimes(const RecognizedFarm &F) const;
  /// Unmarked: the scan gave up (its memory cap, or a second rank with two peers) and keeps
  /// nothing more.
  bool gaveUp() const { return GaveUp; }

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
    /// Unmarked: the user peers it named (sends' destinations, receives' sources other than
    /// MPI_ANY_SOURCE), up to MaxPeers; ManyPeers past that.
    std::vector<int32_t> Peers;
    bool ManyPeers = false;
  };
  static constexpr size_t MaxPeers = 8;
  struct Arrow {
    int32_t Source, Dest, Tag;
    uint64_t Bytes;
    BlockId SendSite, RecvSite;
    TimeNs SendBegin, RecvEnd;
  };
  void notePeer(RankLog &L, int32_t Peer);
  /// (worker, site) of every user send of F's workers to its master: their results' sites.
  std::set<std::pair<int, BlockId>> resultSites(const RecognizedFarm &F) const;
  void giveUp();
  std::vector<RankLog> Logs;
  estimator::TimelineSink *Next;
  bool Unmarked = false, GaveUp = false;
  size_t SendsKept = 0;
  int RanksWithPeers = 0;    ///< ranks that named two peers or more
  std::vector<Arrow> Arrows; ///< Unmarked: the replay's messages, in the order matched
  /// (rank, site) -> earliest span begin and latest span end there (marked scans; an unmarked
  /// one takes the farm's span from its messages, which it keeps anyway).
  std::map<std::pair<int, BlockId>, std::pair<TimeNs, TimeNs>> Spans;
};

} // namespace mpiete::farm

#endif
