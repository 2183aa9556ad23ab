// The farm's re-simulation put together: inputs beside the machine files, the outcome applied
// to the replay's prediction, and the report's lines.
#include "mpiete/farm/FarmPrediction.h"

#include "mpiete/basedata/MachineFile.h"
#include "mpiete/estimator/Cluster.h"
#include "mpiete/farm/TaskCostTable.h"
#include "mpiete/farm/TaskShape.h"
#include "mpiete/support/Diagnostics.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

namespace mpiete::farm {

std::optional<double> timeFactor(const TaskCosts &Reference, const TaskCosts &Other) {
  if (Reference.Dims != Other.Dims)
    return std::nullopt;
  const size_t D = size_t(Reference.Dims);
  std::map<std::vector<int64_t>, double> Ref;
  for (size_t T = 0; T < Reference.MeasuredSeconds.size(); ++T)
    Ref[{Reference.MeasuredParams.begin() + std::ptrdiff_t(T * D),
         Reference.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)}] =
        Reference.MeasuredSeconds[T];
  double SumRef = 0, SumOther = 0;
  for (size_t T = 0; T < Other.MeasuredSeconds.size(); ++T) {
    auto It = Ref.find({Other.MeasuredParams.begin() + std::ptrdiff_t(T * D),
                        Other.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)});
    if (It == Ref.end())
      continue;
    SumRef += It->second;
    SumOther += Other.MeasuredSeconds[T];
  }
  if (SumRef <= 0)
    return std::nullopt;
  return SumOther / SumRef;
}

bool loadFarmInputs(const std::string &MachinePath, const ClusterSpec *Spec,
                    const std::string &ClusterPath, int Ranks, DiagnosticSink &Diags,
                    FarmInputs &Out, bool &Failed) {
  Failed = false;
  Out.ReferencePath = taskCostsPathOf(MachinePath);
  if (!std::filesystem::exists(Out.ReferencePath))
    return false;
  if (!loadTaskCosts(Out.ReferencePath, Out.Reference, Diags)) {
    Failed = true;
    return false;
  }
  Out.TimeFactorOfRank.assign(size_t(Ranks), 1.0);
  if (!Spec || Spec->Nodes.empty() || Spec->RanksPerNode < 1)
    return true;
  const std::vector<std::string> MachineOfRank =
      estimator::placeRanks(*Spec, ClusterPath, Ranks).MachineOfRank;
  std::map<std::string, std::optional<double>> FactorOfMachine;
  for (int R = 0; R < Ranks; ++R) {
    const std::string &Machine = MachineOfRank[size_t(R)];
    if (Machine.empty())
      continue;
    auto [It, New] = FactorOfMachine.try_emplace(Machine);
    if (New) {
      const std::string Path = taskCostsPathOf(Machine);
      TaskCosts Other;
      if (!std::filesystem::exists(Path)) {
        Out.Notes.push_back("no task costs beside '" + Machine +
                            "': its ranks' tasks take the measured times (r_s = 1)");
      } else if (!loadTaskCosts(Path, Other, Diags)) {
        Failed = true;
        return false;
      } else if (!(It->second = timeFactor(Out.Reference, Other))) {
        Out.Notes.push_back("'" + Path + "' measured none of the tasks of '" + Out.ReferencePath +
                            "': r_s = 1");
      }
    }
    if (It->second)
      Out.TimeFactorOfRank[size_t(R)] = *It->second;
  }
  return true;
}

bool loadFarmShape(const std::string &ProgramDir, DiagnosticSink &Diags, FarmInputs &In) {
  const std::string Path = ProgramDir + "/tasks.yaml";
  if (!std::filesystem::exists(Path))
    return true;
  TaskCosts Shape;
  if (!loadTaskCosts(Path, Shape, Diags))
    return false;
  if (Shape.measuredCount() > 0) {
    In.Shape = std::move(Shape);
    In.ShapePath = Path;
  }
  return true;
}

