// Model selection picks the terms that generated synthetic data, steps where the per-rank
// working set crosses a cache size, and no term that explodes outside the measured range.
#include "mpiete/scaling/NormalForm.h"
#include "mpiete/scaling/CommStructure.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mpiete::scaling;

namespace {

std::vector<Point> sample(double (*F)(double, double), std::vector<double> Ps,
                          std::vector<double> Ws) {
  std::vector<Point> D;
  for (double W : Ws)
    for (double P : Ps)
      D.push_back({P, W, F(P, W)});
  return D;
}

TEST(NormalFormTest, TermText) {
  EXPECT_EQ((Term{1, 1, 0, 0}.text()), "p * log2(p)");
  EXPECT_EQ((Term{-1, 0, 3, 0}.text()), "W^3 / p");
  EXPECT_EQ((Term{-1, 0, 1, 4096}.text()), "[W/p > 4096] * W / p");
  EXPECT_EQ(Term{}.text(), "1");
}

TEST(NormalFormTest, PicksPLogPOnOneSize) {
  auto F = [](double P, double) { return 2e-3 + 5e-4 * P * std::log2(P); };
  Model M = selectModel(sample(F, {2, 4, 8, 16, 32}, {1}));
  ASSERT_EQ(M.Terms.size(), 2u);
  EXPECT_EQ(M.Terms[1], (Term{1, 1, 0, 0}));
  EXPECT_NEAR(M.Coeffs[0], 2e-3, 1e-12);
  EXPECT_NEAR(M.Coeffs[1], 5e-4, 1e-12);
  EXPECT_LT(M.CvError, 1e-9);
}

TEST(NormalFormTest, PicksSeed002Terms) {
  // Seed 002's kind of model: N^3 / P + P * N^2 (no constant).
  auto F = [](double P, double W) { return 1e-9 * W * W * W / P + 2e-8 * P * W * W; };
  Model M = selectModel(sample(F, {2, 4, 8, 16}, {100, 200, 400}));
  std::vector<Term> Got;
  for (size_t K = 0; K < M.Terms.size(); ++K)
    if (M.Coeffs[K] > 0)
      Got.push_back(M.Terms[K]);
  ASSERT_EQ(Got.size(), 2u) << M.text();
  EXPECT_EQ(Got[0], (Term{1, 0, 2, 0})) << M.text();
  EXPECT_EQ(Got[1], (Term{-1, 0, 3, 0})) << M.text();
  EXPECT_NEAR(M.eval(64, 800), F(64, 800), 1e-9 * F(64, 800));
}

TEST(NormalFormTest, NoisyDataKeepsTheSimpleModel) {
  // 1/p work with +-1% alternating noise: no second term pays for itself.
  int K = 0;
  std::vector<Point> D;
  for (double P : {1, 2, 4, 8, 16, 32})
    D.push_back({P, 1, (0.8 / P + 0.01) * (1 + ((K++ % 2) ? 0.01 : -0.01))});
  Model M = selectModel(D);
  ASSERT_EQ(M.Terms.size(), 2u) << M.text();
  EXPECT_EQ(M.Terms[1], (Term{-1, 0, 0, 0}));
}

TEST(NormalFormTest, FindsTheWorkingSetStep) {
  // Seed 001: time per unit of work doubles once the per-rank working set W/p exceeds 1000.
  auto F = [](double P, double W) {
    const double Ws = W / P;
    return Ws * (Ws > 1000 ? 2e-6 : 1e-6);
  };
  Model M = selectModel(sample(F, {1, 2, 4, 8}, {1000, 4000, 16000}));
  bool Step = false;
  for (size_t K = 0; K < M.Terms.size(); ++K)
    if (M.Coeffs[K] > 0 && M.Terms[K].StepAt > 0) {
      Step = true;
      EXPECT_GT(M.Terms[K].StepAt, 1000);
      EXPECT_LT(M.Terms[K].StepAt, 2000);
    }
  EXPECT_TRUE(Step) << M.text();
  EXPECT_LT(M.FitWorst, 1e-9) << M.text();
}

// Seed 001 with the machine's caches: 2-16 ranks at three sizes of a stencil whose data are
// 16 W^2 bytes (two W x W arrays of doubles), 1 ns per point and 1 ns more once a rank's share
// leaves the 2 MiB L2, plus 10 us. n = 800 and 1200 put three points below L2, nine above.
const WorkingSet Stencil{16, 2};
const std::vector<double> Caches = {48 * 1024, 2 * 1024 * 1024, 504.0 * 1024 * 1024};

double stencil(double P, double W) {
  return 1e-5 + 1e-9 * W * W / P * (Stencil.at(P, W) > 2 * 1024 * 1024 ? 2 : 1);
}

TEST(NormalFormTest, CacheStepAtTheMachinesCacheIsRecovered) {
  SelectOptions O;
  O.Ws = Stencil;
  O.Caches = Caches;
  const std::vector<Point> D = sample(stencil, {2, 4, 8, 16}, {800, 1200, 2048});
  const Model M = selectModel(D, O);
  ASSERT_EQ(M.Terms.size(), 3u) << M.text();
  EXPECT_EQ(M.Terms[1], (Term{-1, 0, 2})) << M.text();
  EXPECT_EQ(M.Terms[2], (Term{-1, 0, 2, 2 * 1024 * 1024, Stencil})) << M.text();
  EXPECT_NEAR(M.Coeffs[0], 1e-5, 1e-12);
  EXPECT_NEAR(M.Coeffs[1], 1e-9, 1e-15);
  EXPECT_NEAR(M.Coeffs[2], 1e-9, 1e-15);
  EXPECT_EQ(M.Terms[2].text(), "[16*W^2/p > 2.09715e+06] * W^2 / p");
  // 64 ranks at n = 2048 (1 MiB a rank, inside L2): the step is below, as measured.
  EXPECT_NEAR(M.eval(64, 2048), stencil(64, 2048), 1e-12);
  EXPECT_TRUE(unmeasuredSteps(D, Stencil, Caches, 64, 2048).empty());
  // Without steps the same points get no term at 2 MiB, and the
  // 64-rank value is off: the step is what the stencils' strong scaling needs.
  SelectOptions NoSteps;
  NoSteps.Steps = false;
  const Model Plain = selectModel(D, NoSteps);
  EXPECT_GT(std::fabs(Plain.eval(64, 2048) - stencil(64, 2048)) / stencil(64, 2048), 0.2)
      << Plain.text();
}

TEST(NormalFormTest, NoCacheStepWhereTheDataHaveNone) {
  // The same sizes and caches, one cost per point everywhere, +-2% noise: no step is chosen.
  SelectOptions O;
  O.Ws = Stencil;
  O.Caches = Caches;
  for (int Phase = 0; Phase < 3; ++Phase) {
    std::vector<Point> D;
    int K = Phase;
    for (double W : {800.0, 1200.0, 2048.0})
      for (double P : {2.0, 4.0, 8.0, 16.0})
        D.push_back({P, W, (1e-5 + 2e-9 * W * W / P) * (1 + 0.02 * ((K++ % 3) - 1))});
    const Model M = selectModel(D, O);
    for (size_t T = 0; T < M.Terms.size(); ++T)
      EXPECT_FALSE(M.Terms[T].StepAt > 0 && M.Coeffs[T] > 0) << M.text();
    const double Truth = 1e-5 + 2e-9 * 2048 * 2048 / 64;
    EXPECT_LT(std::fabs(M.eval(64, 2048) - Truth) / Truth, 0.05) << M.text();
  }
}

TEST(NormalFormTest, OneSizeDoesNotStraddleTheStep) {
  // Strong scaling of n = 2048 from 2-16 ranks: 33.6 MB down to 4.2 MB a rank, all above L2.
  // No step can be fitted, and 64 ranks (1 MiB) lie beyond it: reported, not extended.
  SelectOptions O;
  O.Ws = Stencil;
  O.Caches = Caches;
  const std::vector<Point> D = sample(stencil, {2, 4, 8, 16}, {2048});
  const Model M = selectModel(D, O);
  for (const Term &T : M.Terms)
    EXPECT_EQ(T.StepAt, 0) << M.text();
  EXPECT_EQ(unmeasuredSteps(D, Stencil, Caches, 64, 2048), (std::vector<double>{2 * 1024 * 1024}));
  EXPECT_TRUE(unmeasuredSteps(D, Stencil, Caches, 16, 2048).empty());
  // A larger problem (n = 65536: 1 GiB a rank at 64) crosses the L3 no run reached.
  EXPECT_EQ(unmeasuredSteps(D, Stencil, Caches, 64, 65536),
            (std::vector<double>{504.0 * 1024 * 1024}));
  EXPECT_TRUE(unmeasuredSteps(D, WorkingSet{}, Caches, 64, 2048).empty());
}

TEST(NormalFormTest, ParsesWorkingSets) {
  WorkingSet Ws;
  ASSERT_TRUE(parseWorkingSet("16*W^2", Ws));
  EXPECT_EQ(Ws, (WorkingSet{16, 2}));
  ASSERT_TRUE(parseWorkingSet("W", Ws));
  EXPECT_EQ(Ws, (WorkingSet{1, 1}));
  ASSERT_TRUE(parseWorkingSet("8 * W^1.5", Ws));
  EXPECT_EQ(Ws, (WorkingSet{8, 1.5}));
  ASSERT_TRUE(parseWorkingSet("4096", Ws));
  EXPECT_EQ(Ws, (WorkingSet{4096, 0}));
  EXPECT_EQ(Ws.at(4, 7), 1024);
  EXPECT_EQ((WorkingSet{16, 2}).text(), "16*W^2/p");
  for (const char *Bad : {"16W^2", "16*X", "W^", "-1*W", "", "16*W^2x"})
    EXPECT_FALSE(parseWorkingSet(Bad, Ws)) << Bad;
}

TEST(NormalFormTest, NeverNegative) {
  // Decreasing data that a free least-squares line would take below zero at large p.
  std::vector<Point> D = {{2, 1, 1.0}, {4, 1, 0.6}, {8, 1, 0.45}, {16, 1, 0.4}};
  Model M = selectModel(D);
  for (double C : M.Coeffs)
    EXPECT_GE(C, 0);
  EXPECT_GT(M.eval(1e6, 1), 0);
}

TEST(NormalFormTest, NoiseCannotBuyAnExplodingTerm) {
  // A fixed problem split among 2-16 ranks, 1e-2 / p + 1e-5 s, measured with a few percent of
  // noise (a timing run under load). Leave-one-out alone lets two terms fit every fold's three
  // points exactly and picks whichever curvature the noise has; extrapolated to 64 ranks such
  // a model is far off (this noise: 0.0099 / p + 6.3e-10 p^3 log2(p)^2, 36 times the value at
  // 64 ranks). The selection must keep to the constant and the divided work.
  auto F = [](double P) { return 1e-2 / P + 1e-5; };
  const double Noise[] = {0.0, -0.02, -0.02, 0.04};
  std::vector<Point> D;
  int K = 0;
  for (double P : {2, 4, 8, 16})
    D.push_back({P, 1, F(P) * (1 + Noise[K++])});
  Model M = selectModel(D);
  for (size_t T = 0; T < M.Terms.size(); ++T)
    EXPECT_TRUE(M.Coeffs[T] == 0 || M.Terms[T].PExp < 0 || M.Terms[T].constant()) << M.text();
  // The constant absorbs the noise at 16 ranks (4% of 6.35e-4 s is 2.5e-5 s, 15% of the value
  // at 64): 30%, not the noise's 4%, is what the data allow.
  EXPECT_LT(std::fabs(M.eval(64, 1) - F(64)) / F(64), 0.3) << M.text();
  EXPECT_GE(M.ExtrapolationError, 0);
}

TEST(NormalFormTest, DividedWorkNeedsNoConstant) {
  // A fixed problem split among 2-16 ranks, 1e-2 / p, timed with an uneven upward drift of up
  // to 10% (treesum's main segment under the timing probe: 2 p t = 31.5, 33.8, 33.95, 34.6 ms
  // at 2-16 ranks, 35.3 at 64). A constant fitted beside the divided work takes the drift
  // and grows relative to the work at every larger rank count (23% over at 64 ranks there).
  // Without a constant the model is c / p, off by the drift alone.
  const double Drift[] = {1.0, 1.073, 1.078, 1.098};
  std::vector<Point> D;
  int K = 0;
  for (double P : {2, 4, 8, 16})
    D.push_back({P, 1, 1e-2 / P * Drift[K++]});
  Model M = selectModel(D);
  for (size_t T = 0; T < M.Terms.size(); ++T)
    EXPECT_TRUE(M.Coeffs[T] == 0 || !M.Terms[T].constant()) << M.text();
  const double At64 = M.eval(64, 1) * 64 / 1e-2;
  EXPECT_GT(At64, 1.0) << M.text();
  EXPECT_LT(At64, 1.12) << M.text();
  // With the constant beside the divided work, the same points give 1.2 times that or more.
  const Model Forced = fitModel(D, {Term{-1, 0, 0}});
  EXPECT_GT(Forced.eval(64, 1) * 64 / 1e-2, 1.2) << Forced.text();
}

TEST(NormalFormTest, TwoTermsNeedAPointToSpare) {
  // 1e-2 / p + 1e-3 log2(p), growing at the largest rank count. From four rank counts the fold
  // without 16 ranks has three points, which any three-coefficient curve passes: the model
  // keeps one term. From five the two terms are found exactly.
  auto F = [](double P, double) { return 1e-2 / P + 1e-3 * std::log2(P); };
  Model Four = selectModel(sample(F, {2, 4, 8, 16}, {1}));
  EXPECT_LE(Four.Terms.size(), 2u) << Four.text();
  Model Five = selectModel(sample(F, {2, 4, 8, 16, 32}, {1}));
  std::vector<Term> Got;
  for (size_t K = 0; K < Five.Terms.size(); ++K)
    if (Five.Coeffs[K] > 1e-12)
      Got.push_back(Five.Terms[K]);
  ASSERT_EQ(Got.size(), 2u) << Five.text();
  EXPECT_EQ(Got[0], (Term{-1, 0, 0, 0})) << Five.text();
  EXPECT_EQ(Got[1], (Term{0, 1, 0, 0})) << Five.text();
  EXPECT_NEAR(Five.eval(64, 1), F(64, 1), 1e-9 * F(64, 1));
  EXPECT_LT(Five.ExtrapolationError, 1e-9);
}

TEST(NormalFormTest, ThreeRankCountsStillDivideTheWork) {
  // 2, 4, 8 ranks of a fixed problem (1e-2 / p + 1e-5, 2% noise): the fold without 8 ranks has
  // two points, enough for the constant and one term, so the model still divides the work.
  auto F = [](double P) { return 1e-2 / P + 1e-5; };
  std::vector<Point> D = {{2, 1, F(2) * 1.02}, {4, 1, F(4) * 0.98}, {8, 1, F(8) * 1.02}};
  Model M = selectModel(D);
  EXPECT_LT(std::fabs(M.eval(64, 1) - F(64)) / F(64), 0.5) << M.text();
}

TEST(NormalFormTest, GrowthOnlyWhereTheDataGrow) {
  auto offersGrowth = [](const std::vector<Point> &D) {
    for (const Term &T : termPool(D, {}))
      if (T.PExp > 0)
        return true;
    return false;
  };
  // One size: values still falling at the largest rank count get no term growing with p,
  // values rising there may.
  std::vector<Point> Falling = {{2, 1, 1.0}, {4, 1, 0.55}, {8, 1, 0.4}, {16, 1, 0.39}};
  for (const Term &T : termPool(Falling, {}))
    EXPECT_TRUE(T.PExp < 0) << T.text();
  std::vector<Point> Rising = {{2, 1, 1.0}, {4, 1, 0.55}, {8, 1, 0.4}, {16, 1, 0.41}};
  EXPECT_TRUE(offersGrowth(Rising));
  // The same rise (2.5%) within the spread of repeated runs at 8 or 16 ranks (3%): no growth;
  // beyond it (2%): growth.
  for (double Noise : {0.03, 0.02}) {
    std::vector<Point> Noisy = Rising;
    Noisy[2].Noise = Noise;
    EXPECT_EQ(offersGrowth(Noisy), Noise < 0.025) << Noise;
  }
  // Values that rise, fall and rise again (treesum's setup on rank 0, a print, in us): no
  // model of the normal form falls and rises more than once, so the rise at the top is noise
  // and nothing grows; the model at 64 ranks stays within the measured values (a growing
  // term gave 17 ms). The same top after values that only rose: growth.
  std::vector<Point> ZigZag = {{2, 1, 23e-6}, {4, 1, 153e-6}, {8, 1, 31e-6}, {16, 1, 148e-6}};
  for (const Term &T : termPool(ZigZag, {}))
    EXPECT_FALSE(T.PExp > 0 || (T.PExp == 0 && T.LogExp > 0)) << T.text();
  EXPECT_LE(selectModel(ZigZag).eval(64, 1), 153e-6) << selectModel(ZigZag).text();
  std::vector<Point> Up = {{2, 1, 22e-6}, {4, 1, 28e-6}, {8, 1, 38e-6}, {16, 1, 141e-6}};
  EXPECT_TRUE(offersGrowth(Up));
  // A fall after a rise is a turn (no growth) unless the repeats' spread covers it.
  std::vector<Point> Wiggle = {{2, 1, 1.0}, {4, 1, 1.1}, {8, 1, 1.08}, {16, 1, 1.5}};
  EXPECT_FALSE(offersGrowth(Wiggle));
  Wiggle[2].Noise = 0.05;
  EXPECT_TRUE(offersGrowth(Wiggle));
  // A rise at the top smaller than the spread the segment showed at another count is no
  // growth: rank 0's print before MPI_Finalize in two tree codes (medians of three runs, us;
  // the repeats' spread hi / lo - 1 beside them). f77-bintree: 3.65 ms, 0.44 and 0.12 at 4
  // ranks, then 0.13 at 8 and 3.4 at 16 (a factor 25, below the 4 ranks' 31); treesum: 29 to
  // 326 us at 4 ranks, 36 at 8 and 354 at 16. Growth took p^3 log2(p)^2: 0.33 s and 36 ms at
  // 64 ranks against 0.2 ms and 73 us measured. The same top after values that only fall, with
  // every spread below the rise, grows.
  std::vector<Point> BinTree = {
      {2, 1, 189e-6, 0.13}, {4, 1, 441e-6, 30.2}, {8, 1, 134e-6, 0.39}, {16, 1, 3359e-6, 16.0}};
  std::vector<Point> TreeSum = {
      {2, 1, 93.5e-6, 0.21}, {4, 1, 85.7e-6, 10.2}, {8, 1, 35.8e-6, 1.39}, {16, 1, 354e-6, 6.5}};
  for (const std::vector<Point> &D : {BinTree, TreeSum}) {
    EXPECT_FALSE(offersGrowth(D));
    EXPECT_LE(selectModel(D).eval(64, 1), 3.4e-3) << selectModel(D).text();
    std::vector<Point> Quiet = D;
    Quiet[1].Y = Quiet[0].Y;
    for (Point &X : Quiet)
      X.Noise = std::min(X.Noise, 0.5);
    EXPECT_TRUE(offersGrowth(Quiet));
  }
  // Several sizes, each at one rank count: the pool is not restricted (W and p change
  // together).
  std::vector<Point> Sizes = {{2, 1, 1.0}, {4, 2, 0.9}, {8, 4, 0.8}, {16, 8, 0.7}};
  bool Grows = false;
  for (const Term &T : termPool(Sizes, {}))
    Grows |= T.PExp > 0 && T.WExp == 0;
  EXPECT_TRUE(Grows);
  // Two sizes, each at 2-16 ranks: falling at both, no term grows with p (with W or without:
  // linesweep's p^3 log2(p)^2 fitted to the curvature of two falling series was 13 times its
  // measured value at 64 ranks); rising at one of them, growth is offered.
  std::vector<Point> TwoFalling, OneRising;
  for (double W : {1501.0, 2001.0})
    for (double P : {2.0, 4.0, 8.0, 16.0}) {
      TwoFalling.push_back({P, W, W * W / P});
      OneRising.push_back({P, W, W * W / P + (W == 2001 && P == 16 ? W * W : 0)});
    }
  for (const Term &T : termPool(TwoFalling, {}))
    EXPECT_FALSE(T.PExp > 0 || (T.PExp == 0 && T.LogExp > 0)) << T.text();
  EXPECT_TRUE(offersGrowth(OneRising));
}

} // namespace

