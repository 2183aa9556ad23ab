// `mpiete probe-compute` end to end: runs the token machine's test program
// (runtime/test/token.c) under the command and checks the compute base data it
// writes.
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/Commands.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
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

/// A timing run's file of two ranks: rank R's segment (1 -> 2) takes Mean + R seconds, and
/// with Extra rank 0 also has segment (2 -> 3).
MachineFile timingRun(double Mean, double ProbeSeconds, bool Extra = false) {
  MachineFile F;
  F.Partition = MachinePartition::Segments;
  F.Provenance.Program = "./app.timing";
  F.Provenance.Arguments = {"100"};
  F.Provenance.Ranks = 2;
  F.Provenance.CpuModel = "Test CPU";
  F.Provenance.Date = "2026-12-03T08:00:00Z";
  F.Provenance.Tool = "mpiete test";
  F.Provenance.ProbeSeconds = ProbeSeconds;
  for (int R = 0; R < 2; ++R) {
    MachineRank &Rank = F.Ranks.emplace_back();
    Rank.Rank = R;
    MachineSegment &G = Rank.Segments.emplace_back();
    G.From = 0x1234abcd00000001ull;
    G.To = 0x1234abcd00000002ull;
    G.Executions = 10;
    G.MeanSeconds = G.MinSeconds = G.MaxSeconds = Mean + R;
    if (Extra && R == 0) {
      MachineSegment &H = Rank.Segments.emplace_back(G);
      H.From = G.To;
      H.To = 0x1234abcd00000003ull;
      H.Executions = 1;
    }
  }
  return F;
}

fs::path writeRun(const std::string &Name, const MachineFile &F) {
  const fs::path Path = fs::path(MPIETE_TEST_BINARY_DIR) / Name;
  std::ofstream(Path) << [&] {
    std::ostringstream OS;
    writeMachineFile(OS, F);
    return OS.str();
  }();
  fs::remove(taskCostsPathOf(Path.string()));
  return Path;
}

void writeTasks(const fs::path &Machine, std::vector<double> Seconds) {
  TaskCosts T;
  T.Dims = 1;
  T.Grid = true;
  T.Axes = {TaskAxis{0, 3, 1}};
  T.MeasuredParams = {0, 3};
  T.MeasuredSeconds = std::move(Seconds);
  std::ofstream OS(taskCostsPathOf(Machine.string()));
  writeTaskCosts(OS, T);
}

TEST(ProbeComputeCombine, EachSegmentTheMedianOfTheFiles) {
  const fs::path A = writeRun("combine-a.yaml", timingRun(1.0, 2.0, /*Extra=*/true));
  const fs::path B = writeRun("combine-b.yaml", timingRun(3.0, 2.5));
  const fs::path C = writeRun("combine-c.yaml", timingRun(2.0, 3.5));
  writeTasks(A, {0.1, 0.5});
  writeTasks(B, {0.3, 0.4});
  writeTasks(C, {0.2, 0.9});
  const fs::path Out = fs::path(MPIETE_TEST_BINARY_DIR) / "combined.yaml";
  fs::remove(Out);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(runProbeCompute({"--combine", A.string() + "," + B.string() + "," + C.string(), "-o",
                             Out.string()}),
            0);
  const std::string Said = ::testing::internal::GetCapturedStderr();
  // Each run's compute: 10 x (m + m + 1), and rank 0's segment that only the first run made
  // (1 s) in every run; the records' sum 10 x (2 + 3) + 1.
  EXPECT_NE(Said.find("combined 3 timing runs; their compute summed over the ranks 31 71 51 s; "
                      "each segment the median (51 s)"),
            std::string::npos)
      << Said;

  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  MachineFile Back;
  ASSERT_TRUE(loadMachineFile(Out.string(), Back, Diags)) << Errors.str();
  EXPECT_EQ(Back.Provenance.Repeats, 3);
  ASSERT_EQ(Back.Provenance.CombinedFrom.size(), 3u);
  EXPECT_EQ(Back.Provenance.CombinedFrom[1], B.string() + " (2026-12-03T08:00:00Z)");
  EXPECT_DOUBLE_EQ(Back.Provenance.ProbeSeconds, 8.0); // every run's cost
  EXPECT_EQ(Back.Provenance.Arguments, (std::vector<std::string>{"100"}));
  ASSERT_EQ(Back.Ranks.size(), 2u);
  for (int R = 0; R < 2; ++R) {
    const MachineSegment &G = Back.Ranks[size_t(R)].Segments.front();
    EXPECT_DOUBLE_EQ(G.MeanSeconds, 2.0 + R) << "rank " << R; // median of 1, 3, 2 (+ R)
    EXPECT_EQ(G.RepeatSeconds, (std::vector<double>{1.0 + R, 3.0 + R, 2.0 + R}));
  }
  // A segment only one file has keeps its record, without a spread.
  ASSERT_EQ(Back.Ranks[0].Segments.size(), 2u);
  EXPECT_DOUBLE_EQ(Back.Ranks[0].Segments[1].MeanSeconds, 1.0);
  EXPECT_TRUE(Back.Ranks[0].Segments[1].RepeatSeconds.empty());
  // The farm's task costs, task by task.
  TaskCosts Tasks;
  ASSERT_TRUE(loadTaskCosts(taskCostsPathOf(Out.string()), Tasks, Diags)) << Errors.str();
  EXPECT_EQ(Tasks.MeasuredSeconds, (std::vector<double>{0.2, 0.5}));
}

