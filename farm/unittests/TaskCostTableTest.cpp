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
}

TEST(TaskCostTableTest, AMissingCornerGivesItsWeightToTheOtherOne) {
  const TaskCostTable T(costs(2, {0, 0, 0, 4, 4, 0}, {1, 5, 9}));
  // i = 0: 3 (between 1 and 5); i = 4: only (4, 0) = 9; halfway: 6.
  EXPECT_EQ(at(T, {2, 2}), 6);
  EXPECT_EQ(at(T, {4, 3}), 9); // (4, 4) missing: (4, 0) alone
}
