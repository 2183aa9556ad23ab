// Unit tests of the LogGPS fit on synthetic curves with a known break, and of reading the comm
// probe's output and writing network.yaml from it.
#include "mpiete/basedata/CommProbe.h"
#include "mpiete/basedata/NetworkFile.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace mpiete;

namespace {

/// The probe's sizes: 0..Max by Step plus powers of two and their midpoints.
std::vector<uint64_t> probeSizes(uint64_t Max, uint64_t Step) {
  std::vector<uint64_t> S;
  for (uint64_t K = 0; K <= Max; K += Step)
    S.push_back(K);
  for (uint64_t P = 1; P <= Max; P *= 2) {
    S.push_back(P);
    if (P >= 2 && P + P / 2 <= Max)
      S.push_back(P + P / 2);
  }
  std::sort(S.begin(), S.end());
  S.erase(std::unique(S.begin(), S.end()), S.end());
  return S;
}

/// Deterministic multiplicative noise in [-Amp, Amp].
double noise(size_t I, double Amp) {
  uint64_t X = (I + 1) * 0x9E3779B97F4A7C15ULL;
  X ^= X >> 29;
  X *= 0xBF58476D1CE4E5B9ULL;
  X ^= X >> 32;
  return Amp * (2.0 * static_cast<double>(X % 10001) / 10000.0 - 1.0);
}

struct Truth {
  double L = 2e-6, Os = 3e-7, Or = 4e-7, GEager = 4e-10, G = 1e-10, Jump = 6e-6;
  uint64_t S = 12288;
};

/// A synthetic probe output following LogGPS exactly, up to the noise.
CommProbeOutput synthetic(const Truth &T, double Amp, uint64_t Max = 1 << 20,
                          uint64_t Step = (1 << 20) / 64) {
  CommProbeOutput D;
  D.Ranks = 2;
  D.Host0 = "a";
  D.Host1 = "b";
  size_t I = 0;
  for (uint64_t K : probeSizes(Max, Step)) {
    CommRow R;
    R.Bytes = K;
    R.Repetitions = 20;
    double X = static_cast<double>(K);
    double Base = T.Os + T.L + T.Or;
    double Y = K < T.S ? Base + T.GEager * X
                       : Base + T.GEager * static_cast<double>(T.S) + T.Jump +
                             T.G * (X - static_cast<double>(T.S));
    R.Recv = {Y * (1 + noise(I++, Amp)), Y * 0.9, Y * 1.2};
    R.IsendStart = {T.Os * (1 + noise(I++, Amp)), 0, 0};
    R.IrecvStart = {1e-7, 0, 0};
    R.Arrived = {K < T.S ? T.Or * (1 + noise(I++, Amp)) : Y, 0, 0};
    D.Rows.push_back(R);
  }
  D.StreamLength = 64;
  D.Stream.Median = 63 * 5e-7 + 2 * (T.Os + T.L + T.Or);
  return D;
}

} // namespace

TEST(LineFit, ExactLine) {
  std::vector<double> X = {0, 1, 2, 3}, Y = {1, 3, 5, 7};
  LineFit F = fitLine(X, Y, 0, 4);
  EXPECT_NEAR(F.Intercept, 1, 1e-12);
  EXPECT_NEAR(F.Slope, 2, 1e-12);
  LineFit One = fitLine(X, Y, 2, 3);
  EXPECT_NEAR(One.Intercept, 5, 1e-12);
  EXPECT_EQ(One.Slope, 0);
}

TEST(Step, FirstRiseWinsOverANoisyTail) {
  std::vector<double> Share = {0.12, 0.13, 0.11, 0.12, 0.1, 0.09, 0.45, 0.47, 0.5,
                               0.9,  0.95, 0.2,  0.1,  0.3, 0.1,  0.2,  0.15, 0.1};
  StepFit F = findStep(Share, 0.2);
  ASSERT_TRUE(F.HasBreak);
  EXPECT_EQ(F.Break, 6u);
  EXPECT_NEAR(F.Below, 0.115, 0.01);
  // A single high value is not a step.
  std::vector<double> Spike = {0.1, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1};
  EXPECT_FALSE(findStep(Spike, 0.2).HasBreak);
  std::vector<double> Flat(20, 0.1);
  EXPECT_FALSE(findStep(Flat, 0.2).HasBreak);
}