namespace {

void setUp(FarmPrediction &P, const RecognizedFarm &Farm,
           const std::vector<double> &TimeFactorOfRank) {
  FarmSetup &S = P.Setup;
  S.Master = Farm.Master;
  S.Workers = Farm.Workers;
  for (int W : S.Workers)
    S.TimeFactor.push_back(size_t(W) < TimeFactorOfRank.size() ? TimeFactorOfRank[size_t(W)] : 1.0);
  S.WorkBytes = Farm.WorkBytes;
  S.ResultBytes = Farm.ResultBytes;
  S.Start = Farm.ReplayStart;
}

/// The replay reached the farm (its start and end are inside the prediction region).
bool inRegion(const RecognizedFarm &Farm, std::string &WhyNot) {
  if (Farm.ReplayStart >= 0 && Farm.ReplayEnd >= 0)
    return true;
  WhyNot = "the prediction region does not hold the farm";
  return false;
}

/// Re-simulates P.Setup and compares the outcome with the traced assignment.
void simulate(FarmPrediction &P, const estimator::NetworkModel &Net) {
  const FarmSetup &S = P.Setup;
  P.Outcome = simulateFarm(S, Net);
  P.TracedTasksOfWorker.assign(S.Workers.size(), 0);
  for (size_t T = 0; T < S.Costs.size(); ++T) {
    const int Traced = P.Farm.TracedWorkerOfTask[T];
    for (size_t W = 0; W < S.Workers.size(); ++W)
      if (S.Workers[W] == Traced)
        ++P.TracedTasksOfWorker[W];
    if (S.Workers[size_t(P.Outcome.WorkerOfTask[T])] != Traced)
      ++P.Moved;
  }
  P.Delta = P.Outcome.End - P.Farm.ReplayEnd;
}

} // namespace

std::optional<FarmPrediction> predictFarm(const RecognizedFarm &Farm, const FarmInputs &In,
                                          const estimator::NetworkModel &Net, std::string &WhyNot) {
  const TaskCosts &C = In.Reference;
  const uint64_t Tasks = C.taskCount();
  if (Tasks != Farm.TracedWorkerOfTask.size()) {
    WhyNot = "'" + In.ReferencePath + "' lists " + std::to_string(Tasks) +
             " tasks, the farm of rank " + std::to_string(Farm.Master) + " sends " +
             std::to_string(Farm.TracedWorkerOfTask.size()) + " work messages";
    return std::nullopt;
  }
  if (!inRegion(Farm, WhyNot))
    return std::nullopt;
  FarmPrediction P;
  P.Farm = Farm;
  P.Measured = C.measuredCount();
  setUp(P, Farm, In.TimeFactorOfRank);
  FarmSetup &S = P.Setup;
  // The shape's tasks the timing probe did not run join its own, scaled (docs/taskfarm.md,
  // "The shape as data"): the interpolation sees both samples. r_s stays the measured rows'.
  const ShapeJoin Join = joinShape(C, In.Shape);
  P.FromShape = Join.Joined;
  P.ShapeScale = Join.Scale;
  const TaskCostTable Table(Join.Costs);
  P.Scattered = Table.scattered();
  const std::vector<int64_t> All = C.allTasks();
  const size_t D = size_t(C.Dims);
  for (uint64_t T = 0; T < Tasks; ++T)
    S.Costs.push_back(
        TimeNs(std::llround(Table.seconds(std::span<const int64_t>(All.data() + T * D, D)) * 1e9)));
  simulate(P, Net);
  return P;
}

std::optional<FarmPrediction> predictUnmarkedFarm(const RecognizedFarm &Farm,
                                                  const std::vector<TimeNs> &TaskTimes,
                                                  const std::vector<double> &TimeFactorOfRank,
                                                  const estimator::NetworkModel &Net,
                                                  std::string &WhyNot) {
  if (TaskTimes.size() != Farm.TracedWorkerOfTask.size()) {
    WhyNot = "the replay does not show each task's result after its work message";
    return std::nullopt;
  }
  if (!inRegion(Farm, WhyNot))
    return std::nullopt;
  FarmPrediction P;
  P.Farm = Farm;
  P.Unmarked = true;
  P.Measured = TaskTimes.size();
  setUp(P, Farm, TimeFactorOfRank);
  for (size_t T = 0; T < TaskTimes.size(); ++T) {
    const size_t W =
        size_t(std::find(Farm.Workers.begin(), Farm.Workers.end(), Farm.TracedWorkerOfTask[T]) -
               Farm.Workers.begin());
    const double Factor = P.Setup.TimeFactor[W] > 0 ? P.Setup.TimeFactor[W] : 1.0;
    P.Setup.Costs.push_back(TimeNs(std::llround(double(TaskTimes[T]) / Factor)));
  }
  simulate(P, Net);
  return P;
}

