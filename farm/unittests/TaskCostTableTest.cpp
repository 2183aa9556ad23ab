// Seed 000's subset rule and N-dimensional interpolation on hand-built costs.
#include "mpiete/farm/TaskCostTable.h"

#include <gtest/gtest.h>

using namespace mpiete;
using namespace mpiete::farm;

namespace {

TaskCosts costs(int Dims, std::vector<int64_t> Params, std::vector<double> Seconds) {
  TaskCosts C;
  C.Dims = Dims;
  C.MeasuredParams = std::move(Params);
  C.MeasuredSeconds = std::move(Seconds);
  return C;
}

double at(const TaskCostTable &T, std::vector<int64_t> P) { return T.seconds(P); }

} // namespace

TEST(TaskSubsetTest, EveryStrideThValueAlongEachParameter) {
  TaskCosts C;
  C.Dims = 2;
  C.Grid = true;
  C.Axes = {{0, 4, 1}, {0, 2, 1}}; // 5 x 3 tasks, j fastest: index = 3 i + j
  EXPECT_EQ(subsetOf(C.allTasks(), 2, 2), (std::vector<size_t>{0, 2, 6, 8, 12, 14}));
  EXPECT_EQ(subsetOf(C.allTasks(), 2, 1).size(), 15u);
  EXPECT_EQ(subsetOf({-3, 0, 3, 5, 6}, 1, 3), (std::vector<size_t>{0, 1, 2, 4}));
}

TEST(TaskSubsetTest, WithTheGridBothEndsOfEveryAxisAsInSeedFigureOne) {
  // Seed 000's figure 1: c_1 = 10 values 1..10, every third: I_s = {1, 4, 7, 10}.
  TaskCosts C;
  C.Dims = 1;
  C.Grid = true;
  C.Axes = {{1, 10, 1}};
  const std::vector<int64_t> All = C.allTasks(); // index = value - 1
  EXPECT_EQ(subsetOf(All, 1, 3, C.Axes), (std::vector<size_t>{0, 3, 6, 9}));
  // 32 values, stride 8: ceil(32 / 8) = 4 values from 0 to 31, k * 31 / 3 rounded: 0 10 21 31.
  C.Axes = {{0, 31, 1}};
  EXPECT_EQ(subsetOf(C.allTasks(), 1, 8, C.Axes), (std::vector<size_t>{0, 10, 21, 31}));
  // Every second of those (a machine probed for r_s only): k = 0 and 2.
  EXPECT_EQ(subsetOf(C.allTasks(), 1, 8, C.Axes, 2), (std::vector<size_t>{0, 21}));
  // A stride larger than the axis still measures both ends; stride 1 measures all.
  EXPECT_EQ(subsetOf(C.allTasks(), 1, 100, C.Axes), (std::vector<size_t>{0, 31}));
  EXPECT_EQ(subsetOf(C.allTasks(), 1, 1, C.Axes).size(), 32u);
  // Two axes with steps: i in 10, 20, .., 50 (5 values), j in 0, 3, 6 (3 values), stride 2:
  // i takes 3 values (10 30 50), j 2 (0 6); index = 3 (i / 10 - 1) + j / 3.
  C.Dims = 2;
  C.Axes = {{10, 50, 10}, {0, 6, 3}};
  EXPECT_EQ(subsetOf(C.allTasks(), 2, 2, C.Axes), (std::vector<size_t>{0, 2, 6, 8, 12, 14}));
  // Without the grid: the multiples of the stride (here every i, and j = 0 and 6).
  EXPECT_EQ(subsetOf(C.allTasks(), 2, 2), (std::vector<size_t>{0, 2, 3, 5, 6, 8, 9, 11, 12, 14}));
}

TEST(TaskCostTableTest, OneParameterAsInSeedFigureOne) {
  // c_1 = 10, I_s = {1, 4, 7, 10}.
  const TaskCostTable T(costs(1, {1, 4, 7, 10}, {10, 40, 10, 100}));
  EXPECT_EQ(at(T, {4}), 40);
  EXPECT_DOUBLE_EQ(at(T, {5}), 30); // 40 + (10 - 40) / 3
  EXPECT_DOUBLE_EQ(at(T, {9}), 70); // 10 + (100 - 10) * 2 / 3
  EXPECT_DOUBLE_EQ(at(T, {2}), 20); // 10 + 30 / 3
  EXPECT_EQ(at(T, {0}), 10);        // below the grid: the nearest measured value
  EXPECT_EQ(at(T, {12}), 100);      // above it, likewise
}

TEST(TaskCostTableTest, TwoParametersBilinear) {
  // T(i, j) = 1 + 2 i + j measured at the corners of [0, 4] x [0, 4]: bilinear is exact.
  const TaskCostTable T(costs(2, {0, 0, 0, 4, 4, 0, 4, 4}, {1, 5, 9, 13}));
  EXPECT_EQ(at(T, {2, 1}), 6);
  EXPECT_EQ(at(T, {1, 3}), 6);
  EXPECT_EQ(at(T, {4, 2}), 11);
  EXPECT_EQ(at(T, {6, 2}), 11); // i off the grid: i = 4's values
  EXPECT_FALSE(T.scattered());
}

TEST(TaskCostTableTest, AScatteredSetIsLinearOverItsDelaunaySimplices) {
  // (0, 0), (0, 4), (4, 0): one triangle, T = 1 + 2 i + j on it; (4, 4) was not measured.
  const TaskCostTable T(costs(2, {0, 0, 0, 4, 4, 0}, {1, 5, 9}));
  EXPECT_TRUE(T.scattered());
  EXPECT_DOUBLE_EQ(at(T, {2, 2}), 7);
  EXPECT_DOUBLE_EQ(at(T, {1, 1}), 4);
  EXPECT_EQ(at(T, {4, 0}), 9);
  EXPECT_EQ(at(T, {4, 3}), 9); // outside the hull: the nearest measured task, (4, 0)
  EXPECT_EQ(at(T, {1, 4}), 5); // (0, 4)
}

TEST(TaskCostTableTest, AFullGridStaysSeedZeroZeroZerosAndALineTheCornerRule) {
  EXPECT_FALSE(TaskCostTable(costs(2, {0, 0, 0, 4, 4, 0, 4, 4}, {1, 5, 9, 13})).scattered());
  // Measured along the diagonal only: no triangle. The box (0, 0)-(4, 4) has two corners
  // measured; each axis's missing corner gives its weight to the other one.
  const TaskCostTable T(costs(2, {0, 0, 4, 4, 8, 8}, {1, 5, 9}));
  EXPECT_FALSE(T.scattered());
  EXPECT_EQ(at(T, {4, 4}), 5);
  EXPECT_DOUBLE_EQ(at(T, {2, 2}), 3); // (0, 0) and (4, 4) halfway
  EXPECT_EQ(at(T, {0, 4}), 1);        // no corner measured: the nearest task, (0, 0) before (4, 4)
}
