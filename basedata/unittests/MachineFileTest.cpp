// machine.yaml: written, read back and compared field by field; the reader's located errors;
// a rank's timing file made into the machine file's seconds.
#include "mpiete/basedata/MachineFile.h"
#include "SampleFiles.h"
#include "mpiete/basedata/TimingFile.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mpiete;
using mpiete::samples::MachineText;

namespace {

MachineFile sample() {
  MachineFile F;
  MachineProvenance &P = F.Provenance;
  P.Program = "./app.timing";
  P.Arguments = {"-n", "2048"};
  P.Ranks = 2;
  P.Host = "node1";
  P.CpuModel = "Some CPU @ 2.40GHz";
  P.CpuMhz = "2400.000";
  P.Cpu = 3;
  P.TokenPassing = true;
  P.RanksPerNode = 2;
  P.Heap = "kept";
  P.Compiler = "gcc 12.2.0";
  P.Flags = "-O2 -g";
  P.BlockMap = "./app.blocks.yaml";
  P.Fingerprint = "49d39c21a20b06d6";
  P.Date = "2026-01-02T03:04:05Z";
  P.Tool = "mpiete 0.1.0";
  P.Command = "mpirun -np 2 -x MPIETE_OUTDIR=/tmp/x ./app.timing 10";
  P.ProbeSeconds = 12.5;
  P.SampleCap = 3;
  P.CappedLoops = {"0aa758c0:5 after 4 iterations"};
  P.SampleStride = 8;
  P.SampledLoops = {"0aa758c0:9: 51 of 400 iterations run in 1 entries, 87.2% of its time "
                    "estimated, spread 0.58"};
  P.SampledSeconds = 0.75;
  F.TimerOverheadSeconds = 2.5e-8;
  MachineRank R0{0, 2.5e-8, {}, {}};
  R0.Blocks.push_back({0x0aa758c000000003ULL, false, 10, 0, 1.25e-7, 1e-9, 1e-7, 1.5e-7});
  R0.Blocks.push_back({0x0aa758c000000007ULL, true, 2, 2000, 2.5e-9, 0, 5e-6, 5.5e-6});
  MachineRank R1{1, 2e-8, {}, {}};
  R1.Blocks.push_back({0x0aa758c000000003ULL, false, 10, 0, 2e-7, 0, 0, 0});
  F.Ranks = {R0, R1};
  return F;
}

} // namespace

