// The point-to-point messages of a run's streams (who sends what to whom, which completion
// waits for which), for what-ifs on message sets and on the message volume of a step.
#ifndef MPIETE_WHATIF_MESSAGES_H
#define MPIETE_WHATIF_MESSAGES_H

#include "mpiete/whatif/Scenario.h"

#include <deque>
#include <span>
#include <vector>

namespace mpiete::whatif {

/// Per rank, the sends and receives started and the completion records that completed them.
/// Records are kept as 32-bit numbers (24 bytes a message, 8 a completed request, in chunked
/// storage that never copies on growth: docs/whatif.md's memory figures).
struct MessageIndex {
  struct Message {
    uint64_t Bytes = 0;
    uint32_t Record = 0; ///< the start record (a blocking call's start and completion share it)
    int32_t Peer = 0;    ///< destination of a send; source of a receive (the matched one)
    int32_t Tag = 0;     ///< the matched tag for a receive
    bool Recv = false;
  };
  static_assert(sizeof(Message) == 24);
  std::vector<std::deque<Message>> Started;
  /// Per rank: (completion record, index into Started), by record.
  std::vector<std::deque<std::pair<uint32_t, uint32_t>>> Completions;
  /// Per rank, ascending: the completion records that complete a receive from another rank, in
  /// any context (a lowered collective's too). Such a wait is for data its sender has not sent
  /// yet, which no change of the waiting call removes (docs/whatif.md, "Waits for data").
  std::vector<std::deque<uint32_t>> ReceiveCompletions;
  /// A record number did not fit 32 bits: the index is unusable (analyse a region instead).
  bool Overflow = false;

  /// True when the completion Record of Rank completes a message of Set (peer and tag).
  bool completes(int Rank, uint64_t Record, const MessageSet &Set) const;
  /// True when Rank's completion Record completes a receive from another rank.
  bool waitsForData(int Rank, uint64_t Record) const;
  /// Bytes Rank sends point-to-point in each step of Steps (null: one step, the whole run).
  std::vector<uint64_t> volumes(int Rank, const StepMap *Steps) const;
};

/// Reads each source once (sources are consumed). Receives take the source and tag of the
/// message they matched in the real run when its status was recorded.
MessageIndex buildMessageIndex(std::span<estimator::EventSource *const> Sources);

/// The point-to-point bytes each rank sends in step Step (nullopt: in every step, each on its
/// own; Steps null: over the whole run) made the mean over ranks (seed 003 section 3.2's
/// "communication volume equal"): each rank's sends there scaled by mean/own. Ranks sending
/// nothing keep nothing.
Scenario balanceVolume(const MessageIndex &Index, const StepMap *Steps, std::optional<size_t> Step);

/// A stream with a scenario's message-volume factors applied to its sends (the engine then
/// re-derives transfer times and the eager/rendezvous choice). Receives keep their posted
/// sizes, so the receive start overhead stays that of the buffer (docs/whatif.md).
class ScenarioSource : public estimator::EventSource {
public:
  ScenarioSource(estimator::EventSource &Inner, int Rank, const Scenario &S)
      : Inner(Inner), Rank(Rank), S(S) {}
  bool next(estimator::Event &E) override;
  std::string name() const override { return Inner.name(); }
  bool failed() const override { return Inner.failed(); }

private:
  estimator::EventSource &Inner;
  int Rank;
  const Scenario &S;
};

} // namespace mpiete::whatif

#endif
