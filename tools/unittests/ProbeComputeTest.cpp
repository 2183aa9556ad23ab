// `mpiete probe-compute` end to end: runs the token machine's test program
// (runtime/test/token.c) under the command and checks the compute base data it
// writes.
#include "mpiete/tools/Commands.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

namespace fs = std::filesystem;
using namespace mpiete;

namespace {

/// Open MPI refuses to run as root (a container's user) unless told it is fine.
class ProbeCompute : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
};

YAML::Node runProbe(const std::string &Name, int Np, const std::string &Scenario) {
  const fs::path Out = fs::path(MPIETE_TEST_BINARY_DIR) / (Name + ".yaml");
  fs::remove(Out);
  const int Rc = runProbeCompute({"-o", Out.string(), "-np", std::to_string(Np), "--launcher",
                                  MPIETE_TEST_MPIRUN, MPIETE_TEST_TOKEN_PROGRAM, Scenario});
  EXPECT_EQ(Rc, 0);
  return fs::exists(Out) ? YAML::LoadFile(Out.string()) : YAML::Node();
}

const YAML::Node *findBlock(const YAML::Node &Blocks, const std::string &Id, YAML::Node &Hold) {
  for (const YAML::Node &B : Blocks)
    if (B["id"].as<std::string>() == Id) {
      Hold = B;
      return &Hold;
    }
  return nullptr;
}

TEST_F(ProbeCompute, EveryRankEveryBlock) {
  // The ring scenario: every rank runs compute block 300 five times.
  YAML::Node Doc = runProbe("ring", 3, "ring");
  ASSERT_TRUE(Doc.IsMap());
  EXPECT_EQ(Doc["format"].as<std::string>(), "mpiete-compute");
  EXPECT_EQ(Doc["version"].as<int>(), 2);
  // The token machine's test program runs seed-mode block hooks: blocks, no segments.
  EXPECT_EQ(Doc["partition"].as<std::string>(), "blocks");
  const YAML::Node Prov = Doc["provenance"];
  EXPECT_TRUE(Prov["token_passing"].as<bool>());
  EXPECT_EQ(Prov["ranks"].as<int>(), 3);
  EXPECT_FALSE(Prov["cpu_model"].as<std::string>().empty());
  EXPECT_FALSE(Prov["date"].as<std::string>().empty());
  EXPECT_GT(Doc["timer_overhead_seconds"].as<double>(), 0.0);
  ASSERT_EQ(Doc["ranks"].size(), 3u);
  for (int R = 0; R < 3; ++R) {
    const YAML::Node Rank = Doc["ranks"][R];
    EXPECT_EQ(Rank["rank"].as<int>(), R);
    YAML::Node Hold;
    const YAML::Node *B = findBlock(Rank["blocks"], "00abc123:300", Hold);
    ASSERT_NE(B, nullptr) << "rank " << R;
    EXPECT_EQ((*B)["kind"].as<std::string>(), "block");
    EXPECT_EQ((*B)["executions"].as<int>(), 5);
    EXPECT_GE((*B)["mean_seconds"].as<double>(), 0.0);
    EXPECT_GE((*B)["max_seconds"].as<double>(), (*B)["min_seconds"].as<double>());
    // Communication blocks are not compute base data.
    EXPECT_EQ(findBlock(Rank["blocks"], "00abc123:302", Hold), nullptr);
  }
}

TEST_F(ProbeCompute, LongBlockMeasured) {
  // The sleeping scenario: rank 0's block 604 computes for 0.3 s.
  YAML::Node Doc = runProbe("sleeping", 2, "sleeping");
  ASSERT_TRUE(Doc.IsMap());
  YAML::Node Hold;
  const YAML::Node *B = findBlock(Doc["ranks"][0]["blocks"], "00abc123:604", Hold);
  ASSERT_NE(B, nullptr);
  const double Mean = (*B)["mean_seconds"].as<double>();
  EXPECT_GT(Mean, 0.2);
  EXPECT_LT(Mean, 3.0);
}

TEST_F(ProbeCompute, FailingProgramIsAnError) {
  const fs::path Out = fs::path(MPIETE_TEST_BINARY_DIR) / "deadlock.yaml";
  fs::remove(Out);
  EXPECT_NE(runProbeCompute({"-o", Out.string(), "-np", "2", "--launcher", MPIETE_TEST_MPIRUN,
                             MPIETE_TEST_TOKEN_PROGRAM, "deadlock"}),
            0);
  EXPECT_FALSE(fs::exists(Out));
}

TEST_F(ProbeCompute, UsageErrors) {
  EXPECT_EQ(runProbeCompute({"-np", "2", MPIETE_TEST_TOKEN_PROGRAM}), 2);
  EXPECT_EQ(runProbeCompute({"-o", "x.yaml", MPIETE_TEST_TOKEN_PROGRAM}), 2);
}

} // namespace
