// What-if assumptions of seed 003's F2 (a wait zeroed, compute scaled, a step balanced, the
// network changed) as the replay engine's ReplayAssumptions and a scaled network model.
#ifndef MPIETE_WHATIF_SCENARIO_H
#define MPIETE_WHATIF_SCENARIO_H

#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/Models.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mpiete::whatif {

using estimator::BlockId;
using estimator::TimeNs;

/// Compute whose segment ends at To (From 0: any start; for compute blocks the block) scaled.
struct ComputeScale {
  BlockId From = 0, To = 0;
  double Factor = 1;
};

/// Network what-ifs (factors on the base data; 1 leaves it). Latency is the zero-byte transfer
/// time, bandwidth divides the size-dependent rest, overheads scale the start costs.
struct NetworkScale {
  double Latency = 1, Bandwidth = 1, Overhead = 1;
  std::optional<uint64_t> EagerLimit;
  bool any() const { return Latency != 1 || Bandwidth != 1 || Overhead != 1 || EagerLimit; }
};

/// Per rank, the stream record at which each parallel step ends (inclusive), ascending: a step
/// closes with each run of records of the step's call site (docs/whatif.md).
struct StepMap {
  BlockId Site = 0;
  std::vector<std::vector<uint64_t>> Ends;
  /// The step (from 0) record Record of Rank belongs to; steps() for the records after the last.
  size_t stepOf(int Rank, uint64_t Record) const;
  size_t steps() const;
};
/// Reads each source once (sources are consumed).
StepMap buildStepMap(std::span<estimator::EventSource *const> Sources, BlockId Site);

struct MessageIndex;

/// A set of waits by the messages they wait for (seed 003's "a given message set to zero"):
/// every field left at its default matches anything. Rank is the waiting rank, Site its call
/// site, Peer the partner rank (source of a receive, destination of a send), Tag the tag.
/// Peer and Tag need Scenario::Messages (the requests each completion record completes).
struct MessageSet {
  int Rank = -1;
  BlockId Site = 0;
  int Peer = -1;
  std::optional<int> Tag;
  bool needsIndex() const { return Peer >= 0 || Tag.has_value(); }
};

/// One combination of assumptions.
struct Scenario {
  std::set<std::pair<int, uint64_t>> ZeroWaitEvents; ///< (rank, record)
  std::set<BlockId> ZeroWaitSites;                   ///< every wait at these call sites
  std::vector<MessageSet> ZeroWaitMessages;          ///< every wait for these messages
  const MessageIndex *Messages = nullptr;            ///< for sets by peer or tag
  /// The remedies' meaning of a zeroed wait: only waits a non-blocking or reordered call
  /// removes (a send held until its receiver posts). A wait completing a receive is for data
  /// its sender has not sent yet and stays; the replay re-derives it (needs Messages). Off:
  /// seed 003's meaning, every named wait zeroed (its partner started early enough).
  bool KeepDataWaits = false;
  std::vector<ComputeScale> Scales;
  /// Per (rank, record range): a factor, set by balance() from a base run's compute.
  std::map<std::pair<int, size_t>, double> StepFactors; ///< (rank, step) -> factor
  std::map<std::pair<int, std::pair<BlockId, BlockId>>, double> SegmentFactors;
  /// (rank, step) -> factor on the bytes of the rank's point-to-point sends in that step (Steps
  /// null: step 0 is the whole run); applied by ScenarioSource to the streams.
  std::map<std::pair<int, size_t>, double> VolumeFactors;
  const StepMap *Steps = nullptr;
  NetworkScale Net;
  std::string Label; ///< what a person reads ("balance step 3", ...)

  bool empty() const {
    return ZeroWaitEvents.empty() && ZeroWaitSites.empty() && ZeroWaitMessages.empty() &&
           Scales.empty() && StepFactors.empty() && SegmentFactors.empty() &&
           VolumeFactors.empty() && !Net.any();
  }
  /// Adds Other's assumptions (a combination).
  void merge(const Scenario &Other);
};

/// The replay hook for a scenario.
class ScenarioAssumptions : public estimator::ReplayAssumptions {
public:
  explicit ScenarioAssumptions(const Scenario &S) : S(S) {}
  TimeNs compute(int Rank, uint64_t Record, BlockId From, BlockId To, TimeNs Ns) const override;
  bool zeroWait(int Rank, uint64_t Record, BlockId Block) const override;

private:
  const Scenario &S;
};

/// A network model with every link scaled by a NetworkScale.
class ScaledNetworkModel : public estimator::NetworkModel {
public:
  ScaledNetworkModel(const estimator::NetworkModel &Base, NetworkScale Scale)
      : Base(Base), Scale(Scale) {}
  ~ScaledNetworkModel() override;
  const estimator::LinkModel &link(int Src, int Dst) const override;
  int nodeCount() const override { return Base.nodeCount(); }
  int nodeOf(int Rank) const override { return Base.nodeOf(Rank); }
  double linkCapacity() const override { return Base.linkCapacity() * Scale.Bandwidth; }

private:
  const estimator::NetworkModel &Base;
  NetworkScale Scale;
  mutable std::map<const estimator::LinkModel *, std::unique_ptr<estimator::LinkModel>> Links;
};

} // namespace mpiete::whatif

#endif
