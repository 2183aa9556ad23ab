// Segment mode: the computation between two MPI calls replayed from the compute segments of
// the machine file (mean, or the series bucket of each occurrence), region instances, and the
// errors of base data of the other partition. Every expected time is worked out by hand.
//
// The network is the engine tests': T(k) = 1000 + k ns, o_s = 10 ns, o_r = 20 ns, S = 1024.
// Sites: P the program start, A, B, F call sites (a call's wait block is its site + 1).
#include "Replay.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/Report.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

using namespace mpiete::estimator;
using mpiete::estimator::test::allErrors;
using mpiete::estimator::test::req;

namespace {

constexpr BlockId P = 0xffffffff00000100ULL, A = 10, B = 20, F = 30, Q = 40;

SegmentTimes mean(BlockId From, BlockId To, double Seconds) {
  SegmentTimes T;
  T.From = From;
  T.To = To;
  T.MeanSeconds = Seconds;
  return T;
}

SegmentTimes series(BlockId From, BlockId To, uint64_t Executions, uint64_t Width,
                    std::vector<double> Buckets) {
  SegmentTimes T = mean(From, To, 0);
  double Sum = 0;
  for (double S : Buckets)
    Sum += S;
  T.MeanSeconds = Sum / double(Executions);
  T.Executions = Executions;
  T.Width = Width;
  T.BucketSeconds = std::move(Buckets);
  return T;
}

struct Net {
  std::shared_ptr<LinkModel> Link = std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1000e-9}, {1024, 2024e-9}}, 10e-9, 20e-9, 1024);
  ClusterNetworkModel Model{Link};
};

EstimateResult run(const ComputeModel &C, std::vector<std::vector<Event>> Traces,
                   EngineOptions Opt = {}) {
  Net N;
  return test::replay(C, N.Model, std::move(Traces), Opt);
}

} // namespace

