// The replay engine: predicts each rank's timeline from its event stream (seed 004 section
// 2.5, equations 1-7) with MPI's matching rules, eager and rendezvous protocols and wildcard
// receives matched by predicted arrival. Everything happens in global (time, sequence) order,
// so a run is deterministic. docs/method.md explains the method.
#ifndef MPIETE_ESTIMATOR_ENGINE_H
#define MPIETE_ESTIMATOR_ENGINE_H

#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/Models.h"
#include "mpiete/estimator/Timeline.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mpiete::estimator {

/// What-if assumptions the replay applies (seed 003's F2; the whatif/ component implements
/// them). Null in EngineOptions: the replay as measured, at no cost.
class ReplayAssumptions {
public:
  virtual ~ReplayAssumptions();
  /// The compute time of stream record Record on Rank (a segment From -> To, or compute block
  /// To with From 0) under the assumptions, given its time from the base data.
  virtual TimeNs compute(int Rank, uint64_t Record, BlockId From, BlockId To, TimeNs Ns) const = 0;
  /// True: the wait (completion record Record, call site Block) on Rank takes no time: its
  /// partners are taken to have started early enough (seed 003 section 2.2). The requests still
  /// complete when their messages do; the rank just does not wait for them.
  virtual bool zeroWait(int Rank, uint64_t Record, BlockId Block) const = 0;
};

/// Sees the replay's intervals and the message dependencies that ended waits: enough to build
/// seed 003's DAG of the predicted run (whatif/). Null in EngineOptions: nothing is reported.
class ReplayObserver {
public:
  virtual ~ReplayObserver();
  /// An interval of the prediction region on Rank replaying stream record Record (From: the
  /// segment's start site, else 0).
  virtual void interval(int Rank, uint64_t Record, SpanKind Kind, BlockId From, BlockId Block,
                        TimeNs Begin, TimeNs End) = 0;
  /// The wait of record Record on Rank, [Begin, End) with End > Begin, ended when Peer's
  /// message started at PeerTime arrived (or, for a rendezvous send, when Peer posted the
  /// receive at PeerTime, at call site PeerBlock).
  virtual void dependency(int Rank, uint64_t Record, TimeNs Begin, TimeNs End, int Peer,
                          TimeNs PeerTime, BlockId PeerBlock) = 0;
};

struct EngineOptions {
  /// The prediction region (seed 004 section 3.2.1): from the first execution of RegionStart
  /// to the end of RegionEnd on each rank. Unset: from the end of Init / to the start of
  /// Finalize (or the whole stream when there is none).
  /// A region whose start executes again after its end has instances (a warm-up call of the
  /// timed routine, then the real one): the i-th instance is the i-th on every rank.
  std::optional<BlockId> RegionStart, RegionEnd;
  /// What EstimateResult::Predicted and the ranks' times mean: 0 every instance (their sum),
  /// -1 the last instance, N >= 1 the N-th.
  int RegionInstance = 0;
  TimelineSink *Timeline = nullptr;
  const ReplayAssumptions *Assume = nullptr;
  ReplayObserver *Observer = nullptr;
  /// A message larger than the receive it matches is an error (the traces contradict each
  /// other); a what-if that rewrites message volumes turns it off, as its receives keep their
  /// posted sizes.
  bool AllowLargerMessages = false;
  /// How many nondeterministic receives are described in the result (all are counted).
  unsigned MaxNotes = 10;
};

struct RankResult {
  int Rank = 0;
  bool Reached = false; ///< the region started on this rank
  TimeNs Start = 0, End = 0;
  TimeNs Compute = 0, Comm = 0, Wait = 0;
  uint64_t Events = 0;
};

struct BlockResult {
  BlockId Block = 0;
  TimeNs Compute = 0, Comm = 0, Wait = 0;
  uint64_t Executions = 0; ///< records (a loop record counts once)
  TimeNs total() const { return Compute + Comm + Wait; }
};

/// One compute segment's time summed over ranks (segment mode), in the region.
struct SegmentResult {
  BlockId From = 0, To = 0;
  TimeNs Compute = 0;
  uint64_t Executions = 0;
  /// Executions past the ones the compute base data measured, which take the segment's mean:
  /// the iterations a capped timing probe skipped (probe-compute --cap), or a timing run that
  /// made the segment fewer times than the traces. Their compute time.
  uint64_t Unmeasured = 0;
  TimeNs UnmeasuredCompute = 0;
};

/// One instance of the prediction region: from its earliest start on any rank to its latest
/// end.
struct RegionInstanceResult {
  TimeNs Start = 0, End = 0;
  unsigned Ranks = 0; ///< ranks that reached it
  TimeNs predicted() const { return End - Start; }
};

struct EngineError {
  std::string File; ///< the trace the error is about; empty for the whole run
  std::string Message;
};

struct EstimateResult {
  bool Ok = false;
  /// The chosen region instance's time (EngineOptions::RegionInstance); with every instance,
  /// their sum. One instance: its latest end minus its earliest start.
  TimeNs Predicted = 0;
  std::vector<RegionInstanceResult> Instances;
  TimeNs InstancesTotal = 0;           ///< the sum of every instance's time
  int RegionInstance = 0;              ///< the option Predicted follows
  std::vector<RankResult> Ranks;       ///< the chosen instances' times on each rank
  std::vector<BlockResult> Blocks;     ///< sorted by block id; every instance
  std::vector<SegmentResult> Segments; ///< sorted by (from, to); every instance
  uint64_t Events = 0, Messages = 0;
  uint64_t NondeterministicReceives = 0;
  uint64_t WildcardReceives = 0; ///< receives posted with MPI_ANY_SOURCE or MPI_ANY_TAG
  std::vector<std::string> NondeterminismNotes;
  std::vector<EngineError> Errors;
  /// The replay ended with ranks blocked or messages unmatched (Errors says which).
  bool Stuck = false;

  double predictedSeconds() const { return double(Predicted) * 1e-9; }
  /// Ended stuck after posting wildcard receives: a replay that follows the recorded matches
  /// (RecordedMatchSource) may get through where this one, matching by predicted arrival,
  /// did not.
  bool stuckOnWildcards() const { return !Ok && Stuck && WildcardReceives > 0; }
  /// The N blocks with the largest total time, largest first (ties by block id).
  std::vector<BlockResult> topBlocks(size_t N) const;
  /// The N segments with the largest compute time, largest first.
  std::vector<SegmentResult> topSegments(size_t N) const;
};

class Engine {
public:
  /// The models must outlive the engine.
  Engine(const ComputeModel &Compute, const NetworkModel &Network, EngineOptions Options = {});
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// Replays one stream per rank (index = world rank). An Engine runs once.
  EstimateResult run(std::span<EventSource *const> Sources);

private:
  /// The replay's state and steps (estimator/lib/EngineImpl.h), kept out of this header so
  /// that no user depends on them.
  class Impl;
  std::unique_ptr<Impl> State;
};

} // namespace mpiete::estimator

#endif
