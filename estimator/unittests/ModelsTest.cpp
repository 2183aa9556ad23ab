// Model tests: table interpolation and extrapolation, LogGPS times, cluster link selection.
#include "mpiete/estimator/Models.h"
#include "RoundNs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mpiete::estimator;

TEST(ModelsTest, TableInterpolatesAndExtrapolates) {
  // Points (0, 1000 ns), (100, 1100 ns), (200, 1300 ns), given out of order.
  TableLinkModel T({{200, 1300e-9}, {0, 1000e-9}, {100, 1100e-9}}, 5e-9, 7e-9, 64, 3e-9);
  EXPECT_EQ(T.transfer(0), 1000);
  EXPECT_EQ(T.transfer(50), 1050);
  EXPECT_EQ(T.transfer(150), 1200); // on the second segment, slope 2 ns/byte
  EXPECT_EQ(T.transfer(300), 1500); // the last octave (100, 200) is the last segment here
  EXPECT_EQ(T.sendOverhead(10), 5);
  EXPECT_EQ(T.recvOverhead(10), 7);
  EXPECT_EQ(T.gap(), 3);
  EXPECT_EQ(T.eagerLimit(), 64u);
}

// Beyond the largest size the table follows the least-squares line through its last octave,
// not its last segment, which one noisy row could tilt either way.
TEST(ModelsTest, TableExtrapolatesAlongItsLastOctave) {
  // 1 ns per byte from 0 to 4000 bytes; the last row 200 ns late, the one before 100 early.
  std::vector<TableLinkModel::Point> Points;
  for (uint64_t B = 0; B <= 4000; B += 500)
    Points.push_back({B, double(B) * 1e-9});
  Points[7].Seconds -= 100e-9; // 3500
  Points[8].Seconds += 200e-9; // 4000
  TableLinkModel T(Points, 0, 0, 0);
  EXPECT_EQ(T.transfer(4000), 4200); // measured sizes keep their own rows
  // Octave 2000-4000 (5 rows, x mean 3000, residuals 0, 0, 0, -100, +200): slope 1 + 80/1e6...
  // exactly: Sxy = 500 x (-100) + 1000 x 200 = 150000 over Sxx = 2.5e6: 1.06 ns/B; at 4000:
  // mean 3020 + 1.06 x 1000 = 4080; at 14000: 4080 + 10600 = 14680 (the last segment's slope,
  // 1.6, would give 20200).
  EXPECT_EQ(T.transfer(14000), 14680);
  // A falling tail is held level at the line's value at the largest size.
  TableLinkModel Falling({{0, 0}, {1000, 2000e-9}, {1500, 1800e-9}, {2000, 1600e-9}}, 0, 0, 0);
  EXPECT_EQ(Falling.transfer(5000), 1600);
}

TEST(ModelsTest, TableBelowFirstPointNeverNegative) {
  TableLinkModel T({{100, 100e-9}, {200, 1100e-9}}, 0, 0, 0);
  EXPECT_EQ(T.transfer(95), 50); // first segment extended: 100 - 5 x 10
  EXPECT_EQ(T.transfer(0), 0);   // would be -900: clamped
  TableLinkModel One({{8, 42e-9}}, 0, 0, 0);
  EXPECT_EQ(One.transfer(1 << 20), 42);
}

