// Seed 003's F1 (where to fix: critical path shares, the domino path of figure 3, the parallel
// step whose balancing shortens the run most, ranked suggestions) on top of F2 replays, and
// the report writers (text, YAML, JSON).
#ifndef MPIETE_WHATIF_ANALYSIS_H
#define MPIETE_WHATIF_ANALYSIS_H

#include "mpiete/whatif/Messages.h"
#include "mpiete/whatif/RunGraph.h"
#include "mpiete/whatif/Scenario.h"

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete::whatif {

struct ReplayOutcome {
  bool Ok = false;
  TimeNs Predicted = 0;
  std::string Error;
};

/// One replay of the same base data under S (null: as measured), recorded into Rec if given.
/// The caller opens fresh event sources for each call.
using Replayer = std::function<ReplayOutcome(const Scenario *S, RunRecorder *Rec)>;

/// Compute of each rank balanced to the mean over ranks (seed 003 section 3.2): in one step
/// (Step), in every step (nullopt), or in one segment From -> To over the whole run (Steps
/// null; From 0: every computation ending at To, whatever call it starts after): the mean over
/// the ranks with compute there; ranks without keep none (the work is conserved).
Scenario balanceSteps(const RunRecorder &Base, const StepMap &Steps, std::optional<size_t> Step);
Scenario balanceSegment(const RunRecorder &Base, BlockId From, BlockId To);

/// Which list a suggestion is ranked in (docs/whatif.md, "Remedies and sensitivities").
enum class SuggestionClass : uint8_t {
  Remedy,      ///< a change of the program's structure (balance, overlap, a domino chain)
  Sensitivity, ///< what if a part of the run were faster: where the time goes, not a change
  Bound,       ///< F3, summed without rebuilding the DAG
};
/// "remedy", "sensitivity", "bound"; the plural names the list in the report.
const char *suggestionClassName(SuggestionClass C, bool Plural = false);

struct Suggestion {
  SuggestionClass Class = SuggestionClass::Remedy;
  unsigned Rank = 0; ///< within its class, by predicted time (equal times, equal ranks)
  std::string Kind;  ///< remedies: domino, domino-sites, zero-wait-site, balance-step,
                     ///< balance-segment, balance-volume; sensitivities: faster-kernel,
                     ///< faster-network; bound
  std::string What, Where;
  TimeNs Predicted = 0, Saving = 0;
  bool Bound = false;
  Scenario Assume;
};

struct CriticalShare {
  std::string Where;
  SpanKind Kind = SpanKind::Compute;
  TimeNs Seconds = 0;
  double Share = 0;
};

struct DominoPath {
  std::vector<std::pair<int, uint64_t>> Waits; ///< (rank, record) zeroed, in the order found
  std::vector<BlockId> Sites;
  /// For each wait, the partner event it waited for: (rank, call site); (-1, 0) if none.
  std::vector<std::pair<int, BlockId>> Partners;
  /// For each wait, whether it is for data (it completes a receive: AnalysisOptions::Messages
  /// says so; false without it). The search zeroes it as seed 003 does (its partner started
  /// early enough) to walk on to that partner; the remedies leave it to the replay.
  std::vector<bool> ForData;
  TimeNs Predicted = 0;
  unsigned Replays = 0;
};

struct AnalysisOptions {
  const StepMap *Steps = nullptr; ///< parallel steps (--step); null: each segment is a region
  /// The run's messages: message-volume balancing candidates, and which waits are for data
  /// (remedies then zero only waits a non-blocking or reordered call removes; null: none tried,
  /// every wait counts as removable, seed 003's meaning).
  const MessageIndex *Messages = nullptr;
  unsigned MaxCandidates = 6; ///< replays per search level (largest candidates first)
  unsigned MaxChain = 6;      ///< domino path length limit (events zeroed)
  std::function<std::string(BlockId)> Site;
  std::function<std::string(BlockId, BlockId)> Segment;
};

struct Analysis {
  bool Ok = false;
  std::string Error;
  TimeNs Base = 0;
  CriticalPath Path; ///< its length and size; the steps are summed into Shares, not kept
  std::vector<CriticalShare> Shares; ///< largest first
  DominoPath Domino;
  /// Remedies, then sensitivities (each F2, ranked by predicted time), then the F3 bound.
  std::vector<Suggestion> Suggestions;
  /// Remedies replayed and left out of Suggestions because they would not shorten the run
  /// (predicted no earlier than as run): a change that makes the run longer is no remedy.
  unsigned RemediesNotShorter = 0;
};

/// The domino path (seed 003 figure 3) from a recorded base run: walks back from each rank's
/// last event, zeroing the wait that shortens T most, then continues on its partner.
DominoPath dominoPath(const Replayer &Replay, const RunRecorder &Base, TimeNs BaseTime,
                      const AnalysisOptions &Opt);

Analysis analyze(const Replayer &Replay, int Ranks, const AnalysisOptions &Opt);

struct WhatIfReport {
  std::vector<std::pair<std::string, std::string>> Provenance; ///< tool, version, command, ...
  const Analysis *F1 = nullptr;
  /// The user's own assumptions (F2) and their F3 bound, if any were given.
  std::optional<std::string> ScenarioLabel;
  TimeNs ScenarioPredicted = 0, ScenarioBound = 0;
};
void writeWhatIfText(std::ostream &OS, const WhatIfReport &R);
void writeWhatIfYaml(std::ostream &OS, const WhatIfReport &R);
void writeWhatIfJson(std::ostream &OS, const WhatIfReport &R);

} // namespace mpiete::whatif

#endif
