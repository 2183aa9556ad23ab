// NNLS against answers known by hand: exact non-negative fits, an active constraint, rank
// deficiency.
#include "mpiete/scaling/Nnls.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mpiete::scaling;

namespace {

Matrix make(std::initializer_list<std::initializer_list<double>> Rows) {
  Matrix A(Rows.size(), Rows.begin()->size());
  size_t I = 0;
  for (auto R : Rows) {
    size_t J = 0;
    for (double V : R)
      A(I, J++) = V;
    ++I;
  }
  return A;
}

TEST(NnlsTest, ExactPositiveSolution) {
  // b = 2 * a0 + 3 * a1 exactly.
  Matrix A = make({{1, 0}, {1, 1}, {1, 2}, {1, 3}});
  NnlsResult R = solveNnls(A, {2, 5, 8, 11});
  ASSERT_TRUE(R.Converged);
  EXPECT_NEAR(R.X[0], 2, 1e-12);
  EXPECT_NEAR(R.X[1], 3, 1e-12);
  EXPECT_NEAR(R.Residual, 0, 1e-12);
}

TEST(NnlsTest, NegativeUnconstrainedCoefficientIsClamped) {
  // The unconstrained fit of b = 4 - x is (4, -1); with x >= 0 the slope is 0 and the
  // intercept the mean of b, 2.5 (the least-squares constant).
  Matrix A = make({{1, 0}, {1, 1}, {1, 2}, {1, 3}});
  NnlsResult R = solveNnls(A, {4, 3, 2, 1});
  ASSERT_TRUE(R.Converged);
  EXPECT_NEAR(R.X[0], 2.5, 1e-12);
  EXPECT_EQ(R.X[1], 0);
  // Residual of (1.5, 0.5, -0.5, -1.5): sqrt(5).
  EXPECT_NEAR(R.Residual, std::sqrt(5.0), 1e-12);
}

TEST(NnlsTest, AllNegativeGivesZero) {
  Matrix A = make({{1}, {2}, {3}});
  NnlsResult R = solveNnls(A, {-1, -2, -3});
  EXPECT_EQ(R.X[0], 0);
  EXPECT_NEAR(R.Residual, std::sqrt(14.0), 1e-12);
}

TEST(NnlsTest, DuplicateColumnDoesNotBreakIt) {
  // Columns 0 and 1 are equal: any split of 6 between them fits; the sum must be 6.
  Matrix A = make({{1, 1, 0}, {2, 2, 1}, {3, 3, 0}});
  NnlsResult R = solveNnls(A, {6, 13, 18});
  ASSERT_TRUE(R.Converged);
  EXPECT_NEAR(R.X[0] + R.X[1], 6, 1e-9);
  EXPECT_NEAR(R.X[2], 1, 1e-9);
}

TEST(NnlsTest, LeastSquaresOnChosenColumns) {
  Matrix A = make({{1, 5, 0}, {1, 7, 1}, {1, 9, 2}});
  std::vector<double> X = leastSquares(A, {1, 3, 5}, {0, 2});
  ASSERT_EQ(X.size(), 2u);
  EXPECT_NEAR(X[0], 1, 1e-12);
  EXPECT_NEAR(X[1], 2, 1e-12);
}

} // namespace
