// Per-position compute models on hand-built timing data with a known answer: a master's serial
// work and a pipeline's slower end are modelled apart, differences within the threshold or of
// changing sign are not, and the positions survive the model file.
#include "mpiete/scaling/ComputeFit.h"

#include "mpiete/BlockId.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

using namespace mpiete::scaling;

namespace {

constexpr BlockId SiteA = (BlockId(0x0aa758c0) << 32) | 3;
constexpr BlockId SiteB = (BlockId(0x0aa758c0) << 32) | 7;

/// Runs at 2, 4, 8, 16 ranks: rank R of P computes Seconds(R, P) per execution of A -> B, 40
/// times.
std::vector<ComputeRun> runs(const std::function<double(int, int)> &Seconds) {
  std::vector<ComputeRun> Rs;
  for (int P : {2, 4, 8, 16}) {
    ComputeRun Run{P, 1024, {}};
    for (int R = 0; R < P; ++R)
      Run.Times.push_back({R, SiteA, SiteB, Seconds(R, P), 40});
    Rs.push_back(std::move(Run));
  }
  return Rs;
}

double at(const std::vector<SegmentModel> &Segs, int Rank, int P) {
  ScalingModelFile F;
  F.Segments = Segs;
  ScaledComputeModel M(F, P, 1024);
  const mpiete::estimator::SegmentTimes *T = M.segment(Rank, SiteA, SiteB);
  return T ? T->MeanSeconds : -1;
}

TEST(ComputeFitTest, MasterSerialWorkIsModelledApart) {
  // Every rank's share 1e-2 / p; rank 0 also 2e-3 s of serial work (a diagnostic the others
  // wait for). The mean over ranks, 1e-2 / p + 2e-3 / p, hides it: at 64 ranks it gives rank 0
  // 1.9e-4 s where it computes 2.16e-3 s.
  const std::vector<SegmentModel> Segs =
      fitComputeModels(runs([](int R, int P) { return 1e-2 / P + (R == 0 ? 2e-3 : 0); }));
  ASSERT_EQ(Segs.size(), 2u);
  EXPECT_EQ(Segs[0].Ranks, RankPosition::First);
  EXPECT_EQ(Segs[1].Ranks, RankPosition::Rest);
  EXPECT_EQ(Segs[1].Data.size(), 4u); // rank 1 of 2 is the rest there
  EXPECT_NEAR(at(Segs, 0, 64), 1e-2 / 64 + 2e-3, 1e-9);
  EXPECT_NEAR(at(Segs, 1, 64), 1e-2 / 64, 1e-9);
  EXPECT_NEAR(at(Segs, 63, 64), 1e-2 / 64, 1e-9);
  // The model file keeps the positions.
  ScalingModelFile F;
  F.Runs = {{2, 1024, "t2", "m2.yaml"}};
  F.Segments = Segs;
  std::ostringstream First;
  writeScalingModel(First, F);
  EXPECT_NE(First.str().find("ranks: first"), std::string::npos) << First.str();
  const std::string Path =
      (std::filesystem::temp_directory_path() / "mpiete-computefit-test.yaml").string();
  std::ofstream(Path) << First.str();
  std::ostringstream Errors;
  mpiete::DiagnosticSink Diags(Errors);
  ScalingModelFile G;
  ASSERT_TRUE(loadScalingModel(Path, G, Diags)) << Errors.str();
  std::filesystem::remove(Path);
  EXPECT_NEAR(at(G.Segments, 0, 64), 1e-2 / 64 + 2e-3, 1e-9);
  EXPECT_NEAR(at(G.Segments, 5, 64), 1e-2 / 64, 1e-9);
}

/// Weak-scaled work (test-programs/butterfly's sums): a constant 28.3 us a rank, measured
/// 28.3, 28.4, 28.8 and 30.9 us at 2-16 ranks (the least of three runs), a rise at 16 ranks
/// within the spread of the three runs (19%). Without the repeats the rise admits growing
/// terms, which fit all four points and give 64 ranks three times the value; with them the
/// noise is each point's, the rise no growth, and 64 ranks stay at the constant.
TEST(ComputeFitTest, ARiseWithinTheRepeatsSpreadIsNoGrowth) {
  const std::map<int, double> Least = {{2, 28.33e-6}, {4, 28.45e-6}, {8, 28.79e-6}, {16, 30.92e-6}};
  // The three runs' values at each count: the least, and two up to 19% above it.
  const std::map<int, std::vector<double>> Runs = {{2, {28.67e-6, 28.38e-6, 28.56e-6}},
                                                   {4, {30.19e-6, 29.26e-6, 33.0e-6}},
                                                   {8, {31.89e-6, 28.79e-6, 34.30e-6}},
                                                   {16, {39.29e-6, 33.15e-6, 32.99e-6}}};
  std::vector<ComputeRun> Without, With;
  for (const auto &[P, Y] : Least) {
    ComputeRun Run{P, 4096, {}, {}};
    for (int R = 0; R < P; ++R)
      Run.Times.push_back({R, SiteA, SiteB, Y, 800});
    Without.push_back(Run);
    for (double V : Runs.at(P)) {
      std::vector<RankSegmentTime> &Rep = Run.Repeats.emplace_back();
      for (int R = 0; R < P; ++R)
        Rep.push_back({R, SiteA, SiteB, V, 800});
    }
    With.push_back(std::move(Run));
  }
  const std::vector<SegmentModel> A = fitComputeModels(Without), B = fitComputeModels(With);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(B.size(), 1u);
  EXPECT_GT(at(A, 1, 64), 2 * 30.9e-6) << A[0].M.text();
  EXPECT_NEAR(at(B, 1, 64), 29e-6, 2e-6) << B[0].M.text();
  EXPECT_NEAR(B[0].Data[3].Noise, 39.29 / 32.99 - 1, 1e-9);
}

// The same runs as one file each (probe-compute --repeat): each count's median as the record,
// each run's mean in repeat_means; the model is the one fitted from the medians with the runs'
// own files as the repeats.
TEST(ComputeFitTest, RepeatedRunsInOneFileGiveTheirNoise) {
  const std::map<int, std::vector<double>> Runs = {{2, {28.67e-6, 28.38e-6, 28.56e-6}},
                                                   {4, {30.19e-6, 29.26e-6, 33.0e-6}},
                                                   {8, {31.89e-6, 28.79e-6, 34.30e-6}},
                                                   {16, {39.29e-6, 33.15e-6, 32.99e-6}}};
  std::vector<ComputeRun> Apart, Combined;
  for (const auto &[P, Y] : Runs) {
    std::vector<mpiete::MachineFile> Files(Y.size());
    ComputeRun Run{P, 4096, {}, {}};
    for (size_t K = 0; K < Y.size(); ++K) {
      Files[K].Provenance.Ranks = P;
      std::vector<RankSegmentTime> &Rep = Run.Repeats.emplace_back();
      for (int R = 0; R < P; ++R) {
        Files[K].Ranks.push_back({R, 0, {}, {{SiteA, SiteB, 800, Y[K], 0, Y[K], Y[K], 0, {}, {}}}});
        Rep.push_back({R, SiteA, SiteB, Y[K], 800});
      }
    }
    const double Median = mpiete::medianOf(Y);
    for (int R = 0; R < P; ++R)
      Run.Times.push_back({R, SiteA, SiteB, Median, 800});
    Apart.push_back(std::move(Run));
    mpiete::MachineFile One;
    std::string Why;
    ASSERT_TRUE(mpiete::combineRepeatedRuns(Files, One, Why)) << Why;
    Combined.push_back(computeRunOf(P, 4096, One));
    ASSERT_EQ(Combined.back().Repeats.size(), 3u);
    EXPECT_DOUBLE_EQ(Combined.back().Times[0].MeanSeconds, Median);
    EXPECT_DOUBLE_EQ(Combined.back().Repeats[2][0].MeanSeconds, Y[2]);
  }
  const std::vector<SegmentModel> A = fitComputeModels(Apart), B = fitComputeModels(Combined);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(B.size(), 1u);
  EXPECT_EQ(A[0].M.text(), B[0].M.text());
  // No growth: the medians' rise at 16 ranks (31.89 -> 33.15 us) is within the runs' spread.
  EXPECT_LE(at(B, 1, 64), 33.15e-6) << B[0].M.text();
  EXPECT_NEAR(B[0].Data[3].Noise, 39.29 / 32.99 - 1, 1e-9);
}

TEST(ComputeFitTest, PipelineEndsApart) {
  // Rank P-1 twice the others' work, rank 0 a constant 1e-3 more: three models.
  const std::vector<SegmentModel> Segs = fitComputeModels(
      runs([](int R, int P) { return (R == P - 1 ? 2e-2 : 1e-2) / P + (R == 0 ? 1e-3 : 0); }));
  ASSERT_EQ(Segs.size(), 3u);
  EXPECT_EQ(Segs[0].Ranks, RankPosition::First);
  EXPECT_EQ(Segs[1].Ranks, RankPosition::Last);
  EXPECT_EQ(Segs[2].Ranks, RankPosition::Rest);
  EXPECT_EQ(Segs[2].Data.size(), 3u); // no rank between at 2 ranks
  EXPECT_NEAR(at(Segs, 0, 32), 1e-2 / 32 + 1e-3, 1e-9);
  EXPECT_NEAR(at(Segs, 31, 32), 2e-2 / 32, 1e-9);
  EXPECT_NEAR(at(Segs, 7, 32), 1e-2 / 32, 1e-9);
}

TEST(ComputeFitTest, SmallOrChangingDifferencesShareOneModel) {
  // Rank 0 5% slower (below the threshold): one model, the executions-weighted mean.
  std::vector<SegmentModel> Segs =
      fitComputeModels(runs([](int R, int P) { return 1e-2 / P * (R == 0 ? 1.05 : 1); }));
  ASSERT_EQ(Segs.size(), 1u);
  EXPECT_EQ(Segs[0].Ranks, RankPosition::All);
  EXPECT_NEAR(Segs[0].Data[1].Y, 1e-2 / 4 * (1 + 0.05 / 4), 1e-12);
  // Rank 0 20% slower at some rank counts, 20% faster at others: noise, not a position.
  Segs = fitComputeModels(
      runs([](int R, int P) { return 1e-2 / P * (R == 0 ? (P % 8 == 0 ? 0.8 : 1.2) : 1); }));
  ASSERT_EQ(Segs.size(), 1u);
  EXPECT_EQ(Segs[0].Ranks, RankPosition::All);
}

} // namespace

