// The best configuration of a small two-type cluster: the pruned search finds what replaying
// every configuration finds, every bound is below its replay, and the answer is the one worked
// out by hand.
#include "mpiete/scaling/BestConfig.h"

#include "RingModel.h"

#include <gtest/gtest.h>

using namespace mpiete::scaling;
using namespace mpiete::estimator;
using namespace mpiete::scaling::ringmodel;

namespace {

struct Fixture {
  CommStructure S = ringStructure(1e4);
  // Work: 1e-6 W / p seconds, then 1e-4 seconds after the exchange.
  ScalingModelFile File = ringModel({Term{-1, 0, 1, 0}}, {1e-6});
  ClusterProblem Problem;
  Fixture(double LinkSeconds) {
    Problem.File = &File;
    Problem.Structure = &S;
    Problem.Size = 1e4;
    // Fast: 2 nodes; slow (twice the time): 3 nodes; one core each.
    Problem.Types = {{"fast", 2, 1, 1.0}, {"slow", 3, 1, 2.0}};
    Problem.Intra = Problem.Inter = fixedLink(LinkSeconds);
  }
};

TEST(BestConfig, PrunedEqualsExhaustiveAndTheHandAnswer) {
  Fixture F(0);
  BestConfigResult All, Pruned;
  std::string Err;
  ASSERT_TRUE(searchBestConfig(F.Problem, 2, true, All, Err)) << Err;
  ASSERT_TRUE(searchBestConfig(F.Problem, 2, false, Pruned, Err)) << Err;
  // (1 + 2 nodes x 2) x (1 + 3 x 2) - 1 (no rank at all).
  EXPECT_EQ(All.Configurations, 34u);
  EXPECT_EQ(All.Replayed, 34u);
  EXPECT_LT(Pruned.Replayed, All.Replayed);
  for (const ConfigResult &R : All.Evaluated)
    EXPECT_LE(R.Bound, R.Seconds) << R.C.text(F.Problem.Types);
  // By hand (a free network: the slowest rank's compute): every node, two ranks on each fast
  // node (time-shared: factor 2) and one on each slow node (factor 2): P = 7,
  // T = 2 (1e-2 / 7 + 1e-4) = 3.057143e-3 s. Every other configuration is slower.
  EXPECT_EQ(All.Best.C.Nodes, (std::vector<int>{2, 3}));
  EXPECT_EQ(All.Best.C.PerNode, (std::vector<int>{2, 1}));
  EXPECT_NEAR(All.Best.Seconds, 2 * (1e-2 / 7 + 1e-4), 2e-9);
  EXPECT_EQ(Pruned.Best.C.Nodes, All.Best.C.Nodes);
  EXPECT_EQ(Pruned.Best.C.PerNode, All.Best.C.PerNode);
  EXPECT_EQ(Pruned.Best.Seconds, All.Best.Seconds);
}

TEST(BestConfig, CommunicationChangesTheAnswer) {
  // 1 ms per message: the ring's exchange costs every configuration of two ranks or more the
  // same, and one rank alone sends to itself; the search still agrees with replaying all.
  Fixture F(1e-3);
  BestConfigResult All, Pruned;
  std::string Err;
  ASSERT_TRUE(searchBestConfig(F.Problem, 2, true, All, Err)) << Err;
  ASSERT_TRUE(searchBestConfig(F.Problem, 2, false, Pruned, Err)) << Err;
  for (const ConfigResult &R : All.Evaluated)
    EXPECT_LE(R.Bound, R.Seconds) << R.C.text(F.Problem.Types);
  double Min = All.Evaluated.front().Seconds;
  for (const ConfigResult &R : All.Evaluated)
    Min = std::min(Min, R.Seconds);
  EXPECT_EQ(All.Best.Seconds, Min);
  EXPECT_EQ(Pruned.Best.Seconds, Min);
}

TEST(BestConfig, Factors) {
  EXPECT_DOUBLE_EQ(rankFactor({"a", 1, 4, 1.5}, 2), 1.5);
  EXPECT_DOUBLE_EQ(rankFactor({"a", 1, 4, 1.5}, 8), 3.0);
  Configuration C{{2, 0}, {3, 0}};
  EXPECT_EQ(C.ranks(), 6);
  EXPECT_EQ(C.text({{"a", 2, 1, 1}, {"b", 1, 1, 1}}), "a: 2 nodes x 3 ranks, b: 0 nodes");
}

} // namespace