TEST(ModelsTest, LogGPSTimes) {
  mpiete::LogGpsParams P;
  P.L = 1000e-9;
  P.Os = 10e-9;
  P.Or = 20e-9;
  P.G = 0.5e-9;
  P.Gap = 4e-9;
  P.S = 1025; // the first size sent synchronously
  LogGPSLinkModel M(P);
  EXPECT_EQ(M.transfer(0), 1030);          // o_s + L + o_r
  EXPECT_EQ(M.transfer(100), 1030 + 50);   // + 100 G
  EXPECT_EQ(M.transfer(1024), 1030 + 512); // + 1024 G, still eager
  // Rendezvous: + 2 (o_s + L + o_r) = 2060 for the request / acknowledge round trip.
  EXPECT_EQ(M.transfer(2000), 1030 + 1000 + 2060);
  EXPECT_EQ(M.sendOverhead(0), 10);
  EXPECT_EQ(M.recvOverhead(0), 20);
  EXPECT_EQ(M.gap(), 4);

  // As h-driver's probe fits it: overheads growing with the size, a separate eager G.
  P.OsPerByte = 0.01e-9;
  P.OrPerByte = 0.02e-9;
  P.GEager = 0.25e-9;
  LogGPSLinkModel F(P);
  EXPECT_EQ(F.sendOverhead(1000), 20);
  EXPECT_EQ(F.recvOverhead(1000), 40);
  EXPECT_EQ(F.transfer(1000), 1030 + 250);
  EXPECT_EQ(F.transfer(2000), 3090 + 1000);
}

TEST(ModelsTest, ClusterPicksIntraOrInterNodeLink) {
  auto Intra =
      std::make_shared<TableLinkModel>(std::vector<TableLinkModel::Point>{{0, 1e-9}}, 0, 0, 0);
  auto Inter =
      std::make_shared<TableLinkModel>(std::vector<TableLinkModel::Point>{{0, 9e-9}}, 0, 0, 0);
  ClusterNetworkModel C({0, 0, 1, 1}, Intra, Inter);
  EXPECT_EQ(C.link(0, 1).transfer(0), 1);
  EXPECT_EQ(C.link(2, 3).transfer(0), 1);
  EXPECT_EQ(C.link(1, 2).transfer(0), 9);
  EXPECT_EQ(C.link(3, 3).transfer(0), 1);
}

TEST(ModelsTest, HeterogeneousComputeTable) {
  TableComputeModel M;
  unsigned Fast = M.addMachine(), Slow = M.addMachine();
  M.setTime(Fast, 1, 1e-6);
  M.setTime(Slow, 1, 2e-6);
  M.assignRank(3, Slow);
  EXPECT_EQ(M.secondsPerExecution(0, 1), 1e-6);
  EXPECT_EQ(M.secondsPerExecution(3, 1), 2e-6);
  EXPECT_FALSE(M.secondsPerExecution(3, 2).has_value());
}

TEST(ModelsTest, BlockOtherRanksRanTakesTheirMean) {
  TableComputeModel M;
  for (int R = 0; R < 3; ++R)
    M.assignRank(R, M.addMachine());
  M.setTime(0, 1, 1e-6);
  M.setTime(1, 1, 3e-6);
  // Rank 2 never ran block 1 in the timing probe: the mean of ranks 0 and 1, noted once.
  EXPECT_EQ(M.secondsPerExecution(2, 1), 2e-6);
  EXPECT_EQ(M.secondsPerExecution(2, 1), 2e-6);
  ASSERT_EQ(M.fallbacks().size(), 1u);
  EXPECT_EQ(M.fallbacks()[0], (std::pair<int, BlockId>{2, 1}));
  // A block no rank ran has no time at all.
  EXPECT_FALSE(M.secondsPerExecution(2, 5).has_value());
}

TEST(ModelsTest, RoundNsIsLlround) {
  const double Inf = std::numeric_limits<double>::infinity();
  for (double X : {0.0,
                   -0.0,
                   0.5,
                   -0.5,
                   1.5,
                   -1.5,
                   2.5,
                   -2.5,
                   0.49999999999999994,
                   -0.49999999999999994,
                   4503599627370495.5,
                   -4503599627370495.5,
                   9007199254740993.0,
                   1e18,
                   -1e18,
                   4.6e18,
                   1e19,
                   -1e19,
                   Inf,
                   123456.4999999,
                   7.5e-10})
    EXPECT_EQ(roundNs(X), std::llround(X)) << X;
  for (int I = -100000; I <= 100000; ++I)
    EXPECT_EQ(roundNs(I * 0.01 + 1e-9 * I), std::llround(I * 0.01 + 1e-9 * I)) << I;
}