TEST(MachineFileTest, RoundTripsEveryField) {
  MachineFile In = sample();
  std::ostringstream OS, Errors;
  writeMachineFile(OS, In);
  DiagnosticSink Diags(Errors);
  MachineFile Out;
  ASSERT_TRUE(parseMachineFile("machine.yaml", OS.str(), Out, Diags)) << Errors.str();
  const MachineProvenance &P = Out.Provenance, &PI = In.Provenance;
  EXPECT_EQ(P.Program, PI.Program);
  EXPECT_EQ(P.Arguments, PI.Arguments);
  EXPECT_EQ(P.Ranks, PI.Ranks);
  EXPECT_EQ(P.Host, PI.Host);
  EXPECT_EQ(P.CpuModel, PI.CpuModel);
  EXPECT_EQ(P.CpuMhz, PI.CpuMhz);
  EXPECT_EQ(P.Cpu, PI.Cpu);
  EXPECT_EQ(P.TokenPassing, PI.TokenPassing);
  EXPECT_EQ(P.RanksPerNode, PI.RanksPerNode);
  EXPECT_EQ(PI.Heap, "kept");
  EXPECT_EQ(P.Compiler, PI.Compiler);
  EXPECT_EQ(P.Flags, PI.Flags);
  EXPECT_EQ(P.BlockMap, PI.BlockMap);
  EXPECT_EQ(P.Fingerprint, PI.Fingerprint);
  EXPECT_EQ(P.Date, PI.Date);
  EXPECT_EQ(P.Tool, PI.Tool);
  EXPECT_EQ(P.Command, PI.Command);
  EXPECT_DOUBLE_EQ(P.ProbeSeconds, PI.ProbeSeconds);
  EXPECT_EQ(P.SampleCap, 3);
  EXPECT_EQ(P.CappedLoops, PI.CappedLoops);
  EXPECT_EQ(PI.SampleStride, 8);
  EXPECT_EQ(P.SampledLoops, PI.SampledLoops);
  EXPECT_DOUBLE_EQ(PI.SampledSeconds, 0.75);
  EXPECT_DOUBLE_EQ(Out.TimerOverheadSeconds, In.TimerOverheadSeconds);
  ASSERT_EQ(Out.Ranks.size(), In.Ranks.size());
  for (size_t R = 0; R < In.Ranks.size(); ++R) {
    const MachineRank &A = Out.Ranks[R], &B = In.Ranks[R];
    EXPECT_EQ(A.Rank, B.Rank);
    EXPECT_DOUBLE_EQ(A.TimerOverheadSeconds, B.TimerOverheadSeconds);
    ASSERT_EQ(A.Blocks.size(), B.Blocks.size());
    for (size_t I = 0; I < B.Blocks.size(); ++I) {
      EXPECT_EQ(A.Blocks[I].Id, B.Blocks[I].Id);
      EXPECT_EQ(A.Blocks[I].Loop, B.Blocks[I].Loop);
      EXPECT_EQ(A.Blocks[I].Executions, B.Blocks[I].Executions);
      EXPECT_EQ(A.Blocks[I].Iterations, B.Blocks[I].Iterations);
      EXPECT_DOUBLE_EQ(A.Blocks[I].MeanSeconds, B.Blocks[I].MeanSeconds);
      EXPECT_DOUBLE_EQ(A.Blocks[I].StddevSeconds, B.Blocks[I].StddevSeconds);
      EXPECT_DOUBLE_EQ(A.Blocks[I].MinSeconds, B.Blocks[I].MinSeconds);
      EXPECT_DOUBLE_EQ(A.Blocks[I].MaxSeconds, B.Blocks[I].MaxSeconds);
    }
  }
  // Only some ranks, and a rank the file lacks.
  std::vector<int> Only = {1};
  ASSERT_TRUE(parseMachineFile("machine.yaml", OS.str(), Out, Diags, &Only));
  ASSERT_EQ(Out.Ranks.size(), 1u);
  EXPECT_EQ(Out.Ranks[0].Rank, 1);
  Only = {2};
  EXPECT_FALSE(parseMachineFile("machine.yaml", OS.str(), Out, Diags, &Only));
  EXPECT_NE(Errors.str().find("no compute data for rank 2"), std::string::npos) << Errors.str();
}

TEST(MachineFileTest, BadBlockIdIsLocated) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  MachineFile F;
  ASSERT_TRUE(parseMachineFile("machine.yaml", MachineText, F, Diags)) << Errors.str();
  EXPECT_EQ(F.Ranks[0].Blocks[1].Iterations, 2000u);
  std::string Bad = MachineText;
  Bad.replace(Bad.find("0aa758c0:7"), 10, "0aa758c0-7");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, F, Diags));
  EXPECT_NE(Errors.str().find("machine.yaml:11:9: error: bad block id"), std::string::npos)
      << Errors.str();
}

