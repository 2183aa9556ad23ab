// A recognised farm re-simulated with per-task costs: its inputs (the task costs beside
// each machine file (machine.tasks.yaml)), the re-simulation, the adjusted prediction and the
// report lines.
#ifndef MPIETE_FARM_FARMPREDICTION_H
#define MPIETE_FARM_FARMPREDICTION_H

#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/farm/FarmScan.h"
#include "mpiete/farm/FarmSimulation.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete::farm {

/// r_s of a machine: the sum of its measured task times over the reference machine's, both
/// over the tasks both measured; nullopt when they share none.
std::optional<double> timeFactor(const TaskCosts &Reference, const TaskCosts &Other);

struct FarmInputs {
  TaskCosts Reference; ///< beside the estimate's --machine file
  std::string ReferencePath;
  std::vector<double> TimeFactorOfRank; ///< r_s of every rank's machine
  std::vector<std::string> Notes;       ///< machines whose speed ratio is unknown (r_s 1)
  TaskCosts Shape;       ///< the trace probe's shape (its tasks.yaml), empty without one
  std::string ShapePath; ///< set when Shape was read
};

/// Reads the task costs of MachinePath (taskCostsPathOf) and, with a cluster file (Spec read from
/// ClusterPath), beside every node type's machine file, for the ranks' speed ratios. Returns false
/// when MachinePath has no task costs (no task costs: the farm is not re-simulated); Failed is set
/// when a file exists but cannot be read (reported).
bool loadFarmInputs(const std::string &MachinePath, const ClusterSpec *Spec,
                    const std::string &ClusterPath, int Ranks, DiagnosticSink &Diags,
                    FarmInputs &Out, bool &Failed);

/// Reads the trace probe's shape, ProgramDir/tasks.yaml (probe-program --task-set --task-shape),
/// into In.Shape when it exists and measured any task; false (reported) when it cannot be read.
bool loadFarmShape(const std::string &ProgramDir, DiagnosticSink &Diags, FarmInputs &In);

struct FarmPrediction {
  RecognizedFarm Farm;
  FarmSetup Setup;
  FarmOutcome Outcome;
  uint64_t Measured = 0;  ///< tasks the timing probe ran; the rest interpolated
  uint64_t FromShape = 0; ///< tasks the shape measured and the timing probe did not (scaled)
  double ShapeScale = 0;  ///< the target's time per unit of the shape's (joinShape)
  /// The measured tasks are no grid (points placed by the shape, or a grid joined by it):
  /// interpolated over their Delaunay simplices (TaskCostTable::scattered).
  bool Scattered = false;
  std::vector<uint64_t> TracedTasksOfWorker; ///< per Setup.Workers index
  uint64_t Moved = 0;                        ///< tasks predicted on another worker than traced
  TimeNs Delta = 0; ///< re-simulated farm end minus the replay's (traced assignment)
  /// Found in the trace alone (no task costs): each task's cost is its replayed time on the
  /// worker the trace gave it, over that worker's r_s.
  bool Unmarked = false;
};

/// Re-simulates the farm from the replay's start of it; nullopt with WhyNot when the task
/// costs do not fit the farm (another task count) or the replay did not reach it.
std::optional<FarmPrediction> predictFarm(const RecognizedFarm &Farm, const FarmInputs &In,
                                          const estimator::NetworkModel &Net, std::string &WhyNot);

/// An unmarked farm (FarmScan with Unmarked): task T costs TaskTimes[T] (its replayed time on
/// its traced worker, FarmScan::replayedTaskTimes) over that worker's r_s, and is re-simulated
/// as predictFarm does. TimeFactorOfRank: r_s of every rank's machine (1 where unknown).
std::optional<FarmPrediction> predictUnmarkedFarm(const RecognizedFarm &Farm,
                                                  const std::vector<TimeNs> &TaskTimes,
                                                  const std::vector<double> &TimeFactorOfRank,
                                                  const estimator::NetworkModel &Net,
                                                  std::string &WhyNot);

/// r_s of every rank's machine for an unmarked farm: a cluster's node types name machine
/// files, and each measured every rank (probe-compute times all of them on one node), so a
/// worker's r_s is its computation on its node type's machine over its computation on the
/// reference machine (MachinePath), summed over the segments both measured of that rank.
/// Ranks without a cluster, or whose machine is the reference, get 1; Notes say where
/// neither measured the rank. False (reported) when a machine file cannot be read.
bool segmentTimeFactors(const std::string &MachinePath, const ClusterSpec &Spec,
                        const std::string &ClusterPath, const std::vector<int> &Ranks,
                        int RankCount, DiagnosticSink &Diags, std::vector<double> &FactorOfRank,
                        std::vector<std::string> &Notes);

/// Moves the end of the farm, and everything after it, by P.Delta in R.
void applyFarm(estimator::EstimateResult &R, const FarmPrediction &P);

void writeFarmText(std::ostream &OS, const FarmPrediction &P);
/// A `task_farm:` map (YAML) or `"task_farm": {...}` member (JSON), to end the report with.
void writeFarmYaml(std::ostream &OS, const FarmPrediction &P);
void writeFarmJson(std::ostream &OS, const FarmPrediction &P);

} // namespace mpiete::farm

#endif