bool segmentTimeFactors(const std::string &MachinePath, const ClusterSpec &Spec,
                        const std::string &ClusterPath, const std::vector<int> &Ranks,
                        int RankCount, DiagnosticSink &Diags, std::vector<double> &FactorOfRank,
                        std::vector<std::string> &Notes) {
  FactorOfRank.assign(size_t(RankCount), 1.0);
  if (Spec.Nodes.empty() || Spec.RanksPerNode < 1)
    return true;
  const std::vector<std::string> MachineOfRank =
      estimator::placeRanks(Spec, ClusterPath, RankCount).MachineOfRank;
  std::map<std::string, MachineFile> Files; // by path, read once each
  auto Load = [&](const std::string &Path) -> const MachineFile * {
    auto [It, New] = Files.try_emplace(Path);
    if (New && !loadMachineFile(Path, It->second, Diags)) {
      Files.erase(It);
      return nullptr;
    }
    return &It->second;
  };
  // Rank R's computation per segment (From, To): executions x mean.
  auto Segments = [](const MachineFile &F, int R) {
    std::map<std::pair<uint64_t, uint64_t>, double> Out;
    for (const MachineRank &MR : F.Ranks)
      if (MR.Rank == R)
        for (const MachineSegment &G : MR.Segments)
          Out[{G.From, G.To}] += double(G.Executions) * G.MeanSeconds;
    return Out;
  };
  const MachineFile *Reference = nullptr;
  for (int R : Ranks) {
    if (R < 0 || R >= RankCount || size_t(R) >= MachineOfRank.size())
      continue;
    const std::string &Machine = MachineOfRank[size_t(R)];
    std::error_code Ec;
    if (Machine.empty() || std::filesystem::equivalent(Machine, MachinePath, Ec))
      continue;
    if (!Reference && !(Reference = Load(MachinePath)))
      return false;
    const MachineFile *Other = Load(Machine);
    if (!Other)
      return false;
    const auto Ref = Segments(*Reference, R), Own = Segments(*Other, R);
    double SumRef = 0, SumOwn = 0;
    for (const auto &[Key, Seconds] : Own)
      if (auto It = Ref.find(Key); It != Ref.end()) {
        SumRef += It->second;
        SumOwn += Seconds;
      }
    if (SumRef > 0 && SumOwn > 0)
      FactorOfRank[size_t(R)] = SumOwn / SumRef;
    else
      Notes.push_back("'" + Machine + "' and '" + MachinePath +
                      "' measured no computation of rank " + std::to_string(R) +
                      " in common: its tasks take the replayed times (r_s = 1)");
  }
  return true;
}

void applyFarm(estimator::EstimateResult &R, const FarmPrediction &P) {
  const TimeNs End = P.Farm.ReplayEnd;
  for (size_t I = 0; I < R.Instances.size(); ++I) {
    auto &In = R.Instances[I];
    if (In.Start > End || In.End < End)
      continue;
    In.End += P.Delta;
    R.InstancesTotal += P.Delta;
    // Predicted is every instance's sum (0), the one chosen, or the only one.
    const int Chosen = R.RegionInstance == -1 ? int(R.Instances.size()) : R.RegionInstance;
    if (R.RegionInstance == 0 || Chosen == int(I) + 1 || R.Instances.size() == 1)
      R.Predicted += P.Delta;
  }
  for (auto &Rank : R.Ranks)
    if (Rank.End >= End)
      Rank.End += P.Delta;
}

namespace {

std::string secondsText(TimeNs T) {
  std::ostringstream S;
  S << std::fixed << std::setprecision(6) << double(T) * 1e-9;
  return S.str();
}

/// Every task's cost summed, on the machine the costs were measured on: the farm's work, which
/// the subset's interpolation estimates and the re-simulation spreads over the workers.
TimeNs taskWork(const FarmSetup &S) {
  TimeNs Sum = 0;
  for (TimeNs C : S.Costs)
    Sum += C;
  return Sum;
}

} // namespace