TEST(MachineFileTest, TimingFileGivesSecondsNetOfTheTimer) {
  std::string Path = (std::filesystem::temp_directory_path() /
                      ("mpiete-timing-" + std::to_string(::getpid()) + ".timing"))
                         .string();
  {
    std::ofstream T(Path);
    T << "# mpiete timing rank 0 of 2\n# timer-overhead-ns 20.0\n# token-passing on\n# cpu 3\n"
         "# ranks-per-node 1\n# heap native\n"
         "0aa758c0:3 block 10 1200 100.0 140.0 5.0\n"
         "0aa758c0:7 loop 2 2000 5040 2500.0 2540.0 1.0\n"
         "0aa758c0:9 comm 4\n";
  }
  RankTiming R;
  ASSERT_EQ(readRankTiming(Path, 0, R), "");
  std::filesystem::remove(Path);
  EXPECT_EQ(R.Cpu, 3);
  EXPECT_EQ(R.Heap, "native");
  ASSERT_EQ(R.Blocks.size(), 2u);
  MachineRank M = machineRankOf(R);
  ASSERT_EQ(M.Blocks.size(), 2u);
  EXPECT_DOUBLE_EQ(M.TimerOverheadSeconds, 20e-9);
  // (1200 - 10 x 20) / 10 executions; min and max less one timer pair.
  EXPECT_DOUBLE_EQ(M.Blocks[0].MeanSeconds, 100e-9);
  EXPECT_DOUBLE_EQ(M.Blocks[0].MinSeconds, 80e-9);
  EXPECT_DOUBLE_EQ(M.Blocks[0].MaxSeconds, 120e-9);
  // A loop: (5040 - 2 x 20) / 2000 iterations; its min and max are whole executions.
  EXPECT_TRUE(M.Blocks[1].Loop);
  EXPECT_DOUBLE_EQ(M.Blocks[1].MeanSeconds, 2.5e-9);
  EXPECT_EQ(M.Blocks[1].Iterations, 2000u);
  EXPECT_DOUBLE_EQ(M.Blocks[1].MinSeconds, 2500e-9);
}

TEST(MachineFileTest, Version2SegmentsRoundTrip) {
  MachineFile In = sample();
  In.Partition = MachinePartition::Segments;
  for (MachineRank &R : In.Ranks)
    R.Blocks.clear();
  // A segment with a series of 3 buckets of 2 executions (the last holding the remainder 1).
  MachineSegment G{0xffffffff00000100ULL,      0x0aa758c00000000bULL, 5, 2e-6, 1e-7, 1e-6, 3e-6, 2,
                   {2.5e-6, 4.000000001, 3e-6}};
  In.Ranks[0].Segments.push_back(G);
  In.Ranks[0].Segments.push_back(
      {0x0aa758c00000000bULL, 0x0aa758c000000011ULL, 7, 1.5e-3, 0, 1.5e-3, 1.5e-3, 0, {}});
  In.Ranks[1].Segments.push_back(
      {0x0aa758c00000000bULL, 0x0aa758c000000011ULL, 7, 2.5e-3, 0, 2.5e-3, 2.5e-3, 0, {}});
  std::ostringstream OS, Errors;
  writeMachineFile(OS, In);
  EXPECT_NE(OS.str().find("version: 2"), std::string::npos) << OS.str();
  EXPECT_NE(OS.str().find("partition: segments"), std::string::npos) << OS.str();
  EXPECT_NE(OS.str().find("from: \"ffffffff:256\""), std::string::npos) << OS.str();
  EXPECT_EQ(OS.str().find("blocks:"), std::string::npos) << OS.str();
  DiagnosticSink Diags(Errors);
  MachineFile Out;
  ASSERT_TRUE(parseMachineFile("machine.yaml", OS.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out.Partition, MachinePartition::Segments);
  ASSERT_EQ(Out.Ranks.size(), 2u);
  for (size_t R = 0; R < 2; ++R) {
    ASSERT_EQ(Out.Ranks[R].Segments.size(), In.Ranks[R].Segments.size());
    EXPECT_TRUE(Out.Ranks[R].Blocks.empty());
    for (size_t I = 0; I < In.Ranks[R].Segments.size(); ++I) {
      const MachineSegment &A = Out.Ranks[R].Segments[I], &B = In.Ranks[R].Segments[I];
      EXPECT_EQ(A.From, B.From);
      EXPECT_EQ(A.To, B.To);
      EXPECT_EQ(A.Executions, B.Executions);
      EXPECT_DOUBLE_EQ(A.MeanSeconds, B.MeanSeconds);
      EXPECT_DOUBLE_EQ(A.StddevSeconds, B.StddevSeconds);
      EXPECT_DOUBLE_EQ(A.MinSeconds, B.MinSeconds);
      EXPECT_DOUBLE_EQ(A.MaxSeconds, B.MaxSeconds);
      EXPECT_EQ(A.SeriesWidth, B.SeriesWidth);
      ASSERT_EQ(A.SeriesSeconds.size(), B.SeriesSeconds.size());
      for (size_t K = 0; K < B.SeriesSeconds.size(); ++K)
        EXPECT_DOUBLE_EQ(A.SeriesSeconds[K], B.SeriesSeconds[K]);
    }
  }
  EXPECT_EQ(Out.Ranks[0].Segments[0].bucketCount(0), 2u);
  EXPECT_EQ(Out.Ranks[0].Segments[0].bucketCount(2), 1u);

  // A series that does not cover the executions is located.
  std::string Bad = OS.str();
  Bad.replace(Bad.find("width: 2"), 8, "width: 1");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, Out, Diags));
  EXPECT_NE(Errors.str().find("error: bad series"), std::string::npos) << Errors.str();
  // A version-2 file says what it partitions.
  Bad = OS.str();
  Bad.replace(Bad.find("partition: segments"), 19, "partition: loops");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, Out, Diags));
  EXPECT_NE(Errors.str().find("'partition: blocks' or 'partition: segments' expected"),
            std::string::npos)
      << Errors.str();
}

