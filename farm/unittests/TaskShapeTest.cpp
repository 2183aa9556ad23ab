// The subset's values placed by the trace probe's shape of the task costs, on hand-built shapes.
#include "mpiete/farm/TaskShape.h"

#include "mpiete/farm/TaskCostTable.h"
#include "mpiete/task.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace mpiete;
using namespace mpiete::farm;

namespace {

using Values = std::vector<std::vector<int64_t>>;

/// A 1-D task set First..Last whose shape measured Seconds[i] at Params[i].
TaskCosts shape1d(int64_t First, int64_t Last, std::vector<int64_t> Params,
                  std::vector<double> Seconds) {
  TaskCosts C;
  C.Dims = 1;
  C.Grid = true;
  C.Axes = {{First, Last, 1}};
  C.MeasuredParams = std::move(Params);
  C.MeasuredSeconds = std::move(Seconds);
  return C;
}

} // namespace

TEST(TaskShapeTest, WithoutShapeTimesSeedZeroZeroZerosEvenSpread) {
  EXPECT_EQ(chooseTaskValues(shape1d(0, 31, {}, {}), 8, 0.05), (Values{{0, 10, 21, 31}}));
  EXPECT_EQ(chooseTaskValues(shape1d(1, 10, {}, {}), 3, 0.05), (Values{{1, 4, 7, 10}}));
}

TEST(TaskShapeTest, ASpikeIsMeasuredThenItsFlanks) {
  const TaskCosts S = shape1d(0, 16, {0, 4, 8, 12, 16}, {1, 1, 5, 1, 1});
  // M = ceil(17 / 8) = 3: the ends, then 8 (error 4 / mean 1.8).
  EXPECT_EQ(chooseTaskValues(S, 8, 0.05), (Values{{0, 8, 16}}));
  // M = 5: then 4 and 12 (each 2 / 1.8 off the line through 0, 8 and 16; the lower first).
  EXPECT_EQ(chooseTaskValues(S, 4, 0.05), (Values{{0, 4, 8, 12, 16}}));
}

TEST(TaskShapeTest, ABandBetweenTheEvenValuesIsMeasured) {
  // 0..20 at C = 7: the even spread measures {0, 10, 20} and misses the band at 15 the shape
  // saw (every third value measured; 20, not measured, takes 18's time).
  const TaskCosts S = shape1d(0, 20, {0, 3, 6, 9, 12, 15, 18}, {1, 1, 1, 1, 1, 10, 1});
  EXPECT_EQ(chooseTaskValues(shape1d(0, 20, {}, {}), 7, 0.05), (Values{{0, 10, 20}}));
  EXPECT_EQ(chooseTaskValues(S, 7, 0.05), (Values{{0, 15, 20}}));
}

TEST(TaskShapeTest, AFlatShapeFillsTheWidestGaps) {
  const TaskCosts S = shape1d(0, 16, {0, 4, 8, 12, 16}, {1, 1, 1, 1, 1});
  EXPECT_EQ(chooseTaskValues(S, 8, 0.05), (Values{{0, 8, 16}}));
  EXPECT_EQ(chooseTaskValues(S, 4, 0.05), (Values{{0, 4, 8, 12, 16}}));
  EXPECT_EQ(chooseTaskValues(S, 1, 0.05)[0].size(), 17u); // every task
}

TEST(TaskShapeTest, ErrorsBelowTheToleranceAreNoise) {
  const TaskCosts S = shape1d(0, 16, {0, 4, 8, 12, 16}, {1, 1.02, 1, 1.01, 1});
  EXPECT_EQ(chooseTaskValues(S, 8, 0.05), (Values{{0, 8, 16}}));
  EXPECT_EQ(chooseTaskValues(S, 8, 0), (Values{{0, 4, 16}}));
}

TEST(TaskShapeTest, EachAxisFromItsOwnLines) {
  // 5 x 3 tasks, a ridge of 4 along i = 3 (mean 24 / 15 = 1.6): C = 2 takes 3 values of i and
  // 2 of j.
  TaskCosts S;
  S.Dims = 2;
  S.Grid = true;
  S.Axes = {{0, 4, 1}, {0, 2, 1}};
  for (int64_t I = 0; I <= 4; ++I)
    for (int64_t J = 0; J <= 2; ++J) {
      S.MeasuredParams.insert(S.MeasuredParams.end(), {I, J});
      S.MeasuredSeconds.push_back(I == 3 ? 4 : 1);
    }
  const Values V = chooseTaskValues(S, 2, 0.05);
  EXPECT_EQ(V, (Values{{0, 3, 4}, {0, 2}}));
  EXPECT_EQ(taskValuesText(V), "0,3,4/0,2");
}