void writeFarmText(std::ostream &OS, const FarmPrediction &P) {
  const FarmSetup &S = P.Setup;
  const size_t Tasks = S.Costs.size();
  OS << "task farm: re-simulated (seed 000): master rank " << S.Master << ", " << S.Workers.size()
     << " workers, " << Tasks << " tasks ";
  if (P.Unmarked)
    OS << "found in the trace (unmarked: each task's time is its replay on the traced worker, "
          "over its r_s)\n";
  else
    OS << "(" << P.Measured << " measured, ";
  if (P.FromShape)
    OS << P.FromShape << " from the trace probe's shape x" << std::setprecision(4) << P.ShapeScale
       << ", ";
  if (!P.Unmarked)
    OS << Tasks - std::min<size_t>(Tasks, P.Measured + P.FromShape) << " interpolated)\n";
  if (!P.Unmarked)
    OS << "  interpolation: "
       << (P.Scattered ? "linear over the Delaunay simplices of the known tasks (no grid)"
                       : "seed 000's grid")
       << "\n";
  OS << "  work: " << secondsText(taskWork(S))
     << " s of tasks on the reference machine (before each worker's r_s)\n";
  OS << "  farm ends at " << secondsText(P.Outcome.End) << " s re-simulated, "
     << secondsText(P.Farm.ReplayEnd) << " s with the traced assignment: the prediction moves "
     << (P.Delta >= 0 ? "+" : "") << secondsText(P.Delta) << " s\n";
  OS << "  tasks on another worker than traced: " << P.Moved << " of " << Tasks << "\n";
  OS << "  worker  r_s     traced  predicted\n";
  for (size_t W = 0; W < S.Workers.size(); ++W)
    OS << "  " << std::setw(6) << S.Workers[W] << "  " << std::setw(6) << std::setprecision(3)
       << S.TimeFactor[W] << "  " << std::setw(6) << P.TracedTasksOfWorker[W] << "  "
       << std::setw(9) << P.Outcome.TasksOfWorker[W] << "\n";
}

void writeFarmYaml(std::ostream &OS, const FarmPrediction &P) {
  const FarmSetup &S = P.Setup;
  OS << "task_farm:\n  resimulated: true\n  unmarked: " << (P.Unmarked ? "true" : "false")
     << "\n  master: " << S.Master << "\n  tasks: " << S.Costs.size()
     << "\n  measured_tasks: " << P.Measured << "\n  shape_tasks: " << P.FromShape
     << "\n  shape_scale: " << P.ShapeScale << "\n  interpolation: "
     << (P.Unmarked    ? "none"
         : P.Scattered ? "simplices"
                       : "grid")
     << "\n  task_seconds: " << secondsText(taskWork(S))
     << "\n  replay_end_seconds: " << secondsText(P.Farm.ReplayEnd)
     << "\n  resimulated_end_seconds: " << secondsText(P.Outcome.End)
     << "\n  moved_tasks: " << P.Moved << "\n  workers:\n";
  for (size_t W = 0; W < S.Workers.size(); ++W)
    OS << "    - {rank: " << S.Workers[W] << ", time_factor: " << S.TimeFactor[W]
       << ", traced_tasks: " << P.TracedTasksOfWorker[W]
       << ", predicted_tasks: " << P.Outcome.TasksOfWorker[W] << "}\n";
}

void writeFarmJson(std::ostream &OS, const FarmPrediction &P) {
  const FarmSetup &S = P.Setup;
  OS << "  \"task_farm\": {\"resimulated\": true, \"unmarked\": " << (P.Unmarked ? "true" : "false")
     << ", \"master\": " << S.Master << ", \"tasks\": " << S.Costs.size()
     << ", \"measured_tasks\": " << P.Measured << ", \"shape_tasks\": " << P.FromShape
     << ", \"shape_scale\": " << P.ShapeScale << ", \"interpolation\": \""
     << (P.Unmarked    ? "none"
         : P.Scattered ? "simplices"
                       : "grid")
     << "\", \"task_seconds\": " << secondsText(taskWork(S))
     << ", \"replay_end_seconds\": " << secondsText(P.Farm.ReplayEnd)
     << ", \"resimulated_end_seconds\": " << secondsText(P.Outcome.End)
     << ", \"moved_tasks\": " << P.Moved << ", \"workers\": [";
  for (size_t W = 0; W < S.Workers.size(); ++W)
    OS << (W ? ", " : "") << "{\"rank\": " << S.Workers[W]
       << ", \"time_factor\": " << S.TimeFactor[W]
       << ", \"traced_tasks\": " << P.TracedTasksOfWorker[W]
       << ", \"predicted_tasks\": " << P.Outcome.TasksOfWorker[W] << "}";
  OS << "]}\n";
}

} // namespace mpiete::farm