TEST(MachineFileTest, Version1IsStillReadAsBlocks) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  MachineFile F;
  ASSERT_TRUE(parseMachineFile("machine.yaml", MachineText, F, Diags)) << Errors.str();
  EXPECT_EQ(F.Partition, MachinePartition::Blocks);
  std::string V3 = MachineText;
  V3.replace(V3.find("version: 1"), 10, "version: 3");
  EXPECT_FALSE(parseMachineFile("machine.yaml", V3, F, Diags));
  EXPECT_NE(Errors.str().find("'version' must be a whole number in [1, 2] (got '3')"),
            std::string::npos)
      << Errors.str();
}

namespace {
std::string writeTemp(const std::string &Name, const std::string &Text) {
  std::string Path = (std::filesystem::temp_directory_path() /
                      ("mpiete-" + Name + "-" + std::to_string(::getpid()) + ".timing"))
                         .string();
  std::ofstream T(Path);
  T << Text;
  return Path;
}
const char *TimingHead = "# mpiete timing rank 1 of 2\n# timer-overhead-ns 20.0\n"
                         "# token-passing on\n# cpu 3\n# ranks-per-node 1\n";
} // namespace

TEST(MachineFileTest, TimingFileSegmentsAndSeries) {
  std::string Path = writeTemp(
      "seg", std::string(TimingHead) + "# partition segments\n"
                                       "segment ffffffff:256 0aa758c0:11 1 5000 5000.0 5000.0 0.0\n"
                                       "segment 0aa758c0:11 0aa758c0:17 5 1500 100.0 700.0 230.5\n"
                                       "series 0aa758c0:11 0aa758c0:17 2 3 200 600 700\n"
                                       "0aa758c0:11 comm 5\n");
  RankTiming R;
  ASSERT_EQ(readRankTiming(Path, 1, R), "");
  std::filesystem::remove(Path);
  EXPECT_EQ(R.Partition, "segments");
  EXPECT_TRUE(R.Blocks.empty());
  ASSERT_EQ(R.Segments.size(), 2u);
  EXPECT_EQ(R.Segments[1].From, 0x0aa758c00000000bULL);
  EXPECT_EQ(R.Segments[1].To, 0x0aa758c000000011ULL);
  EXPECT_EQ(R.Segments[1].Executions, 5u);
  EXPECT_EQ(R.Segments[1].SeriesWidth, 2u);
  EXPECT_EQ(R.Segments[1].Series, (std::vector<uint64_t>{200, 600, 700}));
  EXPECT_TRUE(R.Segments[0].Series.empty());
  MachineRank M = machineRankOf(R);
  ASSERT_EQ(M.Segments.size(), 2u);
  // Net of nothing: no hook runs inside a segment.
  EXPECT_DOUBLE_EQ(M.Segments[0].MeanSeconds, 5000e-9);
  EXPECT_DOUBLE_EQ(M.Segments[1].MeanSeconds, 300e-9);
  EXPECT_DOUBLE_EQ(M.Segments[1].MinSeconds, 100e-9);
  EXPECT_DOUBLE_EQ(M.Segments[1].MaxSeconds, 700e-9);
  EXPECT_DOUBLE_EQ(M.Segments[1].StddevSeconds, 230.5e-9);
  EXPECT_EQ(M.Segments[1].SeriesWidth, 2u);
  ASSERT_EQ(M.Segments[1].SeriesSeconds.size(), 3u);
  EXPECT_DOUBLE_EQ(M.Segments[1].SeriesSeconds[2], 700e-9);
  EXPECT_EQ(M.Segments[0].SeriesWidth, 0u);
}