TEST(LineFit, TwoSidesAtABreak) {
  std::vector<double> X = {0, 1, 2, 3, 4, 5}, Y = {1, 2, 3, 10, 12, 14};
  PiecewiseFit F = fitAt(X, Y, 3);
  EXPECT_TRUE(F.HasBreak);
  EXPECT_NEAR(F.Left.Slope, 1, 1e-12);
  EXPECT_NEAR(F.Right.Slope, 2, 1e-12);
  EXPECT_NEAR(F.Right.Intercept, 4, 1e-12);
  EXPECT_NEAR(F.RelativeRms, 0, 1e-12);
}

TEST(LogGpsFit, RecoversTheBreakAndTheParameters) {
  Truth T;
  LogGpsFit F = fitLogGps(synthetic(T, 0.01));
  const LogGpsParams &P = F.Params;
  ASSERT_TRUE(P.S.has_value());
  EXPECT_EQ(*P.S, T.S);
  EXPECT_NEAR(P.G, T.G, 0.05 * T.G);
  EXPECT_NEAR(P.GEager, T.GEager, 0.1 * T.GEager);
  EXPECT_NEAR(P.Os, T.Os, 0.05 * T.Os);
  EXPECT_NEAR(P.Or, T.Or, 0.05 * T.Or);
  EXPECT_NEAR(P.L, T.L, 0.1 * T.L);
  EXPECT_NEAR(P.Gap, 5e-7, 0.05e-7);
  EXPECT_TRUE(F.Fit.HasBreak);
  EXPECT_LT(F.Fit.RelativeRms, 0.02);
}

TEST(LogGpsFit, BreakAtAnotherSizeWithMoreNoise) {
  Truth T;
  T.S = 262144;
  T.Jump = 3e-5;
  T.G = 2e-10;
  LogGpsParams P = fitLogGps(synthetic(T, 0.03, 4 << 20, (4 << 20) / 64)).Params;
  ASSERT_TRUE(P.S.has_value());
  // The probe only knows S to within its neighbouring sizes.
  EXPECT_GE(*P.S, 196608u);
  EXPECT_LE(*P.S, 327680u);
  EXPECT_NEAR(P.G, T.G, 0.05 * T.G);
}

TEST(LogGpsFit, NoThresholdWhenEverythingIsEager) {
  Truth T;
  T.S = UINT64_MAX;
  LogGpsParams P = fitLogGps(synthetic(T, 0.01)).Params;
  EXPECT_FALSE(P.S.has_value());
  EXPECT_NEAR(P.G, T.GEager, 0.05 * T.GEager);
}