namespace {

/// transpose's rows a rank sweeps: n / d0 of MPI_Dims_create(p, 2) (2, 2, 4, 4 at 2-16 ranks;
/// 8 at 64).
double perRow(double P) { return 1e-5 + 4e-3 / mpiete::scaling::dimsCreate(int(P), 2)[0]; }

} // namespace

TEST(NormalFormTest, GridDivisorTermFoundWhereTheStructureOffersIt) {
  auto F = [](double P, double) { return perRow(P); };
  SelectOptions Options;
  Options.GridDivisors = {{2, 1}, {3, 3}};
  Model M = selectModel(sample(F, {2, 4, 8, 16}, {1}), Options);
  ASSERT_EQ(M.Terms.size(), 2u) << M.text();
  EXPECT_EQ(M.Terms[1].GridDims, 2);
  EXPECT_EQ(M.Terms[1].GridAxes, 1);
  EXPECT_EQ(M.Terms[1].text(), "1 / (d0 of Dims_create(p, 2))");
  EXPECT_NEAR(M.eval(64, 1) / perRow(64), 1, 1e-9);
  // Not offered (a structure with no grid), the 64-rank value is a power of p's guess.
  Model Plain = selectModel(sample(F, {2, 4, 8, 16}, {1}));
  EXPECT_GT(std::abs(Plain.eval(64, 1) / perRow(64) - 1), 0.05) << Plain.text();
}
