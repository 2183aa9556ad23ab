// Seed 003's DAG of a predicted run: the replay's intervals as vertices, program order and the
// messages that ended waits as edges (Boost.Graph), its critical path and the F3 bound.
#ifndef MPIETE_WHATIF_RUNGRAPH_H
#define MPIETE_WHATIF_RUNGRAPH_H

#include "mpiete/estimator/Engine.h"
#include "mpiete/whatif/Scenario.h"

#include <string>
#include <vector>

namespace mpiete::whatif {

using estimator::SpanKind;

/// One interval of one rank in the predicted run.
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
// Recorded for every interval of the run: its size is the recorder's memory (docs/whatif.md).
static_assert(sizeof(Interval) <= 72);

/// Records a replay through EngineOptions::Observer. Memory grows with the run's intervals
/// (docs/whatif.md gives the figures).
class RunRecorder : public estimator::ReplayObserver {
public:
  explicit RunRecorder(int Ranks) : PerRank(size_t(Ranks)) {}
  void interval(int Rank, uint64_t Record, SpanKind Kind, BlockId From, BlockId Block, TimeNs Begin,
                TimeNs End) override;
  void dependency(int Rank, uint64_t Record, TimeNs Begin, TimeNs End, int Peer, TimeNs PeerTime,
                  BlockId PeerBlock) override;
  /// Each rank's intervals in time order.
  std::vector<std::vector<Interval>> PerRank;
  /// The interval of Rank holding time T (the last one starting at or before it); -1 if none.
  long find(int Rank, TimeNs T) const;
  /// The last interval of Rank over by time T (End <= T): what an event of Rank at T follows.
  /// -1 if none.
  long findBefore(int Rank, TimeNs T) const;
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
  TimeNs Length = 0; ///< the longest path: the predicted end of the last rank
  std::vector<PathStep> Steps;
};

/// Builds the DAG of Run and returns its longest path (from the vertices with no predecessor
/// to the last interval of the run). Empty if the run has no intervals.
CriticalPath criticalPath(const RunRecorder &Run);

/// F3 (seed 003 section 4.1): the predicted time as the largest per-rank sum of compute, comm
/// and wait times under Scenario's compute and wait assumptions, without rebuilding the DAG.
/// Network what-ifs are not applied (comm times are summed as they are). An upper bound on the
/// improvement only: waits caused by the changed times are not re-derived. NoWaits: every wait
/// counts zero, whatever S says.
TimeNs sumOfTimesBound(const RunRecorder &Run, const Scenario &S, bool NoWaits = false);

} // namespace mpiete::whatif

#endif