namespace {

/// A model file of one segment SiteA -> SiteB at Seconds for every rank.
ScalingModelFile oneSegmentModel(double Seconds) {
  ScalingModelFile F;
  SegmentModel S;
  S.From = SiteA;
  S.To = SiteB;
  S.M.Terms = {Term{}};
  S.M.Coeffs = {Seconds};
  F.Segments = {S};
  return F;
}

/// A profiles' run of Ranks ranks, each with segment SiteA -> SiteB of Executions at Mean
/// seconds; Series(rank, segment) gives some of them a series.
mpiete::MachineFile profileRun(int Ranks, uint64_t Executions, double Mean,
                               const std::function<void(int, mpiete::MachineSegment &)> &Series) {
  mpiete::MachineFile Base;
  for (int R = 0; R < Ranks; ++R) {
    mpiete::MachineRank MR;
    MR.Rank = R;
    mpiete::MachineSegment Seg;
    Seg.From = SiteA;
    Seg.To = SiteB;
    Seg.Executions = Executions;
    Seg.MeanSeconds = Mean;
    Series(R, Seg);
    MR.Segments.push_back(Seg);
    Base.Ranks.push_back(MR);
  }
  return Base;
}

TEST(ComputeFitTest, OccurrenceProfilesFollowTheRanksRelativePosition) {
  // A model of 1e-3 s for every rank; the profiles' run at 4 ranks: rank 0's first occurrence
  // takes 3 times its mean (a warm-up), rank 2's every other occurrence twice (a period),
  // rank 1 and 3 no series. At 8 ranks rank 0 takes rank 0's profile, rank 7 rank 3's, and
  // ranks 1-6 spread over ranks 1 and 2 in order.
  const ScalingModelFile F = oneSegmentModel(1e-3);
  // Each base rank's mean is the base run's own scale: only the shape is taken.
  const mpiete::MachineFile Base = profileRun(4, 4, 2e-5, [](int R, mpiete::MachineSegment &Seg) {
    if (R == 0) {
      Seg.SeriesWidth = 1;
      Seg.SeriesSeconds = {6e-5, 6.67e-6, 6.67e-6, 6.66e-6};
    } else if (R == 2) {
      Seg.SeriesWidth = 2;
      Seg.SeriesSeconds = {8e-5 * 2 / 3, 8e-5 / 3}; // 2:1 between the two pairs
    }
  });
  ScaledComputeModel M(F, 8, 1024);
  M.addOccurrenceProfiles(Base);
  EXPECT_EQ(M.profileRank(0), 0);
  EXPECT_EQ(M.profileRank(1), 1);
  EXPECT_EQ(M.profileRank(3), 1);
  EXPECT_EQ(M.profileRank(4), 2);
  EXPECT_EQ(M.profileRank(6), 2);
  EXPECT_EQ(M.profileRank(7), 3);
  const mpiete::estimator::SegmentTimes *T0 = M.segment(0, SiteA, SiteB);
  EXPECT_NEAR(T0->seconds(0), 3e-3, 1e-12);
  EXPECT_NEAR(T0->seconds(1), 1e-3 / 3 * 1.0005, 1e-9);
  EXPECT_NEAR(T0->seconds(9), 1e-3, 1e-12); // past the profile: the mean
  const mpiete::estimator::SegmentTimes *T5 = M.segment(5, SiteA, SiteB);
  EXPECT_NEAR(T5->seconds(0), 1e-3 * 4.0 / 3, 1e-12);
  EXPECT_NEAR(T5->seconds(3), 1e-3 * 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(M.segment(2, SiteA, SiteB)->seconds(0), 1e-3); // rank 1: no series
  EXPECT_DOUBLE_EQ(M.segment(7, SiteA, SiteB)->seconds(2), 1e-3);
}

TEST(ComputeFitTest, RanksSharingAProfileTakeItRotated) {
  // The profiles' run at 4 ranks; ranks 1 and 2 have series a(k) u(k) and a(k) (2 - u(k)):
  // a is what both share (two slow first occurrences, a warm-up), u and 2 - u their own
  // variation (period 3). At 8 ranks, ranks 1-3 take rank 1's profile and ranks 4-6 rank
  // 2's: the c-th of the three copies keeps a where it is and takes its own variation from
  // 2 c occurrences on (6 c / 3), scaled back to the profile's total.
  const std::vector<double> A = {1.4, 1.4, 0.8, 0.8, 0.8, 0.8};
  const std::vector<double> U = {1.5, 0.5, 1, 1.5, 0.5, 1};
  const ScalingModelFile F = oneSegmentModel(1.0);
  const mpiete::MachineFile Base = profileRun(4, 6, 1, [&](int R, mpiete::MachineSegment &Seg) {
    if (R == 1 || R == 2) {
      Seg.SeriesWidth = 1;
      for (int K = 0; K < 6; ++K)
        Seg.SeriesSeconds.push_back(A[K] * (R == 1 ? U[K] : 2 - U[K]));
    }
  });
  ScaledComputeModel M(F, 8, 1);
  M.addOccurrenceProfiles(Base);
  for (int R = 1; R <= 6; ++R) {
    const int Q = R <= 3 ? 1 : 2, C = (R - 1) % 3;
    ASSERT_EQ(M.profileRank(R), Q) << R;
    EXPECT_EQ(M.profileRotation(R), std::make_pair(C, 3)) << R;
    const mpiete::estimator::SegmentTimes *T = M.segment(R, SiteA, SiteB);
    std::vector<double> Want;
    double Sum = 0;
    for (int K = 0; K < 6; ++K) {
      const double Own = Q == 1 ? U[(K + 2 * C) % 6] : 2 - U[(K + 2 * C) % 6];
      Want.push_back(A[K] * Own);
      Sum += Want.back();
    }
    double Got = 0;
    for (int K = 0; K < 6; ++K) {
      EXPECT_NEAR(T->seconds(uint64_t(K)), Want[size_t(K)] * 6 / Sum, 1e-12) << R << " " << K;
      Got += T->seconds(uint64_t(K));
    }
    EXPECT_NEAR(Got, 6.0, 1e-12);
    EXPECT_DOUBLE_EQ(T->seconds(6), 1.0); // past the profile: the mean
  }
  EXPECT_EQ(M.profileRotation(0), std::make_pair(0, 1));
  EXPECT_EQ(M.profileRotation(7), std::make_pair(0, 1));
  // At the profiles' own rank count every rank takes its profile as measured.
  ScaledComputeModel Same(F, 4, 1);
  Same.addOccurrenceProfiles(Base);
  EXPECT_EQ(Same.profileRotation(1), std::make_pair(0, 1));
  EXPECT_NEAR(Same.segment(1, SiteA, SiteB)->seconds(0), 2.1, 1e-12);
  // Past MaxRotations copies the rotations repeat: 200 ranks, 99 on rank 1's profile.
  ScaledComputeModel Many(F, 200, 1);
  Many.addOccurrenceProfiles(Base);
  EXPECT_EQ(Many.profileRotation(1), std::make_pair(0, ScaledComputeModel::MaxRotations));
  EXPECT_EQ(Many.profileRotation(1 + ScaledComputeModel::MaxRotations + 2),
            std::make_pair(2, ScaledComputeModel::MaxRotations));
}

TEST(ComputeFitTest, RotationCopiesCountEveryRankOnce) {
  // firstProfiled inverts profileRank: over many (P, Base) pairs, the copies of every Base
  // rank add up to P and each rank's rotation index is its place among its copies.
  const ScalingModelFile F = oneSegmentModel(1.0);
  for (int B = 1; B <= 9; ++B)
    for (int P = 1; P <= 40; ++P) {
      const mpiete::MachineFile Base = profileRun(B, 1, 1, [](int, mpiete::MachineSegment &) {});
      ScaledComputeModel M(F, P, 1);
      M.addOccurrenceProfiles(Base);
      std::map<int, int> Copies, Seen;
      for (int R = 0; R < P; ++R)
        ++Copies[M.profileRank(R)];
      for (int R = 0; R < P; ++R) {
        const int Q = M.profileRank(R);
        const auto [C, N] = M.profileRotation(R);
        EXPECT_EQ(N, std::min(Copies[Q], ScaledComputeModel::MaxRotations))
            << "P " << P << " base " << B << " rank " << R;
        EXPECT_EQ(C, Seen[Q]++ % N) << "P " << P << " base " << B << " rank " << R;
      }
    }
}

} // namespace