TEST(TaskShapeTest, TheCentredLatticeAddsTheMultiplesOffsetByHalfTheStride) {
  // probe-program --task-shape C: the multiples of C, and with the centred lattice the tasks
  // whose every parameter is C / 2 more than a multiple (mpiete/task.h, mpiete_task_in_shape).
  auto In = [](std::vector<long long> P, long long C, int Centred) {
    return mpiete_task_in_shape(int(P.size()), P.data(), C, Centred) != 0;
  };
  std::vector<std::vector<long long>> Centred, Cubic;
  for (long long I = 0; I < 8; ++I)
    for (long long J = 0; J < 8; ++J) {
      if (In({I, J}, 4, 1))
        Centred.push_back({I, J});
      if (In({I, J}, 4, 0))
        Cubic.push_back({I, J});
    }
  // 8 x 8 tasks, C = 4: 4 multiples and 4 offset by (2, 2), 2 / C^2 of them.
  EXPECT_EQ(Centred, (std::vector<std::vector<long long>>{
                         {0, 0}, {0, 4}, {2, 2}, {2, 6}, {4, 0}, {4, 4}, {6, 2}, {6, 6}}));
  EXPECT_EQ(Cubic, (std::vector<std::vector<long long>>{{0, 0}, {0, 4}, {4, 0}, {4, 4}}));
  // Mixed offsets are not on the lattice; negative parameters count from zero.
  EXPECT_FALSE(In({0, 2}, 4, 1));
  EXPECT_TRUE(In({-2, 6}, 4, 1));
  EXPECT_TRUE(In({-4, 8}, 4, 0));
  // One parameter: the multiples of C / 2 (C even); an odd C takes 0 and C / 2 rounded down.
  std::vector<long long> OneD;
  for (long long I = 0; I < 10; ++I)
    if (In({I}, 3, 1))
      OneD.push_back(I);
  EXPECT_EQ(OneD, (std::vector<long long>{0, 1, 3, 4, 6, 7, 9}));
  // Stride 1: every task either way.
  EXPECT_TRUE(In({5, 7}, 1, 1));
  EXPECT_TRUE(In({5, 7}, 1, 0));
}

TEST(TaskShapeTest, APeakOnlyTheCentredLatticeSeesPlacesAValue) {
  // 17 x 17 tasks, C = 8: the multiples {0, 8, 16}^2 all take 1 s; the centred lattice adds
  // {4, 12}^2, where (4, 4) takes 9 s. M = ceil(17 / 8) = 3 values per axis. Along either
  // axis the lines j = 4 (or i = 4) run 9 at 4 and 1 at 12, the line through their ends (the
  // nearest measured: 9 at 0, 1 at 16) errs 2 at both: the lower, 4, is chosen. The multiples
  // alone are flat: the middle of the widest gap, 8.
  TaskCosts S;
  S.Dims = 2;
  S.Grid = true;
  S.Axes = {{0, 16, 1}, {0, 16, 1}};
  for (int64_t I = 0; I <= 16; ++I)
    for (int64_t J = 0; J <= 16; ++J) {
      const long long P[2] = {I, J};
      if (!mpiete_task_in_shape(2, P, 8, 1))
        continue;
      S.MeasuredParams.insert(S.MeasuredParams.end(), {I, J});
      S.MeasuredSeconds.push_back(I == 4 && J == 4 ? 9 : 1);
    }
  ASSERT_EQ(S.MeasuredSeconds.size(), 13u);
  EXPECT_EQ(chooseTaskValues(S, 8, 0.05), (Values{{0, 4, 16}, {0, 4, 16}}));
  TaskCosts Cubic = S;
  Cubic.MeasuredParams.clear();
  Cubic.MeasuredSeconds.clear();
  for (size_t T = 0; T < S.MeasuredSeconds.size(); ++T)
    if (S.MeasuredParams[2 * T] % 8 == 0 && S.MeasuredParams[2 * T + 1] % 8 == 0) {
      Cubic.MeasuredParams.insert(Cubic.MeasuredParams.end(),
                                  {S.MeasuredParams[2 * T], S.MeasuredParams[2 * T + 1]});
      Cubic.MeasuredSeconds.push_back(S.MeasuredSeconds[T]);
    }
  EXPECT_EQ(chooseTaskValues(Cubic, 8, 0.05), (Values{{0, 8, 16}, {0, 8, 16}}));
}