TEST(CommProbeOutput, ParsesBetweenMarkers) {
  std::string Text = "launcher noise\n"
                     "mpiete-comm-probe-begin 1\n"
                     "ranks 2\npairs 1\nhost0 n1\nhost1 n2\nlibrary Open MPI v4.1, x\n"
                     "tolerance 0.02\nmin-reps 20\nmax-reps 1000\nbatch 10\n"
                     "row 0 20 1e-6 9e-7 2e-6 1e-7 1e-7 1e-7 2e-7 2e-7 2e-7 3e-7 3e-7 3e-7\n"
                     "row 8 30 2e-6 9e-7 2e-6 1e-7 1e-7 1e-7 2e-7 2e-7 2e-7 3e-7 3e-7 3e-7\n"
                     "stream 64 30 5e-5 4e-5 6e-5\n"
                     "copy 0 20 2e-8 1e-8 3e-8\n"
                     "copy 1024 40 1e-7 9e-8 2e-7\n"
                     "copy-packed 8 4096 20 5e-6 4e-6 6e-6\n"
                     "copy-packed 64 4096 20 2e-6 1e-6 3e-6\n"
                     "packed 8 4096 20 7e-6 6e-6 8e-6\n"
                     "unpacked 8 4096 20 4e-6 3e-6 5e-6\n"
                     "unpacked 8 8192 20 6e-6 5e-6 7e-6\n"
                     "unpacked 512 8192 20 3e-6 2e-6 4e-6\n"
                     "exchange 8192 30 4e-6 3e-6 5e-6\n"
                     "exchange-packed 512 8192 20 9e-6 8e-6 1e-5\n"
                     "exchange-packed 512 16384 20 2e-5 1e-5 3e-5\n"
                     "mpiete-comm-probe-end\nmore noise\n";
  CommProbeOutput D;
  ASSERT_EQ(parseCommProbeOutput(Text, D), "");
  EXPECT_EQ(D.Host0, "n1");
  EXPECT_EQ(D.Host1, "n2");
  EXPECT_EQ(D.Library, "Open MPI v4.1, x");
  ASSERT_EQ(D.Rows.size(), 2u);
  EXPECT_EQ(D.Rows[1].Bytes, 8u);
  EXPECT_EQ(D.Rows[1].Repetitions, 30);
  EXPECT_DOUBLE_EQ(D.Rows[1].Recv.Median, 2e-6);
  EXPECT_DOUBLE_EQ(D.Rows[1].Arrived.P90, 3e-7);
  EXPECT_EQ(D.StreamLength, 64);
  EXPECT_DOUBLE_EQ(D.Stream.P10, 4e-5);
  ASSERT_EQ(D.Copies.size(), 2u); // the memory-copy table (issue 13)
  EXPECT_EQ(D.Copies[1].Bytes, 1024u);
  EXPECT_EQ(D.Copies[1].Repetitions, 40);
  EXPECT_DOUBLE_EQ(D.Copies[1].Time.Median, 1e-7);
  EXPECT_DOUBLE_EQ(D.Copies[0].Time.P90, 3e-8);
  ASSERT_EQ(D.PackedCopies.size(), 2u); // MPI_Pack per piece length (issue 13)
  EXPECT_EQ(D.PackedCopies[1].first, 64u);
  ASSERT_EQ(D.PackedCopies[1].second.size(), 1u);
  EXPECT_DOUBLE_EQ(D.PackedCopies[1].second[0].Time.Median, 2e-6);
  ASSERT_EQ(D.Packed.size(), 1u); // the tables do not mix
  EXPECT_DOUBLE_EQ(D.Packed[0].second[0].Time.Median, 7e-6);
  ASSERT_EQ(D.Unpacked.size(), 2u); // the receiver's unpacking per piece length (issue 13)
  EXPECT_EQ(D.Unpacked[0].first, 8u);
  ASSERT_EQ(D.Unpacked[0].second.size(), 2u);
  EXPECT_EQ(D.Unpacked[0].second[1].Bytes, 8192u);
  EXPECT_DOUBLE_EQ(D.Unpacked[0].second[1].Time.P10, 5e-6);
  EXPECT_EQ(D.Unpacked[1].first, 512u);
  EXPECT_DOUBLE_EQ(D.Unpacked[1].second[0].Time.Median, 3e-6);
  ASSERT_EQ(D.Exchange.size(), 1u); // the exchanges (issue 13)
  EXPECT_EQ(D.Exchange[0].Bytes, 8192u);
  EXPECT_DOUBLE_EQ(D.Exchange[0].Time.Median, 4e-6);
  EXPECT_EQ(D.ExchangePiece, 512u);
  ASSERT_EQ(D.ExchangePacked.size(), 2u);
  EXPECT_EQ(D.ExchangePacked[1].Bytes, 16384u);
  EXPECT_DOUBLE_EQ(D.ExchangePacked[1].Time.P90, 3e-5);
  CommProbeOutput TwoPieces; // one piece length only
  EXPECT_NE(parseCommProbeOutput("mpiete-comm-probe-begin 1\nexchange-packed 512 64 20 1e-6 0 "
                                 "0\nexchange-packed 8 64 20 1e-6 0 0\n",
                                 TwoPieces),
            "");

  CommProbeOutput Bad;
  EXPECT_NE(parseCommProbeOutput("mpiete-comm-probe-begin 1\nrow 0 20 1e-6\n", Bad), "");
  CommProbeOutput BadCopy;
  EXPECT_NE(parseCommProbeOutput("mpiete-comm-probe-begin 1\ncopy 64 20 -1e-8 0 0\n", BadCopy), "");
  CommProbeOutput Cut;
  EXPECT_NE(parseCommProbeOutput("mpiete-comm-probe-begin 1\nranks 2\n", Cut), "");
}