TEST(SegmentTest, ChargedWithTheirMean) {
  TableComputeModel C;
  unsigned M = C.addMachine();
  C.setSegment(M, mean(P, A, 100e-9));
  C.setSegment(M, mean(A, B, 250e-9));
  EXPECT_TRUE(C.hasSegments());
  EXPECT_FALSE(C.hasBlocks());
  // 100 + 250 + 250; a call to PROC_NULL costs nothing.
  EstimateResult R =
      run(C, {{Event::segment(P, A), Event::send(A, ProcNull, 0, 8, 1), Event::segment(A, B),
               Event::send(B, ProcNull, 0, 8, 2), Event::segment(A, B)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 600);
  EXPECT_EQ(R.Ranks[0].Compute, 600);
  ASSERT_EQ(R.Segments.size(), 2u);
  EXPECT_EQ(R.Segments[0].From, A); // sorted by (from, to)
  EXPECT_EQ(R.Segments[0].Compute, 500);
  EXPECT_EQ(R.Segments[0].Executions, 2u);
  EXPECT_EQ(R.Segments[1].Compute, 100);
  // Segments are not blocks: the block table holds the calls only.
  for (const BlockResult &Bl : R.Blocks)
    EXPECT_EQ(Bl.Compute, 0);
  EXPECT_EQ(C.segmentSeconds(0, A, B, 7), 250e-9);
  EXPECT_FALSE(C.segmentSeconds(0, B, A, 0));
}

TEST(SegmentTest, SeriesGivesEachOccurrenceItsBucket) {
  TableComputeModel C;
  unsigned M = C.addMachine();
  // Width 1: occurrences 100, 200, 400 ns; a 4th (past the measured 3) takes the mean 233.3.
  C.setSegment(M, series(A, B, 3, 1, {100e-9, 200e-9, 400e-9}));
  // Width 2 over 5 executions: buckets of 2, 2 and the remainder 1: 150, 150, 250, 250, 700.
  C.setSegment(M, series(B, A, 5, 2, {300e-9, 500e-9, 700e-9}));
  EXPECT_DOUBLE_EQ(*C.segmentSeconds(0, B, A, 4), 700e-9);
  EXPECT_DOUBLE_EQ(*C.segmentSeconds(0, B, A, 3), 250e-9);
  std::vector<Event> T;
  for (int I = 0; I < 4; ++I)
    T.push_back(Event::segment(A, B));
  EstimateResult R = run(C, {T});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 933); // 100 + 200 + 400 + 233.33 (sub-ns carried)
  T.clear();
  for (int I = 0; I < 5; ++I)
    T.push_back(Event::segment(B, A));
  R = run(C, {T});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 1500);
  // Occurrences count per rank: rank 1 starts again at occurrence 0.
  R = run(C, {{Event::segment(B, A), Event::segment(B, A)},
              {Event::segment(B, A), Event::segment(B, A), Event::segment(B, A)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Compute, 300);
  EXPECT_EQ(R.Ranks[1].Compute, 550);
}

TEST(SegmentTest, OccurrencesPastTheMeasuredOnesAreReportedAsExtrapolated) {
  TableComputeModel C;
  unsigned M = C.addMachine();
  // A capped loop's segment: 2 executions measured, 100 and 300 ns; the rest take the mean.
  C.setSegment(M, series(A, B, 2, 1, {100e-9, 300e-9}));
  std::vector<Event> T(5, Event::segment(A, B));
  EstimateResult R = run(C, {T});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 1000); // 100 + 300 + 3 x 200
  ASSERT_EQ(R.Segments.size(), 1u);
  EXPECT_EQ(R.Segments[0].Unmeasured, 3u);
  EXPECT_EQ(R.Segments[0].UnmeasuredCompute, 600);
  ReportOptions O;
  O.SampleCap = 2;
  O.CappedLoops = {"0000000a:5 after 2 iterations"};
  std::ostringstream Text, Yaml;
  writeText(Text, R, O);
  EXPECT_NE(Text.str().find("extrapolated: 3 of 5 compute segment executions (0.000000600 s, "
                            "60.0% of the predicted compute) take their segment's mean, not a "
                            "time of their own: the timing probe left loops early (--cap 2): "
                            "0000000a:5 after 2 iterations\n"),
            std::string::npos)
      << Text.str();
  writeYaml(Yaml, R, O);
  EXPECT_NE(Yaml.str().find("extrapolated: {executions: 3, of: 5, compute_seconds: 0.000000600, "
                            "share_of_compute: 0.6, sample_cap: 2, capped_loops: "
                            "[\"0000000a:5 after 2 iterations\"]}\n"),
            std::string::npos)
      << Yaml.str();
  // As many occurrences as measured: nothing extrapolated, and the text says nothing.
  R = run(C, {{Event::segment(A, B), Event::segment(A, B)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Segments[0].Unmeasured, 0u);
  std::ostringstream Quiet;
  writeText(Quiet, R, O);
  EXPECT_EQ(Quiet.str().find("extrapolated"), std::string::npos) << Quiet.str();
}

TEST(SegmentTest, SampledLoopsAreReportedWithTheirShareOfTheCompute) {
  TableComputeModel C;
  unsigned M = C.addMachine();
  C.setSegment(M, series(A, B, 2, 1, {400e-9, 600e-9}));
  EstimateResult R = run(C, {{Event::segment(A, B), Event::segment(A, B)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  ReportOptions O;
  O.SampleStride = 8;
  O.SampledLoops = {"0000000a:9: 51 of 400 iterations run in 1 entries, 87.2% of its time "
                    "estimated, spread 0.58"};
  O.SampledSeconds = 250e-9; // of the 1000 ns predicted
  std::ostringstream Text, Yaml;
  writeText(Text, R, O);
  EXPECT_NE(Text.str().find("sampled: 0.000000250 s (25.0% of the predicted compute) is the "
                            "timing probe's estimate for skipped iterations of loops of pure "
                            "computation (--sample 8): 0000000a:9: 51 of 400"),
            std::string::npos)
      << Text.str();
  writeYaml(Yaml, R, O);
  EXPECT_NE(Yaml.str().find("sampled: {sample_stride: 8, estimated_seconds: 0.000000250, "
                            "share_of_compute: 0.25, loops: [\"0000000a:9: 51 of 400"),
            std::string::npos)
      << Yaml.str();
  // Not sampled: the text says nothing.
  std::ostringstream Quiet;
  writeText(Quiet, R, ReportOptions{});
  EXPECT_EQ(Quiet.str().find("sampled"), std::string::npos) << Quiet.str();
}

TEST(SegmentTest, MissingOnOneRankTakesTheOthersMean) {
  TableComputeModel C;
  unsigned M0 = C.addMachine(), M1 = C.addMachine(), M2 = C.addMachine();
  C.assignRank(0, M0);
  C.assignRank(1, M1);
  C.assignRank(2, M2);
  C.setSegment(M0, mean(A, B, 100e-9));
  C.setSegment(M1, series(A, B, 2, 1, {200e-9, 400e-9}));
  C.setSegment(M2, mean(P, A, 1e-9));
  // Rank 2 never ran A -> B in the timing probe: the mean of ranks 0 and 1, (100 + 300) / 2.
  EstimateResult R = run(C, {{Event::segment(A, B)},
                             {Event::segment(A, B)},
                             {Event::segment(A, B), Event::segment(A, B)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Compute, 100);
  EXPECT_EQ(R.Ranks[1].Compute, 200);
  EXPECT_EQ(R.Ranks[2].Compute, 400);
  ASSERT_EQ(C.segmentFallbacks().size(), 1u);
  EXPECT_EQ(C.segmentFallbacks()[0], std::make_tuple(2, A, B));
  // A segment no rank ran, and no measured segment ends at its end or starts after its start,
  // has no time: an error, as for a block.
  R = run(C, {{Event::segment(A, B)}, {Event::segment(B, F)}});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(allErrors(R).find("no compute time for segment '00000000:20 -> 00000000:30' on "
                              "rank 1 in the compute base data"),
            std::string::npos)
      << allErrors(R);
}

TEST(SegmentTest, TwoRanksExchangeBetweenSegments) {
  TableComputeModel C;
  unsigned M = C.addMachine();
  C.setSegment(M, mean(P, A, 1000e-9));
  C.setSegment(M, mean(A, B, 500e-9));
  C.setSegment(M, mean(P, F, 200e-9));
  C.setSegment(M, mean(F, Q, 300e-9));
  // rank 0: computes 0..1000; sends 100 bytes at 1000 (o_s -> 1010), arriving 2100; computes
  //         1010..1510; posts its receive (o_r -> 1530) and waits for rank 1's reply.
  // rank 1: computes 0..200; posts (-> 220), receives at 2100; computes 2100..2400; replies
  //         at 2400 (-> 2410), arriving 3500 at rank 0.
  EstimateResult R =
      run(C, {{Event::segment(P, A), Event::send(A, 1, 0, 100, 1),
               Event::completion(A + 1, {req(1)}), Event::segment(A, B),
               Event::recv(B, 1, 0, 100, 2), Event::completion(B + 1, {req(2, 1, 0)})},
              {Event::segment(P, F), Event::recv(F, 0, 0, 100, 1),
               Event::completion(F + 1, {req(1, 0, 0)}), Event::segment(F, Q),
               Event::send(Q, 0, 0, 100, 2), Event::completion(Q + 1, {req(2)})}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 3500);
  EXPECT_EQ(R.Ranks[0].End, 3500);
  EXPECT_EQ(R.Ranks[0].Compute, 1500);
  EXPECT_EQ(R.Ranks[0].Comm, 30);
  EXPECT_EQ(R.Ranks[0].Wait, 3500 - 1530);
  EXPECT_EQ(R.Ranks[1].End, 2410);
  EXPECT_EQ(R.Ranks[1].Compute, 500);
  EXPECT_EQ(R.Ranks[1].Wait, 2100 - 220);
  EXPECT_EQ(R.Messages, 2u);
}

TEST(SegmentTest, StartUpBeforeInitDelaysNoRank) {
  // MPI_Init lines the ranks up: rank 1's slow start-up (5000 ns against rank 0's 1000) is
  // not replayed, so its receive is posted 220 ns after Init, not 5220.
  constexpr BlockId I = 5;
  TableComputeModel C;
  unsigned M0 = C.addMachine(), M1 = C.addMachine();
  C.setSegment(M0, mean(mpiete::ProgramStart, I, 1000e-9));
  C.setSegment(M0, mean(I, A, 100e-9));
  C.setSegment(M1, mean(mpiete::ProgramStart, I, 5000e-9));
  C.setSegment(M1, mean(I, F, 200e-9));
  C.assignRank(0, M0);
  C.assignRank(1, M1);
  // rank 0: computes 0..100, sends 100 bytes (o_s -> 110), arriving at 100 + 1100 = 1200.
  // rank 1: computes 0..200, posts its receive (o_r -> 220), completes it at 1200.
  EstimateResult R =
      run(C, {{Event::segment(mpiete::ProgramStart, I), Event::init(I), Event::segment(I, A),
               Event::send(A, 1, 0, 100, 1), Event::completion(A + 1, {req(1)})},
              {Event::segment(mpiete::ProgramStart, I), Event::init(I), Event::segment(I, F),
               Event::recv(F, 0, 0, 100, 1), Event::completion(F + 1, {req(1, 0, 0)})}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 1200);
  EXPECT_EQ(R.Ranks[0].Start, 0);
  EXPECT_EQ(R.Ranks[1].Start, 0);
  EXPECT_EQ(R.Ranks[1].Compute, 200);
  EXPECT_EQ(R.Ranks[1].Wait, 1200 - 220);
}
TEST(SegmentTest, BaseDataOfTheOtherPartitionIsAnError) {
  // Segments only, a seed-mode trace (compute block records).
  TableComputeModel Segs;
  Segs.setSegment(Segs.addMachine(), mean(P, A, 100e-9));
  EstimateResult R = run(Segs, {{Event::segment(P, A), Event::compute(7)}});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(allErrors(R).find("the trace has compute block records (block '00000000:7': a "
                              "--mpiete-seed-blocks build) but the compute base data has only "
                              "segments"),
            std::string::npos)
      << allErrors(R);

  // Blocks only, a segment-mode trace (segments, no compute block records).
  TableComputeModel Blocks;
  Blocks.setTime(Blocks.addMachine(), 7, 100e-9);
  R = run(Blocks, {{Event::segment(P, A), Event::send(A, ProcNull, 0, 8, 1)}});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(allErrors(R).find("the traces are of a segment-mode build"), std::string::npos)
      << allErrors(R);

  // Blocks and a seed-mode trace whose calls are marked too: the blocks count, the segment
  // events are neither charged nor counted as replayed.
  R = run(Blocks,
          {{Event::segment(P, A), Event::compute(7), Event::segment(A, B), Event::compute(7)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 200);
  EXPECT_EQ(R.Events, 2u);
  EXPECT_TRUE(R.Segments.empty());
}

TEST(SegmentTest, RegionInstancesWarmUpThenReal) {
  TableComputeModel C;
  unsigned M = C.addMachine();
  C.setSegment(M, mean(P, A, 100e-9));
  // The timed work: 1000 ns in the warm-up, 5000 ns for real.
  C.setSegment(M, series(A, B, 2, 1, {1000e-9, 5000e-9}));
  C.setSegment(M, mean(B, A, 50e-9));
  C.setSegment(M, mean(B, F, 70e-9));
  // Region from the call at A to the end of the call at B. Instance 1: A at 100, B's call
  // ends where the next segment begins, 1100. Instance 2: A at 1150 .. 6150.
  std::vector<Event> T{Event::segment(P, A), Event::send(A, ProcNull, 0, 8, 1),
                       Event::segment(A, B), Event::send(B, ProcNull, 0, 8, 2),
                       Event::segment(B, A), Event::send(A, ProcNull, 0, 8, 3),
                       Event::segment(A, B), Event::send(B, ProcNull, 0, 8, 4),
                       Event::segment(B, F), Event::finalize(F)};
  EngineOptions Opt;
  Opt.RegionStart = A;
  Opt.RegionEnd = B;
  EstimateResult R = run(C, {T, T}, Opt);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  ASSERT_EQ(R.Instances.size(), 2u);
  EXPECT_EQ(R.Instances[0].Start, 100);
  EXPECT_EQ(R.Instances[0].End, 1100);
  EXPECT_EQ(R.Instances[1].Start, 1150);
  EXPECT_EQ(R.Instances[1].End, 6150);
  EXPECT_EQ(R.Instances[1].Ranks, 2u);
  EXPECT_EQ(R.InstancesTotal, 6000);
  EXPECT_EQ(R.Predicted, 6000); // all, the default
  EXPECT_EQ(R.Ranks[0].Compute, 6000);
  Opt.RegionInstance = -1;
  R = run(C, {T, T}, Opt);
  EXPECT_EQ(R.Predicted, 5000);
  EXPECT_EQ(R.Ranks[1].Start, 1150);
  EXPECT_EQ(R.Ranks[1].Compute, 5000);
  Opt.RegionInstance = 1;
  R = run(C, {T, T}, Opt);
  EXPECT_EQ(R.Predicted, 1000);
  std::ostringstream Text, Yaml, Json;
  writeText(Text, R);
  EXPECT_NE(Text.str().find("predicted time: 0.000001000 s (region instance: 1 of 2)\n"
                            "  instance 1: 0.000001000 s (2 ranks)\n"
                            "  instance 2: 0.000005000 s (2 ranks)\n"
                            "  all instances: 0.000006000 s\n"),
            std::string::npos)
      << Text.str();
  writeYaml(Yaml, R);
  EXPECT_NE(Yaml.str().find("predicted_seconds: 0.000001000\nregion_instance: \"1\"\n"
                            "instances_total_seconds: 0.000006000\ninstances:\n"
                            "  - {instance: 1, predicted_seconds: 0.000001000, start_seconds: "
                            "0.000000100, end_seconds: 0.000001100, ranks: 2}\n"),
            std::string::npos)
      << Yaml.str();
  writeJson(Json, R);
  EXPECT_NE(Json.str().find("\"instances\": [\n    {\"instance\": 1, \"predicted_seconds\": "
                            "0.000001000"),
            std::string::npos)
      << Json.str();
  Opt.RegionInstance = 3;
  R = run(C, {T, T}, Opt);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(allErrors(R).find("--region-instance 3: the region has 2 instances"), std::string::npos)
      << allErrors(R);
}

TEST(SegmentTest, ReportNamesTheTopSegments) {
  // Means without a count of measured executions: every replayed one is unmeasured.
  TableComputeModel C;
  unsigned M = C.addMachine();
  C.setSegment(M, mean(P, A, 100e-9));
  C.setSegment(M, mean(A, B, 300e-9));
  EstimateResult R = run(C, {{Event::segment(P, A), Event::segment(A, B)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  ReportOptions Opt;
  Opt.DescribeSegment = [](BlockId From, BlockId To) {
    return std::string(From == A ? "main.f:42 (MPI_Sendrecv)" : "program start") + " -> " +
           (To == B ? "main.f:57 (MPI_Allreduce) in sweep" : "main.f:42 (MPI_Sendrecv)");
  };
  std::ostringstream Text, Yaml, Json;
  writeText(Text, R, Opt);
  EXPECT_NE(Text.str().find("segments that compute most (summed over ranks):\n"
                            "      compute (s)  executions  segment\n"
                            "      0.000000300           1  main.f:42 (MPI_Sendrecv) -> "
                            "main.f:57 (MPI_Allreduce) in sweep\n"
                            "      0.000000100           1  program start -> main.f:42"),
            std::string::npos)
      << Text.str();
  writeYaml(Yaml, R, Opt);
  EXPECT_NE(Yaml.str().find("top_segments:\n  - {from: \"00000000:10\", to: \"00000000:20\", "
                            "compute_seconds: 0.000000300, executions: 1, unmeasured: 1, "
                            "where: \"main.f:42 "
                            "(MPI_Sendrecv) -> main.f:57 (MPI_Allreduce) in sweep\"}\n"),
            std::string::npos)
      << Yaml.str();
  writeJson(Json, R, Opt);
  EXPECT_NE(Json.str().find("\"top_segments\": [\n    {\"from\": \"00000000:10\", \"to\": "
                            "\"00000000:20\", \"compute_seconds\": 0.000000300"),
            std::string::npos)
      << Json.str();
}

TEST(SegmentTest, NeverRunPairTakesTheSegmentsEndingAtTheSameCall) {
  // A task farm's master reached B from Q in the trace, but under token passing only from A
  // and P: Q -> B takes the executions-weighted mean of the segments ending at B on its rank,
  // (3 x 100 + 1 x 500) / 4 = 200 ns; F ends nothing measured on rank 1 but on rank 0.
  TableComputeModel C;
  unsigned M0 = C.addMachine(), M1 = C.addMachine();
  C.assignRank(0, M0);
  C.assignRank(1, M1);
  SegmentTimes AB = mean(A, B, 100e-9), PB = mean(P, B, 500e-9), AF = mean(A, F, 40e-9);
  AB.Executions = 3;
  PB.Executions = 1;
  AF.Executions = 2;
  C.setSegment(M0, AB);
  C.setSegment(M0, PB);
  C.setSegment(M0, AF);
  C.setSegment(M1, mean(A, B, 7e-9));
  EstimateResult R = run(C, {{Event::segment(Q, B)}, {Event::segment(Q, F)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Compute, 200);
  EXPECT_EQ(R.Ranks[1].Compute, 40); // rank 1 measured nothing ending at F: any rank's
  ASSERT_EQ(C.segmentFallbacks().size(), 2u);
  // Nothing ends at Q anywhere: the segments starting after B on rank 0 (none), then on any
  // rank: none either (B starts nothing): still an error; after A: (3 x 100 + 2 x 40) / 5.
  R = run(C, {{Event::segment(B, Q)}, {}});
  EXPECT_FALSE(R.Ok);
  R = run(C, {{Event::segment(A, Q)}, {}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Compute, 76);
}
