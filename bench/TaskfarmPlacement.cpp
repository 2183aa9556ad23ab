// Offline check of where the timing probe measures a farm's tasks (issue 18, docs/taskfarm.md,
// "Points placed by the shape"): over every placement of the trace probe's centred lattice,
// the farm's work interpolated from a lattice of values (chooseTaskValues) against points
// (chooseTaskPoints), each joined by the shape as the estimator joins them. The library's own
// code, not a copy of it. Two estimates of the work that need no interpolation are printed
// beside them for comparison (docs/taskfarm.md, "A sample mean instead of the interpolant"):
// the shape's mean time (at machine A's scale) times the task count, the shape being a
// systematic sample, and the average of that and the points' interpolated work.
//
// Usage: mpiete_taskfarm_placement TASKS.yaml [STRIDE [centred|cubic]]
// TASKS.yaml has every task measured (bench/taskfarm-tiles.c's output, or bench/taskfarm's
// machine-A-1.tasks.yaml from a run with every task): the truth, and the shape's times (taken
// at 1/1.7 of them: another machine, which the scale undoes). Prints, per method, the work's
// error at offset 0 (the bench's own lattice), the mean |error| and the worst over every
// offset, how many offsets are within 8%, and the tasks machine A measures (their count and
// their time, the probe's cost).
#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/farm/TaskCostTable.h"
#include "mpiete/farm/TaskShape.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/task.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

using namespace mpiete;
using namespace mpiete::farm;