TEST(NetworkYaml, CarriesTableParametersAndClass) {
  Truth T;
  CommProbeOutput D = synthetic(T, 0.01);
  LogGpsFit F = fitLogGps(D);
  const LogGpsParams &P = F.Params;
  NetworkRun Run;
  Run.Tool = "mpiete test";
  Run.Date = "2000-01-01T00:00:00Z";
  std::ostringstream OS;
  writeNetworkFile(OS, makeNetworkFile(D, F, Run));
  YAML::Node N = YAML::Load(OS.str());
  EXPECT_EQ(N["format"].as<std::string>(), "mpiete-network");
  EXPECT_EQ(N["version"].as<int>(), 1);
  EXPECT_EQ(N["class"].as<std::string>(), "inter-node");
  EXPECT_FALSE(N["provenance"]["same_node"].as<bool>());
  ASSERT_EQ(N["table"]["rows"].size(), D.Rows.size());
  EXPECT_EQ(N["table"]["rows"][3][0].as<uint64_t>(), D.Rows[3].Bytes);
  EXPECT_NEAR(N["table"]["rows"][3][1].as<double>(), D.Rows[3].Recv.Median,
              1e-4 * D.Rows[3].Recv.Median);
  EXPECT_EQ(N["loggps"]["S"].as<uint64_t>(), *P.S);
  EXPECT_NEAR(N["loggps"]["G"].as<double>(), P.G, 1e-4 * P.G);
}

namespace {
mpiete::CommProbeOutput rowsOf(std::initializer_list<std::pair<uint64_t, double>> Times) {
  mpiete::CommProbeOutput D;
  for (auto [Bytes, Seconds] : Times) {
    mpiete::CommRow R;
    R.Bytes = Bytes;
    R.Recv.Median = Seconds;
    R.Repetitions = 20;
    D.Rows.push_back(R);
  }
  return D;
}
} // namespace

// A size 1000 times slower than both neighbours is a stall; a steep but monotone step (the
// rendezvous switch) and the table's ends are not judged.
TEST(CommProbeSpikes, FindsOnlyIsolatedStalls) {
  auto D = rowsOf({{0, 1e-6},
                   {4096, 3e-6},
                   {8192, 4e-3},
                   {16384, 4e-6},
                   {32768, 40e-6},
                   {65536, 45e-6},
                   {131072, 1.0}});
  EXPECT_EQ(mpiete::spikySizes(D), std::vector<uint64_t>{8192});
}

TEST(CommProbeSpikes, MendTakesTheOtherRunsRowWhereItIsSteady) {
  auto D =
      rowsOf({{0, 1e-6}, {4096, 3e-6}, {8192, 4e-3}, {16384, 4e-6}, {20480, 9e-5}, {24576, 5e-6}});
  auto Again = rowsOf(
      {{0, 1e-6}, {4096, 3e-6}, {8192, 3.5e-6}, {16384, 4e-6}, {20480, 8e-5}, {24576, 5e-6}});
  EXPECT_EQ(mpiete::mendSpikes(D, Again), std::vector<uint64_t>{20480});
  EXPECT_DOUBLE_EQ(D.Rows[2].Recv.Median, 3.5e-6); // taken from the second run
  EXPECT_DOUBLE_EQ(D.Rows[4].Recv.Median, 9e-5);   // stalled in both: kept as measured
}