TEST(MachineFileTest, TimingFileCappedMean) {
  // A loop left early: the segment's 5 occurrences are the warm-up's (2, 1000 ns each) and 3
  // measured ones (300 ns each); the skipped occurrences take the measured ones' mean.
  std::string Path =
      writeTemp("capped", std::string(TimingHead) +
                              "# partition segments\n# capped-loop 0aa758c0:5 4\n"
                              "# capped-mean 0aa758c0:11 0aa758c0:17 3 900\n"
                              "segment ffffffff:256 0aa758c0:11 1 5000 5000.0 5000.0 0.0\n"
                              "segment 0aa758c0:11 0aa758c0:17 5 2900 300.0 1000.0 383.4\n"
                              "series 0aa758c0:11 0aa758c0:17 1 5 1000 1000 300 300 300\n");
  RankTiming R;
  ASSERT_EQ(readRankTiming(Path, 1, R), "");
  std::filesystem::remove(Path);
  ASSERT_EQ(R.Segments.size(), 2u);
  EXPECT_EQ(R.Segments[0].CappedExecutions, 0u);
  EXPECT_EQ(R.Segments[1].CappedExecutions, 3u);
  EXPECT_EQ(R.Segments[1].CappedNanos, 900u);
  MachineRank M = machineRankOf(R);
  EXPECT_DOUBLE_EQ(M.Segments[0].MeanSeconds, 5000e-9);
  EXPECT_DOUBLE_EQ(M.Segments[1].MeanSeconds, 300e-9); // not 2900 / 5 = 580
  ASSERT_EQ(M.Segments[1].SeriesSeconds.size(), 5u);   // the warm-up stays where it ran
  EXPECT_DOUBLE_EQ(M.Segments[1].SeriesSeconds[0], 1000e-9);
}