namespace {

/// The trace machine's times over machine A's: the shape is taken at 1/ShapeSpeed of the truth,
/// another machine's, which joinShape's scale undoes.
constexpr double ShapeSpeed = 1.7;

double workOf(const TaskCosts &Measured, const TaskCosts &Shape, const std::vector<int64_t> &All,
              size_t D) {
  const TaskCostTable Table(joinShape(Measured, Shape).Costs);
  double Sum = 0;
  for (size_t T = 0; T * D < All.size(); ++T)
    Sum += Table.seconds(std::span<const int64_t>(All.data() + T * D, D));
  return Sum;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::cerr << "usage: mpiete_taskfarm_placement TASKS.yaml [STRIDE [centred|cubic]]\n";
    return 2;
  }
  const int64_t Stride = Argc > 2 ? std::atoll(Argv[2]) : 8;
  const int Centred = Argc > 3 && std::string(Argv[3]) == "cubic" ? 0 : 1;
  DiagnosticSink Diags(std::cerr);
  TaskCosts Truth;
  if (!loadTaskCosts(Argv[1], Truth, Diags))
    return 1;
  const size_t D = size_t(Truth.Dims);
  std::map<std::vector<int64_t>, double> Time;
  for (size_t T = 0; T < Truth.measuredCount(); ++T)
    Time[{Truth.MeasuredParams.begin() + std::ptrdiff_t(T * D),
          Truth.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)}] = Truth.MeasuredSeconds[T];
  // The grid: every axis from its smallest to its largest measured value, step 1.
  TaskCosts Base;
  Base.Dims = Truth.Dims;
  Base.Grid = true;
  for (size_t K = 0; K < D; ++K) {
    TaskAxis A{INT64_MAX, INT64_MIN, 1};
    for (const auto &[P, S] : Time) {
      A.First = std::min(A.First, P[K]);
      A.Last = std::max(A.Last, P[K]);
    }
    Base.Axes.push_back(A);
  }
  const std::vector<int64_t> All = Base.allTasks();
  if (All.size() != Time.size() * D) {
    std::cerr << Argv[1] << ": every task of the grid must be measured\n";
    return 1;
  }
  double Work = 0;
  for (const auto &[P, S] : Time)
    Work += S;
  auto measure = [&](const std::vector<std::vector<int64_t>> &Tasks) {
    TaskCosts M = Base;
    for (const auto &P : Tasks) {
      M.MeasuredParams.insert(M.MeasuredParams.end(), P.begin(), P.end());
      M.MeasuredSeconds.push_back(Time.at(P));
    }
    return M;
  };
  struct Tally {
    double AtZero = 0, SumAbs = 0, Worst = 0, Tasks = 0, Share = 0;
    int Within = 0, Count = 0;
    void add(double E, size_t N, double Measured, bool Zero) {
      Share += Measured;
      if (Zero)
        AtZero = E;
      SumAbs += std::fabs(E);
      Worst = std::max(Worst, std::fabs(E));
      Within += std::fabs(E) < 8;
      Tasks += double(N);
      ++Count;
    }
  } Values, Points, ShapeMean, Average;
  std::vector<int64_t> Offset(D, 0);
  for (;;) {
    TaskCosts Shape = Base;
    for (const auto &[P, S] : Time) {
      std::vector<long long> Q(D);
      bool Inside = true;
      for (size_t K = 0; K < D; ++K)
        Inside = Inside && (Q[K] = P[K] - Base.Axes[K].First - Offset[K]) >= 0;
      if (Inside && mpiete_task_in_shape(int(D), Q.data(), Stride, Centred)) {
        Shape.MeasuredParams.insert(Shape.MeasuredParams.end(), P.begin(), P.end());
        Shape.MeasuredSeconds.push_back(S / ShapeSpeed);
      }
    }
    const bool Zero = std::all_of(Offset.begin(), Offset.end(), [](int64_t O) { return !O; });
    // A lattice of values.
    const auto V = chooseTaskValues(Shape, Stride, ShapeTolerance);
    std::vector<std::vector<int64_t>> Lattice;
    TaskCosts VT = Base;
    VT.Axes.clear();
    for (const auto &Axis : V)
      VT.Axes.push_back({0, int64_t(Axis.size()) - 1, 1});
    const std::vector<int64_t> Index = VT.allTasks();
    for (size_t T = 0; T * D < Index.size(); ++T) {
      std::vector<int64_t> P(D);
      for (size_t K = 0; K < D; ++K)
        P[K] = V[K][size_t(Index[T * D + K])];
      Lattice.push_back(P);
    }
    auto timeOf = [&](const std::vector<std::vector<int64_t>> &Tasks) {
      double Sum = 0;
      for (const auto &P : Tasks)
        Sum += Time.at(P);
      return 100 * Sum / Work;
    };
    Values.add(100 * (workOf(measure(Lattice), Shape, All, D) / Work - 1), Lattice.size(),
               timeOf(Lattice), Zero);
    const auto Pts = chooseTaskPoints(Shape, Stride);
    if (!Pts.empty()) {
      const double Interpolated = workOf(measure(Pts), Shape, All, D), Share = timeOf(Pts);
      Points.add(100 * (Interpolated / Work - 1), Pts.size(), Share, Zero);
      double ShapeSum = 0; // at machine A's scale
      for (double S : Shape.MeasuredSeconds)
        ShapeSum += ShapeSpeed * S;
      const double Mean = ShapeSum / double(Shape.MeasuredSeconds.size()) * double(All.size() / D);
      ShapeMean.add(100 * (Mean / Work - 1), Pts.size(), Share, Zero);
      Average.add(100 * ((Mean + Interpolated) / 2 / Work - 1), Pts.size(), Share, Zero);
    }
    size_t K = 0;
    while (K < D && ++Offset[K] == Stride)
      Offset[K++] = 0;
    if (K == D)
      break;
  }
  std::printf("%s, stride %lld, %d offsets of the %s shape:\n", Argv[1], (long long)Stride,
              Values.Count, Centred ? "centred" : "cubic");
  std::printf("| placement | tasks measured | their time, %% of the work | error at offset 0 | "
              "mean abs error | worst | within 8%% |\n| --- | --- | --- | --- | --- | --- | --- "
              "|\n");
  for (const auto &[Name, T] : {std::pair{"values (lattice)", &Values},
                                {"points", &Points},
                                {"shape's mean x tasks (no interpolation)", &ShapeMean},
                                {"average of it and points", &Average}})
    if (T->Count)
      std::printf("| %s | %.1f | %.1f | %+.1f%% | %.1f%% | %.1f%% | %d of %d |\n", Name,
                  T->Tasks / T->Count, T->Share / T->Count, T->AtZero, T->SumAbs / T->Count,
                  T->Worst, T->Within, T->Count);
  return 0;
}
