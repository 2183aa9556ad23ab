// The subset's values placed by the trace probe's shape of the task costs, on hand-built shapes.
#include "mpiete/farm/TaskShape.h"

#include <gtest/gtest.h>

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
