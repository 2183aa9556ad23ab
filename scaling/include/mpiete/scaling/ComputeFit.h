// Per-segment compute models from the timing probe's runs at several rank counts, with rank 0
// and rank P-1 modelled apart where their compute differs systematically from the ranks
// between (a master's serial work, a pipeline's ends).
#ifndef MPIETE_SCALING_COMPUTEFIT_H
#define MPIETE_SCALING_COMPUTEFIT_H

#include "mpiete/basedata/MachineFile.h"
#include "mpiete/scaling/ModelFile.h"

#include <vector>

namespace mpiete::scaling {

/// One rank's measured segment in one run.
struct RankSegmentTime {
  int Rank = 0;
  estimator::BlockId From = 0, To = 0;
  double MeanSeconds = 0;
  double Executions = 0;
};

/// One timing run: its rank count, problem size and every rank's segments.
struct ComputeRun {
  int Ranks = 0;
  double Size = 1;
  std::vector<RankSegmentTime> Times;
  /// Repeated timing runs of the same run (ModelRun::Repeats): their spread per segment and
  /// position is the point's Noise (over the repeats when two or more, else over Times and
  /// the one repeat).
  std::vector<std::vector<RankSegmentTime>> Repeats;
};

/// Every rank's segments of compute base data M, as measured (mean and executions).
std::vector<RankSegmentTime> segmentTimesOf(const MachineFile &M);

/// The run at Ranks and Size measured by M. A file of repeated timing runs (probe-compute
/// --repeat: each segment's repeat_means) gives each run's means as the Repeats, so its
/// spread is the points' noise without the runs' own files.
ComputeRun computeRunOf(int Ranks, double Size, const MachineFile &M);

/// A position's compute counts as different from the ranks between when, at every run with
/// ranks between (P >= 3, two runs at least), its executions-weighted mean differs from theirs
/// by more than this fraction, in the same direction (the 10% the extrapolation aims at: a
/// smaller difference cannot move a prediction by more).
constexpr double PositionThreshold = 0.10;

/// Per segment, the models: one for every rank (Ranks = All) where the positions agree;
/// otherwise First and/or Last, and Rest for the ranks left. Each is selectModel over the
/// position's executions-weighted means per run, with the held-out error at the largest rank
/// count, under Options (a declared working set and the machine's caches: seed 001's steps).
/// Where is left empty (the caller names the call sites).
std::vector<SegmentModel> fitComputeModels(const std::vector<ComputeRun> &Runs,
                                           const SelectOptions &Options = {});

} // namespace mpiete::scaling

#endif