TEST(MachineFileTest, TimingFileSegmentErrors) {
  struct Case {
    const char *Lines, *Error;
  } Cases[] = {
      {"series 0aa758c0:11 0aa758c0:17 1 2 5 5\n", ":6: series without its segment line"},
      {"segment 0aa758c0:11 0aa758c0:17 2 10 5.0 5.0 0.0\n"
       "series 0aa758c0:11 0aa758c0:17 1 3 5 5 0\n",
       ":7: series of 3 buckets of 1 does not hold the segment's 2 executions"},
      {"segment 0aa758c0:11 0aa758c0:17 2 10 5.0 5.0 0.0\n"
       "series 0aa758c0:11 0aa758c0:17 1 2 5\n",
       ":7: series of 2 buckets has only 1"},
      {"segment 0aa758c0:11 x 2 10 5.0 5.0 0.0\n", ":6: malformed segment record"},
      {"# partition loops\n", ":6: unknown partition 'loops'"},
      {"# capped-mean 0aa758c0:11 0aa758c0:17 3\n", ":6: malformed capped-mean record"},
      {"# capped-mean 0aa758c0:11 0aa758c0:17 0 10\n",
       ":6: field 'occurrences' of the capped-mean record must be a whole number >= 1"},
      {"# capped-mean 0aa758c0:11 0aa758c0:17 3 -5\n",
       ":6: field 'nanoseconds' of the capped-mean record"},
      {"# capped-mean 0aa758c0:11 0aa758c0:17 3 10\n"
       "segment 0aa758c0:11 0aa758c0:17 2 10 5.0 5.0 0.0\n",
       ":6: capped-mean record of 3 occurrences for a segment of 2"},
      {"# capped-mean 0aa758c0:11 0aa758c0:18 1 10\n"
       "segment 0aa758c0:11 0aa758c0:17 2 10 5.0 5.0 0.0\n",
       ":6: capped-mean record for a segment the file has no segment line for"},
  };
  for (const Case &C : Cases) {
    std::string Path = writeTemp("bad", std::string(TimingHead) + C.Lines);
    RankTiming R;
    std::string Err = readRankTiming(Path, 1, R);
    std::filesystem::remove(Path);
    EXPECT_NE(Err.find(C.Error), std::string::npos) << C.Lines << "\n-> " << Err;
  }
}