TEST(ProbeComputeCombine, OtherMeasurementsAreRefusedAtTheirFile) {
  const fs::path A = writeRun("refuse-a.yaml", timingRun(1.0, 1.0));
  MachineFile Other = timingRun(1.0, 1.0);
  Other.Provenance.Arguments = {"200"};
  const fs::path B = writeRun("refuse-b.yaml", Other);
  MachineFile Fewer = timingRun(1.0, 1.0);
  Fewer.Ranks.pop_back();
  Fewer.Provenance.Ranks = 1;
  const fs::path C = writeRun("refuse-c.yaml", Fewer);
  MachineFile Capped = timingRun(1.0, 1.0);
  Capped.Provenance.SampleCap = 2;
  const fs::path D = writeRun("refuse-d.yaml", Capped);
  const fs::path Out = fs::path(MPIETE_TEST_BINARY_DIR) / "refused.yaml";
  for (const auto &[Second, Says] :
       {std::pair<fs::path, std::string>{B, "the arguments ('200' against '100')"},
        {C, "the rank count (1 against 2)"},
        {D, "how loops were timed (--cap 2"}}) {
    fs::remove(Out);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(
        runProbeCompute({"--combine", A.string() + "," + Second.string(), "-o", Out.string()}), 1);
    const std::string Said = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(Said.find(Second.string() + ": error: differs from " + A.string() + " in " + Says),
              std::string::npos)
        << Said;
    EXPECT_FALSE(fs::exists(Out));
  }
  // Task costs beside one file of two.
  writeTasks(A, {0.1, 0.2});
  const fs::path E = writeRun("refuse-e.yaml", timingRun(2.0, 1.0));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(runProbeCompute({"--combine", A.string() + "," + E.string(), "-o", Out.string()}), 1);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("task costs beside 1 of the 2"),
            std::string::npos);
  // The same file twice.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(runProbeCompute({"--combine", E.string() + "," + E.string(), "-o", Out.string()}), 1);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(E.string() +
                                                          ": error: given twice to --combine"),
            std::string::npos);
  // One file, or a program to run as well: usage errors.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(runProbeCompute({"--combine", A.string(), "-o", Out.string()}), 2);
  EXPECT_EQ(runProbeCompute({"--combine", A.string() + "," + E.string(), "-o", Out.string(), "-np",
                             "2", MPIETE_TEST_TOKEN_PROGRAM}),
            2);
  ::testing::internal::GetCapturedStderr();
}

} // namespace
