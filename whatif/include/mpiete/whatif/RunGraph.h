// Seed 003's DAG of a predicted run: the replay's intervals as vertices, program order and the
// messages that ended waits as edges (implicit: docs/whatif.md), its critical path and the F3
// bound.
#ifndef MPIETE_WHATIF_RUNGRAPH_H
#define MPIETE_WHATIF_RUNGRAPH_H

#include "mpiete/estimator/Engine.h"
#include "mpiete/whatif/Scenario.h"

#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mpiete::whatif {

using estimator::SpanKind;

/// One interval of one rank in the predicted run, as the analysis reads it (RunRecorder::at
/// unpacks it from the recorder's compact records).
struct Interval {
  uint64_t Record = 0;
  BlockId From = 0, Block = 0;
  TimeNs Begin = 0, End = 0;
  /// A wait ended by a message: whose event (rank, time, call site) it waited for; Peer -1 if
  /// none.
  TimeNs PeerTime = 0;
  BlockId PeerBlock = 0;
  int32_t Rank = 0;
  int32_t Peer = -1;
  SpanKind Kind = SpanKind::Compute;
};

/// Records a replay through EngineOptions::Observer. Memory grows with the run's intervals:
/// 24 bytes each (the interval's times, its record and its segment as 32-bit indices, the
/// kind in the index's top bits) plus 24 per wait ended by a message, in chunked storage that
/// never copies on growth (docs/whatif.md gives the figures).
class RunRecorder : public estimator::ReplayObserver {
public:
  explicit RunRecorder(int Ranks) : Runs(size_t(Ranks)), Peers(size_t(Ranks)) {}
  void interval(int Rank, uint64_t Record, SpanKind Kind, BlockId From, BlockId Block, TimeNs Begin,
                TimeNs End) override;
  void dependency(int Rank, uint64_t Record, TimeNs Begin, TimeNs End, int Peer, TimeNs PeerTime,
                  BlockId PeerBlock) override;
  int ranks() const { return int(Runs.size()); }
  /// Rank's intervals, in time order.
  size_t size(int Rank) const { return Runs[size_t(Rank)].size(); }
  bool empty() const;
  /// Rank's interval I (I < size(Rank)).
  Interval at(int Rank, size_t I) const;
  /// The interval of Rank holding time T (the last one starting at or before it); -1 if none.
  long find(int Rank, TimeNs T) const;
  /// The last interval of Rank over by time T (End <= T): what an event of Rank at T follows.
  /// -1 if none.
  long findBefore(int Rank, TimeNs T) const;
  /// A record or segment number did not fit the compact records' 32 bits (or 30 for the
  /// segments): the recording is unusable (analyse a region of the run instead).
  bool overflowed() const { return Overflow; }

private:
  static constexpr unsigned KindShift = 30;
  struct Packed {
    TimeNs Begin, End;
    uint32_t Record;
    uint32_t SegmentAndKind; ///< the index into Segments, the kind in the top 2 bits
  };
  static_assert(sizeof(Packed) == 24);
  struct PeerOf {
    TimeNs PeerTime;
    uint32_t Index; ///< the wait's interval
    int32_t Peer;
    BlockId PeerBlock;
  };
  static_assert(sizeof(PeerOf) == 24);
  std::vector<std::deque<Packed>> Runs;
  std::vector<std::deque<PeerOf>> Peers;
  std::vector<std::pair<BlockId, BlockId>> Segments;
  std::unordered_map<BlockId, std::unordered_map<BlockId, uint32_t>> SegmentIndex;
  bool Overflow = false;
};

/// One step of the critical path, latest first.
struct PathStep {
  Interval At;
  /// The part of the predicted time it accounts for; a wait reached through its message is
  /// the message's flight (kind Comm).
  TimeNs Seconds = 0;
  SpanKind Kind = SpanKind::Compute;
};

struct CriticalPath {
  TimeNs Length = 0;    ///< the longest path: the predicted end of the last rank
  size_t Intervals = 0; ///< its length in intervals
  std::vector<PathStep> Steps;
};

/// The longest path of Run's DAG (seed 003: intervals as vertices, program order and the
/// messages that ended waits as edges) from the run's start to the last interval of the run,
/// with its steps. Empty if the run has no intervals.
CriticalPath criticalPath(const RunRecorder &Run);
/// The same path, each step handed to Visit (latest first) instead of stored: the path can be
/// as long as the run. Returns the path without its steps.
CriticalPath walkCriticalPath(const RunRecorder &Run,
                              const std::function<void(const PathStep &)> &Visit);

/// F3 (seed 003 section 4.1): the predicted time as the largest per-rank sum of compute, comm
/// and wait times under Scenario's compute and wait assumptions, without rebuilding the DAG.
/// Network what-ifs are not applied (comm times are summed as they are). An upper bound on the
/// improvement only: waits caused by the changed times are not re-derived. NoWaits: every wait
/// counts zero, whatever S says.
TimeNs sumOfTimesBound(const RunRecorder &Run, const Scenario &S, bool NoWaits = false);

} // namespace mpiete::whatif

#endif