namespace {

TaskCosts costs2d(std::vector<int64_t> Params, std::vector<double> Seconds) {
  TaskCosts C;
  C.Dims = 2;
  C.Grid = true;
  C.Axes = {{0, 4, 1}, {0, 4, 1}};
  C.MeasuredParams = std::move(Params);
  C.MeasuredSeconds = std::move(Seconds);
  return C;
}

} // namespace

TEST(TaskShapeTest, TheShapesOtherTasksJoinScaledByTheTasksBothMeasured) {
  // The target measured 0 and 4 (2 and 4 s), the shape 0, 2 and 4 (1, 3 and 2 units): Scale
  // (2 + 4) / (1 + 2) = 2, and task 2 joins with 2 x 3 = 6 s.
  const ShapeJoin J = joinShape(shape1d(0, 4, {0, 4}, {2, 4}), shape1d(0, 4, {0, 2, 4}, {1, 3, 2}));
  EXPECT_DOUBLE_EQ(J.Scale, 2.0);
  EXPECT_EQ(J.Joined, 1u);
  EXPECT_EQ(J.Costs.MeasuredParams, (std::vector<int64_t>{0, 4, 2}));
  EXPECT_EQ(J.Costs.MeasuredSeconds, (std::vector<double>{2, 4, 6}));
  // The table then interpolates over 0, 2 and 4: task 1 is (2 + 6) / 2, task 3 (6 + 4) / 2.
  const TaskCostTable T(J.Costs);
  const int64_t One = 1, Three = 3;
  EXPECT_DOUBLE_EQ(T.seconds({&One, 1}), 4.0);
  EXPECT_DOUBLE_EQ(T.seconds({&Three, 1}), 5.0);
}

TEST(TaskShapeTest, TwoDimensionalShapeJoinsOnlyItsOtherTasks) {
  // Both measured (0, 0) and (4, 4): 1 + 3 s against 2 + 6 units, Scale 0.5; the shape's (2, 2)
  // joins at 0.5 x 10 = 5 s, its (0, 0) and (4, 4) keep the target's times.
  const ShapeJoin J =
      joinShape(costs2d({0, 0, 4, 4}, {1, 3}), costs2d({0, 0, 2, 2, 4, 4}, {2, 10, 6}));
  EXPECT_DOUBLE_EQ(J.Scale, 0.5);
  EXPECT_EQ(J.Joined, 1u);
  EXPECT_EQ(J.Costs.MeasuredParams, (std::vector<int64_t>{0, 0, 4, 4, 2, 2}));
  EXPECT_EQ(J.Costs.MeasuredSeconds, (std::vector<double>{1, 3, 5}));
}

TEST(TaskShapeTest, NoTaskInCommonJoinsNothing) {
  const TaskCosts Target = shape1d(0, 4, {0, 4}, {2, 4});
  for (const TaskCosts &Shape : {shape1d(0, 4, {1, 3}, {1, 1}), shape1d(0, 4, {}, {}),
                                 shape1d(0, 4, {0, 2}, {0, 5}), costs2d({0, 0}, {1})}) {
    const ShapeJoin J = joinShape(Target, Shape);
    EXPECT_EQ(J.Scale, 0.0);
    EXPECT_EQ(J.Joined, 0u);
    EXPECT_EQ(J.Costs.MeasuredSeconds, Target.MeasuredSeconds);
  }
}

