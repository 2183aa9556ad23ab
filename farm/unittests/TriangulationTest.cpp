// The Delaunay triangulation of scattered task parameters: linear interpolation over its
// simplices reproduces a linear function exactly, and nothing is found outside the hull.
#include "mpiete/farm/Triangulation.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mpiete::farm;

namespace {

/// Sum over the simplex holding X of its corners' F, weighted; NaN outside.
template <typename F>
double interpolate(const Triangulation &T, const std::vector<double> &Points, std::vector<double> X,
                   F &&Fn) {
  const size_t D = size_t(T.dims());
  std::vector<double> W(D + 1);
  const long S = T.locate(X, W);
  if (S < 0)
    return std::nan("");
  double Sum = 0, Weights = 0;
  for (size_t K = 0; K <= D; ++K) {
    EXPECT_GE(W[K], -1e-9);
    Weights += W[K];
    Sum += W[K] * Fn(&Points[size_t(T.simplex(size_t(S))[K]) * D]);
  }
  EXPECT_NEAR(Weights, 1, 1e-12);
  return Sum;
}

} // namespace

TEST(TriangulationTest, ALinearFunctionIsExactInsideTheHullAndNothingOutside) {
  // A 4 x 4 square with a point inside: cospherical corners, so Qhull triangulates a square.
  const std::vector<double> P = {0, 0, 4, 0, 0, 4, 4, 4, 1, 2};
  std::string Why;
  const auto T = Triangulation::build(2, P, Why);
  ASSERT_TRUE(T) << Why;
  EXPECT_EQ(T->simplexCount(), 4u); // the inner point splits the square into four triangles
  double Area = 0;
  for (size_t S = 0; S < T->simplexCount(); ++S)
    Area += T->volume(S);
  EXPECT_DOUBLE_EQ(Area, 16);
  auto F = [](const double *X) { return 3 + 2 * X[0] - X[1]; };
  for (double X = 0; X <= 4; X += 0.5)
    for (double Y = 0; Y <= 4; Y += 0.5)
      EXPECT_NEAR(interpolate(*T, P, {X, Y}, F), 3 + 2 * X - Y, 1e-12) << X << "," << Y;
  std::vector<double> W(3);
  EXPECT_EQ(T->locate(std::vector<double>{5, 1}, W), -1);
  EXPECT_EQ(T->locate(std::vector<double>{-0.5, 2}, W), -1);
  EXPECT_EQ(T->locate(std::vector<double>{2, 4.01}, W), -1);
}

TEST(TriangulationTest, ThreeParameters) {
  // The unit cube's corners scaled by 2, and its centre.
  std::vector<double> P;
  for (int C = 0; C < 8; ++C)
    P.insert(P.end(), {2.0 * (C & 1), 2.0 * (C >> 1 & 1), 2.0 * (C >> 2 & 1)});
  P.insert(P.end(), {1, 1, 1});
  std::string Why;
  const auto T = Triangulation::build(3, P, Why);
  ASSERT_TRUE(T) << Why;
  double Volume = 0;
  for (size_t S = 0; S < T->simplexCount(); ++S)
    Volume += T->volume(S);
  EXPECT_NEAR(Volume, 8, 1e-12);
  auto F = [](const double *X) { return 1 + X[0] + 2 * X[1] + 4 * X[2]; };
  EXPECT_NEAR(interpolate(*T, P, {0.5, 1.5, 0.25}, F), 1 + 0.5 + 3 + 1, 1e-12);
  EXPECT_NEAR(interpolate(*T, P, {2, 2, 2}, F), 15, 1e-12);
  std::vector<double> W(4);
  EXPECT_EQ(T->locate(std::vector<double>{1, 1, 2.5}, W), -1);
}

TEST(TriangulationTest, NothingFromTooFewPointsOrPointsInOneLine) {
  std::string Why;
  EXPECT_FALSE(Triangulation::build(2, {0, 0, 1, 1}, Why));
  EXPECT_EQ(Why, "2 points, fewer than 3");
  EXPECT_FALSE(Triangulation::build(2, {0, 0, 1, 1, 2, 2, 3, 3}, Why));
  EXPECT_FALSE(Why.empty());
  EXPECT_FALSE(Triangulation::build(1, {0, 1, 2}, Why));
}
