// The efficiency surface on a hand-built model whose times are known by hand: a ring exchange
// learnt from traces at 2, 4 and 8 ranks, a free network, and compute segments
// T = 1e-4 + 1e-6 W/p (1 + [W/p > 1000]) (seed 001's cache step: per-rank work past 1000 costs
// twice as much), replayed at every point of the grid.
#include "mpiete/scaling/Surface.h"
#include "mpiete/scaling/ModelFile.h"

#include "RingModel.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

using namespace mpiete::scaling;
using namespace mpiete::estimator;
using namespace mpiete::scaling::ringmodel;

namespace {

struct Fixture {
  CommStructure S = ringStructure(1000);
  // 1e-6 W/p, twice that past 1000 per rank.
  ScalingModelFile File = ringModel({Term{-1, 0, 1, 0}, Term{-1, 0, 1, 1000}}, {1e-6, 1e-6});
  std::shared_ptr<LinkModel> Free = fixedLink(0);
  ClusterNetworkModel Net{Free};
  SurfacePredictor predictor() {
    return [this](int P, double W, std::string &Err) -> std::optional<double> {
      ScaledComputeModel Compute(File, P, W);
      EstimateResult R = replayScaled(S, Compute, Net, P, W);
      if (!R.Ok) {
        Err = R.Errors.empty() ? "failed" : R.Errors.front().Message;
        return std::nullopt;
      }
      return R.predictedSeconds();
    };
  }
};

TEST(Surface, GridOfAHandBuiltModel) {
  Fixture F;
  SurfaceGrid G;
  std::string Err;
  ASSERT_TRUE(computeSurface({4, 1, 2, 2}, {4000, 1000}, F.predictor(), G, Err)) << Err;
  EXPECT_EQ(G.Ranks, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(G.Sizes, (std::vector<double>{1000, 4000}));
  EXPECT_EQ(G.BaseRanks, 1);
  // W = 1000: W/p = 1000, 500, 250 (no step); W = 4000: 4000, 2000 (stepped), 1000 (not).
  const std::vector<std::vector<double>> Time = {{1.1e-3, 6e-4, 3.5e-4}, {8.1e-3, 4.1e-3, 1.1e-3}};
  ASSERT_EQ(G.Time.size(), 2u);
  for (size_t J = 0; J < 2; ++J)
    for (size_t I = 0; I < 3; ++I) {
      EXPECT_NEAR(G.Time[J][I], Time[J][I], 1e-12) << J << " " << I;
      EXPECT_NEAR(G.Efficiency[J][I], Time[J][0] / (G.Ranks[I] * Time[J][I]), 1e-9);
    }
  EXPECT_NEAR(G.Efficiency[0][2], 1.1 / 1.4, 1e-9);
  EXPECT_NEAR(G.Efficiency[1][2], 8.1 / 4.4, 1e-9); // superlinear: the work fits the cache
  EXPECT_EQ(G.RidgePerSize, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(G.RidgePerRanks, (std::vector<size_t>{0, 1, 1}));
}

TEST(Surface, EfficiencyRelativeToTheSmallestRankCount) {
  // T(N, W) = W / N + 1: E(N, W) = 2 T(2, W) / (N T(N, W)).
  SurfacePredictor P = [](int N, double W, std::string &) -> std::optional<double> {
    return W / N + 1;
  };
  SurfaceGrid G;
  std::string Err;
  ASSERT_TRUE(computeSurface({2, 8}, {8}, P, G, Err)) << Err;
  EXPECT_EQ(G.BaseRanks, 2);
  EXPECT_DOUBLE_EQ(G.Efficiency[0][0], 1.0);
  EXPECT_DOUBLE_EQ(G.Efficiency[0][1], 2.0 * 5 / (8 * 2));
}

TEST(Surface, AFailedPointIsNamed) {
  SurfacePredictor P = [](int N, double, std::string &Err) -> std::optional<double> {
    if (N == 4) {
      Err = "no structure";
      return std::nullopt;
    }
    return 1.0;
  };
  SurfaceGrid G;
  std::string Err;
  EXPECT_FALSE(computeSurface({2, 4}, {100}, P, G, Err));
  EXPECT_EQ(Err, "at 4 ranks, size 100: no structure");
}

TEST(Surface, FileHoldsTheReportContract) {
  Fixture F;
  SurfaceGrid G;
  std::string Err;
  ASSERT_TRUE(computeSurface({1, 2, 4}, {1000, 4000}, F.predictor(), G, Err)) << Err;
  std::ostringstream OS;
  writeSurface(OS, G, "mpiete 0.1", "mpiete surface --ranks 1,2,4", "model.yaml", "s.svg");
  YAML::Node Root = YAML::Load(OS.str());
  EXPECT_EQ(Root["ranks"].as<std::vector<int>>(), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(Root["sizes"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"1000", "4000"}));
  EXPECT_NEAR(Root["time_seconds"][1][2].as<double>(), 1.1e-3, 1e-12);
  EXPECT_NEAR(Root["efficiency"][1][2].as<double>(), 8.1 / 4.4, 1e-8);
  EXPECT_EQ(Root["svg"].as<std::string>(), "s.svg");
  EXPECT_EQ(Root["command"].as<std::string>(), "mpiete surface --ranks 1,2,4");
  EXPECT_EQ(Root["ridge_ranks_per_size"].as<std::vector<int>>(), (std::vector<int>{1, 4}));

  const std::string Script = surfaceGnuplotScript(G, "svg", "s.svg", "t");
  EXPECT_NE(Script.find("set terminal svg"), std::string::npos);
  EXPECT_NE(Script.find("$RidgeSize << EOD\n1 1000\n4 4000\nEOD"), std::string::npos);
}

} // namespace