// probe-compute --repeat: per rank and segment the median of the runs' means, the nearest run's
// record scaled to it, every run's mean beside it; written and read back; a repeat_means that
// contradicts its record is located.
TEST(MachineFileTest, RepeatedRunsKeepEachSegmentsMedian) {
  auto run = [](double A0, double B0, double A1, bool Extra) {
    MachineFile F = sample();
    F.Partition = MachinePartition::Segments;
    F.Ranks[0].Blocks.clear();
    F.Ranks[1].Blocks.clear();
    F.Ranks[0].Segments.push_back(
        {0x0aa758c00000000bULL, 0x0aa758c000000011ULL, 7, A0, 1e-6, A0 / 2, A0 * 2, 0, {}, {}});
    F.Ranks[0].Segments.push_back(
        {0x0aa758c000000011ULL, 0x0aa758c00000000bULL, 6, B0, 0, B0, B0, 3, {B0 * 3, B0 * 3}, {}});
    F.Ranks[1].Segments.push_back(
        {0x0aa758c00000000bULL, 0x0aa758c000000011ULL, 7, A1, 0, A1, A1, 0, {}, {}});
    if (Extra) // a segment only this run made
      F.Ranks[1].Segments.push_back(
          {0x0aa758c000000011ULL, 0x0aa758c000000013ULL, 1, 5e-3, 0, 5e-3, 5e-3, 0, {}, {}});
    return F;
  };
  std::vector<MachineFile> Runs{run(3e-3, 2e-3, 4e-3, false), run(2.5e-3, 2.2e-3, 5e-3, false),
                                run(2.8e-3, 1.9e-3, 4.5e-3, true)};
  Runs[1].TimerOverheadSeconds = 4e-8;
  Runs[1].Partition = MachinePartition::Blocks; // the file's partition is the first run's
  MachineFile C;
  std::string Why;
  ASSERT_TRUE(combineRepeatedRuns(Runs, C, Why)) << Why;
  EXPECT_EQ(C.Provenance.Repeats, 3);
  EXPECT_EQ(C.Partition, MachinePartition::Segments);
  EXPECT_DOUBLE_EQ(C.TimerOverheadSeconds, 4e-8);
  ASSERT_EQ(C.Ranks[0].Segments.size(), 2u);
  const MachineSegment &A = C.Ranks[0].Segments[0], &B = C.Ranks[0].Segments[1];
  EXPECT_DOUBLE_EQ(A.MeanSeconds, 2.8e-3); // run 3's record, its spread with it
  EXPECT_DOUBLE_EQ(A.MaxSeconds, 5.6e-3);
  EXPECT_EQ(A.RepeatSeconds, (std::vector<double>{3e-3, 2.5e-3, 2.8e-3}));
  EXPECT_DOUBLE_EQ(B.MeanSeconds, 2e-3); // run 1's, and its series
  EXPECT_DOUBLE_EQ(B.SeriesSeconds[0], 2e-3 * 3);
  EXPECT_EQ(B.RepeatSeconds, (std::vector<double>{2e-3, 2.2e-3, 1.9e-3}));
  ASSERT_EQ(C.Ranks[1].Segments.size(), 2u);
  EXPECT_DOUBLE_EQ(C.Ranks[1].Segments[0].MeanSeconds, 4.5e-3);
  // A segment only run 3 made: its record, no spread.
  EXPECT_DOUBLE_EQ(C.Ranks[1].Segments[1].MeanSeconds, 5e-3);
  EXPECT_TRUE(C.Ranks[1].Segments[1].RepeatSeconds.empty());

  C.Provenance.FirstRanks = {0, 1, 2}; // probe-compute --repeat's rotation
  std::ostringstream OS, Errors;
  writeMachineFile(OS, C);
  EXPECT_NE(OS.str().find("repeats: 3"), std::string::npos) << OS.str();
  EXPECT_NE(OS.str().find("first_ranks: [0, 1, 2]"), std::string::npos) << OS.str();
  EXPECT_NE(OS.str().find("repeat_means: [0.003, 0.0025, 0.0028]"), std::string::npos) << OS.str();
  DiagnosticSink Diags(Errors);
  MachineFile Back;
  ASSERT_TRUE(parseMachineFile("machine.yaml", OS.str(), Back, Diags)) << Errors.str();
  EXPECT_EQ(Back.Provenance.Repeats, 3);
  EXPECT_EQ(Back.Provenance.FirstRanks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Back.Ranks[0].Segments[1].RepeatSeconds, B.RepeatSeconds);

  std::string Bad = OS.str();
  Bad.replace(Bad.find("[0.003, 0.0025, 0.0028]"), 23, "[0.003, 0.0025, 0.0027]");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, Back, Diags));
  EXPECT_NE(Errors.str().find("'mean_seconds' is not the median of 'repeat_means'"),
            std::string::npos)
      << Errors.str();
  Bad = OS.str();
  Bad.replace(Bad.find("[0, 1, 2]"), 9, "[0, -1, 2]");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, Back, Diags));
  EXPECT_NE(Errors.str().find("first_ranks"), std::string::npos) << Errors.str();
  Bad = OS.str();
  Bad.replace(Bad.find("repeats: 3"), 10, "repeats: 2");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, Back, Diags));
  EXPECT_NE(Errors.str().find("'repeat_means' holds 3 means"), std::string::npos) << Errors.str();
  Bad = OS.str();
  Bad.replace(Bad.find("0.0025, 0.0028]"), 15, "x, 0.0028]");
  EXPECT_FALSE(parseMachineFile("machine.yaml", Bad, Back, Diags));
  EXPECT_NE(Errors.str().find("'repeat_means' must be a list of seconds >= 0"), std::string::npos)
      << Errors.str();

  // Two runs: the mean of the two, the nearer record (the first of a tie) scaled to it.
  ASSERT_TRUE(combineRepeatedRuns({Runs[0], Runs[1]}, C, Why)) << Why;
  EXPECT_DOUBLE_EQ(C.Ranks[0].Segments[0].MeanSeconds, 2.75e-3);
  EXPECT_DOUBLE_EQ(C.Ranks[0].Segments[0].MaxSeconds, 5.5e-3);
  EXPECT_DOUBLE_EQ(C.Ranks[0].Segments[1].SeriesSeconds[0], 2.1e-3 * 3);

  // Runs of different rank counts are not one measurement.
  Runs[2].Ranks.pop_back();
  EXPECT_FALSE(combineRepeatedRuns(Runs, C, Why));
  EXPECT_EQ(Why, "timing run 3 measured 1 ranks, the first 2");
}