TEST(TaskShapeTest, TasksInCommonBelowTheShareJoinNothing) {
  // The only task in common, 0, holds 1 of the shape's 1 + 30 + 9 = 40 units: 2.5%, below 5%.
  const TaskCosts Target = shape1d(0, 4, {0, 4}, {2, 4});
  const TaskCosts Shape = shape1d(0, 4, {0, 2, 3}, {1, 30, 9});
  EXPECT_EQ(joinShape(Target, Shape).Joined, 0u);
  EXPECT_EQ(joinShape(Target, Shape).Scale, 0.0);
  // At a share of 2.5% it joins: scale 2 / 1, tasks 2 and 3 at 60 and 18 s.
  const ShapeJoin J = joinShape(Target, Shape, 0.025);
  EXPECT_DOUBLE_EQ(J.Scale, 2.0);
  EXPECT_EQ(J.Costs.MeasuredSeconds, (std::vector<double>{2, 4, 60, 18}));
}

TEST(TaskShapeTest, TheSpeedRatioMachineRunsTheCostliestValues) {
  // A 4 x 4 grid, every task measured by the shape: 1 s, but (2, 1) and (2, 2) 10 s; 34 s in all.
  TaskCosts S;
  S.Dims = 2;
  S.Grid = true;
  S.Axes = {{0, 3, 1}, {0, 3, 1}};
  for (int64_t X = 0; X < 4; ++X)
    for (int64_t Y = 0; Y < 4; ++Y) {
      S.MeasuredParams.insert(S.MeasuredParams.end(), {X, Y});
      S.MeasuredSeconds.push_back(X == 2 && (Y == 1 || Y == 2) ? 10.0 : 1.0);
    }
  const Values All{{0, 1, 2, 3}, {0, 1, 2, 3}};
  // Every 2: a budget of 34 / 4 = 8.5 s; x = 2 (22 s over its column), y = 1 (13 s, the lower
  // of two) give the 10 s task alone.
  EXPECT_EQ(costliestValues(S, All, 2), (Values{{2}, {1}}));
  // Every 1: all of them.
  EXPECT_EQ(costliestValues(S, All, 1), All);
  // A flat 1-D shape of 8 tasks, every 2: 4 s of 8; the ties go in order, 0, 1, 2, 3.
  const TaskCosts Flat = shape1d(0, 7, {0, 1, 2, 3, 4, 5, 6, 7}, {1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(costliestValues(Flat, Values{{0, 1, 2, 3, 4, 5, 6, 7}}, 2), (Values{{0, 1, 2, 3}}));
  // A ramp, every 4: 36 s / 4 = 9 s: 8 then 7 (15 s), the two longest.
  const TaskCosts Ramp = shape1d(1, 8, {1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(costliestValues(Ramp, Values{{1, 2, 3, 4, 5, 6, 7, 8}}, 4), (Values{{7, 8}}));
  // Without shape times: every second value, as the runtime's MPIETE_TASK_EVERY picks them.
  EXPECT_EQ(costliestValues(shape1d(0, 3, {}, {}), Values{{0, 1, 2, 3}}, 2), (Values{{0, 2}}));
}

TEST(TaskShapeTest, TheSpeedRatioMachineSkipsValuesTheShapeDidNotMeasure) {
  // The shape measured 0, 4 and 8 of 0..10; 10, an end of the reference's values, lies past its
  // last value, whose 5 s an interpolation would extend to it; it counts 0. Every 2: a budget of
  // 15 s / 2 = 7.5 s, which 4 (9 s) covers alone.
  const TaskCosts S = shape1d(0, 10, {0, 4, 8}, {1, 9, 5});
  EXPECT_EQ(costliestValues(S, Values{{0, 4, 8, 10}}, 2), (Values{{4}}));
  // The shape measured none of the values: every second one.
  EXPECT_EQ(costliestValues(S, Values{{1, 2, 3, 10}}, 2), (Values{{1, 3}}));
}

TEST(TaskShapeTest, ABandTheShapeSampledCoarselyIsMeasuredInsideFirst) {
  // The shape measured every 8th value: 1 except 10 at 32 and 5 at 40 (mean 22 / 9). C = 8
  // gives M = 9: the ends, then the knots 32, 24, 48, 40 (every shape value off the line), and
  // three more values by score h (1 + h^2 f''). 0..24 holds shape values on its line (8 and 16
  // are 1): no bend, 24. 24..32 and 32..40 hold none and the shape bends at 32 by 5.74 means
  // (|1 - 20 + 5| / 2.44) over its spacing 8: 8 (1 + 5.74) = 53.9 each, so 28 and 36 come
  // first (the widest-gap rule took 12, 56 and 28). 40..48's bend (1.64 at 48) scores 21.1,
  // less than 0..24's width: 12 is third.
  const TaskCosts S =
      shape1d(0, 64, {0, 8, 16, 24, 32, 40, 48, 56, 64}, {1, 1, 1, 1, 10, 5, 1, 1, 1});
  EXPECT_EQ(chooseTaskValues(S, 8, 0.05), (Values{{0, 12, 24, 28, 32, 36, 40, 48, 64}}));
}

namespace {

using Points = std::vector<std::vector<int64_t>>;

/// A 2-D task set 0..N-1 x 0..N-1 whose shape is the centred lattice of stride C, timed by Fn.
template <typename F> TaskCosts shape2d(int64_t N, int64_t C, F &&Fn) {
  TaskCosts S;
  S.Dims = 2;
  S.Grid = true;
  S.Axes = {{0, N - 1, 1}, {0, N - 1, 1}};
  for (long long I = 0; I < N; ++I)
    for (long long J = 0; J < N; ++J) {
      const long long P[2] = {I, J};
      if (mpiete_task_in_shape(2, P, C, 1)) {
        S.MeasuredParams.insert(S.MeasuredParams.end(), {I, J});
        S.MeasuredSeconds.push_back(Fn(I, J));
      }
    }
  return S;
}

} // namespace

TEST(TaskShapeTest, PointsGoWhereTheShapeChanges) {
  // 9 x 9 tasks, stride 4: the lattice would hold 3 x 3 = 9. The shape (13 tasks: the
  // multiples of 4 and (2, 2), (2, 6), (6, 2), (6, 6)) costs 1 for i <= 4 and 10 from i = 6 on.
  const TaskCosts S = shape2d(9, 4, [](long long I, long long) { return I >= 6 ? 10.0 : 1.0; });
  const Points P = chooseTaskPoints(S, 4);
  ASSERT_EQ(P.size(), 9u);
  // The scale: the shape's costliest (10 of its 58 s hold 10%), (6, 2) first of the equals.
  EXPECT_TRUE(std::count(P.begin(), P.end(), std::vector<int64_t>{6, 2}));
  std::set<std::vector<int64_t>> Shape;
  for (size_t T = 0; T < S.measuredCount(); ++T)
    Shape.insert({S.MeasuredParams[2 * T], S.MeasuredParams[2 * T + 1]});
  for (const auto &X : P) {
    if (X == std::vector<int64_t>{6, 2})
      continue;
    EXPECT_FALSE(Shape.count(X)) << X[0] << "," << X[1]; // the shape measured it already
    // Every other point lies where the costs change: between i = 2 and i = 8 (a triangle
    // touching i <= 4 and i >= 6); none in the flat part i < 3 (its corners are in the shape).
    EXPECT_GE(X[0], 3) << X[0] << "," << X[1];
    EXPECT_LE(X[0], 7) << X[0] << "," << X[1];
  }
}

TEST(TaskShapeTest, AFlatShapeFillsItsLargestSimplicesAndTheCornersItMissed) {
  // 10 x 10 tasks, stride 4: 3 x 3 = 9 points; the centred lattice's multiples of 4 stop at 8,
  // so 3 corners (0, 9), (9, 0), (9, 9) are missing and 2 x 4 <= 9: they are measured.
  const TaskCosts S = shape2d(10, 4, [](long long, long long) { return 1.0; });
  const Points P = chooseTaskPoints(S, 4);
  ASSERT_EQ(P.size(), 9u);
  for (const auto &C : Points{{0, 9}, {9, 0}, {9, 9}})
    EXPECT_TRUE(std::count(P.begin(), P.end(), C)) << C[0] << "," << C[1];
  EXPECT_TRUE(std::count(P.begin(), P.end(), std::vector<int64_t>{0, 0})); // the scale (a tie)
  EXPECT_TRUE(std::is_sorted(P.begin(), P.end()));
}

TEST(TaskShapeTest, NoPointsForOneParameterOrWithoutAShape) {
  EXPECT_TRUE(chooseTaskPoints(shape1d(0, 31, {0, 8, 16, 24}, {1, 2, 3, 4}), 8).empty());
  TaskCosts None = shape2d(9, 4, [](long long, long long) { return 1.0; });
  None.MeasuredParams.clear();
  None.MeasuredSeconds.clear();
  EXPECT_TRUE(chooseTaskPoints(None, 4).empty());
  EXPECT_TRUE(chooseTaskPoints(shape2d(9, 4, [](long long, long long) { return 1.0; }), 1).empty());
}

TEST(TaskShapeTest, AMachineProbedForItsSpeedRatioTakesTheCostliestPoints) {
  TaskCosts S;
  S.Dims = 2;
  S.MeasuredParams = {0, 0, 1, 1, 2, 2, 3, 3};
  S.MeasuredSeconds = {2, 8, 3, 3};
  const Points P = {{0, 0}, {1, 1}, {2, 2}, {3, 3}};
  EXPECT_EQ(costliestPoints(ShapeEstimate(S), P, 4), (Points{{1, 1}})); // 8 s hold 4
  EXPECT_EQ(costliestPoints(ShapeEstimate(S), P, 10),
            (Points{{1, 1}, {2, 2}})); // 8 + 3 (the first of equals)
  EXPECT_EQ(costliestPoints(ShapeEstimate(S), P, 0), P);
  EXPECT_EQ(costliestPoints(ShapeEstimate(S), P, 100), P); // never more than all of them
  // The lattice's estimate: (0, 1) and (1, 0) are interpolated on the line the shape timed
  // (a set in one line: the nearest measured task, (0, 0) before (1, 1)), (0, 0) and (1, 1)
  // measured: 2 + 2 + 2 + 8.
  EXPECT_DOUBLE_EQ(ShapeEstimate(S).latticeSeconds({{0, 1}, {0, 1}}), 14);
  EXPECT_EQ(taskPointsText(Points{{1, 2}, {30, 4}}), "1 2\n30 4\n");
}

TEST(TaskShapeTest, AMachineProbedForItsSpeedRatioTakesTheFewestReferenceTasksThatHoldTheBudget) {
  // The reference machine measured 0.5, 4, 1, 2.5, 1.5 and 0 s (a task of 0 never counts).
  const TaskCosts R = shape1d(0, 99, {0, 20, 40, 60, 80, 99}, {0.5, 4, 1, 2.5, 1.5, 0});
  // One task holds 1.2 s alone: the cheapest that does, 1.5 s (not the costliest, 4 s).
  EXPECT_EQ(ratioTasks(R, 1.2), (Values{{80}}));
  EXPECT_EQ(ratioTasks(R, 0.2), (Values{{0}})); // 0.5 s, the cheapest of all
  EXPECT_EQ(ratioTasks(R, 4), (Values{{20}}));  // exactly 4 s
  // None holds 5 s alone: the costliest, 4 s, then the cheapest that holds the missing 1 s.
  EXPECT_EQ(ratioTasks(R, 5), (Values{{20}, {40}}));
  // 7.2 s: 4, then 2.5 (none holds 3.2 alone), then 1 for the missing 0.7 (not 1.5).
  EXPECT_EQ(ratioTasks(R, 7.2), (Values{{20}, {40}, {60}}));
  // 7.8 s: 4, 2.5, then 1.5 for the missing 1.3 (1 and 0.5 together would be two tasks).
  EXPECT_EQ(ratioTasks(R, 7.8), (Values{{20}, {60}, {80}}));
  // 8.2 s: three tasks hold at most 8: 4, 2.5, 1.5 and the cheapest, 0.5, for the last 0.2.
  EXPECT_EQ(ratioTasks(R, 8.2), (Values{{0}, {20}, {60}, {80}}));
  EXPECT_EQ(ratioTasks(R, 0), (Values{{0}, {20}, {40}, {60}, {80}}));   // all that count
  EXPECT_EQ(ratioTasks(R, 100), (Values{{0}, {20}, {40}, {60}, {80}})); // never more
  // Two parameters; equal times: the first in the reference's order.
  TaskCosts T;
  T.Dims = 2;
  T.MeasuredParams = {5, 1, 3, 2, 1, 9};
  T.MeasuredSeconds = {2, 2, 7};
  EXPECT_EQ(ratioTasks(T, 1), (Values{{5, 1}}));
  EXPECT_EQ(ratioTasks(T, 8), (Values{{1, 9}, {5, 1}}));
  EXPECT_TRUE(ratioTasks(TaskCosts{}, 1).empty());
}
