// The capped loops' rules (runtime/lib/CapRules.cpp): the period of a loop's call signatures,
// and when enough iterations were timed to leave it.
#include "TimingCap.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace mpiete::cap;

namespace {

/// The history of N measured iterations whose signature is Sig(K), as the runtime keeps it.
template <typename F> std::vector<uint64_t> history(uint32_t N, F Sig) {
  std::vector<uint64_t> H(HistorySize, 0);
  for (uint32_t K = 0; K < N; ++K)
    H[K % HistorySize] = Sig(K);
  return H;
}

TEST(CapRulesTest, SameCallsEveryIterationIsAPeriodOfOne) {
  EXPECT_EQ(periodOf(history(20, [](uint32_t) { return 7u; }).data(), 20), 1u);
  // Two iterations are the least that show a period.
  EXPECT_EQ(periodOf(history(1, [](uint32_t) { return 7u; }).data(), 1), 0u);
}

TEST(CapRulesTest, ATestEveryTenStepsIsAPeriodOfTen) {
  // f90-stencil3d: an allreduce of a checksum every 10 steps (measured iterations 9, 19, ...).
  auto Sig = [](uint32_t K) { return (K + 1) % 10 == 0 ? 2u : 1u; };
  EXPECT_EQ(periodOf(history(19, Sig).data(), 19), 0u); // one test seen: no period yet
  EXPECT_EQ(periodOf(history(20, Sig).data(), 20), 10u);
  EXPECT_EQ(periodOf(history(200, Sig).data(), 200), 10u);
}

TEST(CapRulesTest, ATestInTheHistoryIsNeverAPeriodOfOne) {
  // One different iteration anywhere in the last PeriodWindow breaks every shorter period.
  auto Sig = [](uint32_t K) { return K == 30 ? 9u : 1u; };
  EXPECT_EQ(periodOf(history(40, Sig).data(), 40), 0u);
  EXPECT_EQ(periodOf(history(30 + PeriodWindow, Sig).data(), 30 + PeriodWindow), 0u);
  // Once it has left the window, the loop repeats again.
  EXPECT_EQ(periodOf(history(30 + PeriodWindow + 1, Sig).data(), 30 + PeriodWindow + 1), 1u);
}

TEST(CapRulesTest, APeriodLongerThanTheLimitIsNone) {
  auto Sig = [](uint32_t K) { return K % (MaxPeriod + 1) == 0 ? 2u : 1u; };
  EXPECT_EQ(periodOf(history(HistorySize, Sig).data(), HistorySize), 0u);
}

TEST(CapRulesTest, APlannedPeriodHoldsOverTheWholeHistory) {
  // A test every 50 steps (f77-jacobi's allreduce): measured iterations 49, 99, 149, ...
  auto Sig = [](uint32_t K) { return (K + 1) % 50 == 0 ? 2u : 1u; };
  EXPECT_EQ(periodOf(history(200, Sig).data(), 200), 0u);     // longer than the run finds alone
  EXPECT_FALSE(periodHolds(history(99, Sig).data(), 99, 50)); // not yet seen twice
  EXPECT_TRUE(periodHolds(history(100, Sig).data(), 100, 50));
  EXPECT_TRUE(periodHolds(history(1000, Sig).data(), 1000, 50));
  EXPECT_FALSE(periodHolds(history(1000, Sig).data(), 1000, 49));
  EXPECT_TRUE(periodHolds(history(1000, Sig).data(), 1000, 100)); // a multiple holds too
  // One iteration that differs, anywhere in the history, breaks it; once it has left the
  // history, the period holds again.
  auto Odd = [&](uint32_t K) { return K == 120 ? 3u : Sig(K); };
  EXPECT_FALSE(periodHolds(history(200, Odd).data(), 200, 50));
  EXPECT_FALSE(periodHolds(history(120 + HistorySize, Odd).data(), 120 + HistorySize, 50));
  EXPECT_TRUE(periodHolds(history(121 + HistorySize, Odd).data(), 121 + HistorySize, 50));
  // Past MaxPlannedPeriod, or no period: never.
  EXPECT_FALSE(periodHolds(history(HistorySize, Sig).data(), HistorySize, MaxPlannedPeriod + 1));
  EXPECT_FALSE(periodHolds(history(HistorySize, Sig).data(), HistorySize, 0));
}

TEST(CapRulesTest, ChangingCallsHaveNoPeriod) {
  // A pipeline that grows: every iteration's calls differ.
  EXPECT_EQ(
      periodOf(history(HistorySize, [](uint32_t K) { return uint64_t{K}; }).data(), HistorySize),
      0u);
}

TEST(CapRulesTest, EnoughWaitsForTheMinimumAndEveryVariant) {
  const double Tol = 0.02;
  // Equal iterations: the spread is zero, but never fewer than MinMeasured.
  EXPECT_FALSE(enough(2, Tol, 32, MinMeasured - 1, MinMeasured - 1, (MinMeasured - 1) * 100.0,
                      (MinMeasured - 1) * 1e4, 1));
  EXPECT_TRUE(
      enough(2, Tol, 32, MinMeasured, MinMeasured, MinMeasured * 100.0, MinMeasured * 1e4, 1));
  // Period 10 with cap 2: two of each variant, 20 iterations.
  EXPECT_FALSE(enough(2, Tol, 32, 19, 19, 1900, 19 * 1e4, 10));
  EXPECT_TRUE(enough(2, Tol, 32, 20, 20, 2000, 20 * 1e4, 10));
  // No period: never.
  EXPECT_FALSE(enough(2, Tol, 1000, 500, 500, 5e4, 500 * 1e4, 0));
}

TEST(CapRulesTest, EnoughKeepsSamplingASpreadMeanUpToTheMaximum) {
  // Iterations of 50 and 150 (standard error of the mean about 50/sqrt(N) against 100).
  const uint32_t N = 20;
  const double Sum = N * 100.0, SumSq = N / 2 * (50.0 * 50 + 150.0 * 150);
  EXPECT_FALSE(enough(2, 0.02, 32, N, N, Sum, SumSq, 1));
  EXPECT_TRUE(enough(2, 0.02, N, N, N, Sum, SumSq, 1)); // the maximum reached
}

TEST(CapRulesTest, APlannedLoopNeedsCapPeriodsNotTheMinimum) {
  const double Tol = 0.02;
  // The traces showed the period to the end: MinPlanned equal iterations are enough.
  EXPECT_FALSE(enough(2, Tol, 32, MinPlanned - 1, MinPlanned - 1, (MinPlanned - 1) * 100.0,
                      (MinPlanned - 1) * 1e4, 1, MinPlanned));
  EXPECT_TRUE(enough(2, Tol, 32, MinPlanned, MinPlanned, MinPlanned * 100.0, MinPlanned * 1e4, 1,
                     MinPlanned));
  // Still Cap of each variant of a longer period, and still the spread test.
  EXPECT_FALSE(enough(2, Tol, 32, 9, 9, 900, 9 * 1e4, 5, MinPlanned));
  EXPECT_TRUE(enough(2, Tol, 32, 10, 10, 1000, 10 * 1e4, 5, MinPlanned));
  const double SumSq = 2 * (50.0 * 50 + 150.0 * 150);
  EXPECT_FALSE(enough(2, Tol, 32, 4, 4, 400, SumSq, 1, MinPlanned));
}

TEST(CapRulesTest, TheSpreadIsOverTheIterationsTimedWhole) {
  // Ten equal iterations after the warm-up, the first of which lost its segment from the
  // warm-up (a loop with one MPI call an iteration: 0 ns counted for it). Over the nine timed
  // whole the spread is zero and MinPlanned are enough; counted as a sample, the 0 would keep
  // the loop sampling to the maximum.
  const double Tol = 0.02;
  const uint32_t N = 10;
  EXPECT_TRUE(enough(2, Tol, 32, N, N - 1, (N - 1) * 100.0, (N - 1) * 1e4, 1, MinPlanned));
  EXPECT_FALSE(enough(2, Tol, 32, N, N, (N - 1) * 100.0, (N - 1) * 1e4, 1, MinPlanned));
  // The count of iterations is still every measured one: MinPlanned with one of them partial.
  EXPECT_TRUE(enough(2, Tol, 32, MinPlanned, MinPlanned - 1, (MinPlanned - 1) * 100.0,
                     (MinPlanned - 1) * 1e4, 1, MinPlanned));
  // A spread over those timed whole still keeps it sampling.
  const double SumSq = 2 * (50.0 * 50 + 150.0 * 150);
  EXPECT_FALSE(enough(2, Tol, 32, 5, 4, 400, SumSq, 1, MinPlanned));
}

TEST(CapRulesTest, AnEntrysFirstMeasuredIterationLosesItsSegmentFromTheWarmUp) {
  // One MPI call (site 7) an iteration and the work after it: each iteration's segment began
  // in the iteration before. Iteration 0 is the warm-up (its segment from before the loop,
  // 50 us), iteration 1's segment began in the warm-up: no sample, and iteration 1 no sample
  // of the spread; iterations 2-4 take 1 ms each.
  EntryStats E;
  E.enter();
  EXPECT_TRUE(E.segment(7, 50'000));
  E.iterationStarts(1);
  EXPECT_FALSE(E.segment(7, 1'000'000));
  for (uint32_t Iter = 2; Iter <= 4; ++Iter) {
    E.iterationStarts(Iter);
    EXPECT_TRUE(E.segment(7, 1'000'000));
  }
  E.iterationStarts(5);
  EXPECT_EQ(E.measured(), 4u);
  EXPECT_EQ(E.timed(), 3u);
  EXPECT_DOUBLE_EQ(E.sum(), 3e6);
  EXPECT_TRUE(E.calls());
  EXPECT_EQ(periodOf(E.history(), E.measured()), 1u);
  EXPECT_TRUE(periodHolds(E.history(), E.measured(), 1));
  // Steady iterations: the plan's MinPlanned are enough (with iteration 1 as a 0 s sample
  // they were not, until 16 x Cap).
  EXPECT_TRUE(enough(2, 0.02, 32, E.measured(), E.timed(), E.sum(), E.sumSq(), 1, MinPlanned));
  // A new entry starts over.
  E.enter();
  E.segment(7, 10);
  E.iterationStarts(1);
  E.iterationStarts(2);
  EXPECT_EQ(E.measured(), 1u);
  EXPECT_EQ(E.timed(), 1u); // iteration 1 made no call, so it lost nothing
  EXPECT_FALSE(E.calls());
  EXPECT_DOUBLE_EQ(E.sum(), 0);
}

/// The period PeriodTracker finds for the signatures Sig(0), ..., Sig(N - 1).
template <typename F> uint32_t wholePeriod(uint64_t N, F Sig) {
  PeriodTracker T;
  for (uint64_t K = 0; K < N; ++K)
    T.add(Sig(K));
  EXPECT_EQ(T.count(), N);
  return T.period();
}

TEST(CapRulesTest, TheWholeEntrysPeriodHoldsToItsEnd) {
  EXPECT_EQ(wholePeriod(39, [](uint64_t) { return 7u; }), 1u);
  EXPECT_EQ(wholePeriod(1, [](uint64_t) { return 7u; }), 0u); // seen once: no period
  EXPECT_EQ(wholePeriod(99, [](uint64_t K) { return K % 2 == 0 ? 1u : 2u; }), 2u);
  EXPECT_EQ(wholePeriod(300, [](uint64_t K) { return (K + 1) % 10 == 0 ? 2u : 1u; }), 10u);
  // A test every 40 steps: a period the timing run does not find alone (MaxPeriod), the
  // whole entry shows it once it is seen twice; a last iteration that differs breaks it.
  EXPECT_EQ(wholePeriod(100, [](uint64_t K) { return K == 39 || K == 79 ? 2u : 1u; }), 40u);
  EXPECT_EQ(wholePeriod(79, [](uint64_t K) { return K == 39 || K == 79 ? 2u : 1u; }), 0u);
  EXPECT_EQ(wholePeriod(100, [](uint64_t K) { return K == 39 || K == 79 || K == 99 ? 2u : 1u; }),
            0u);
  // One different iteration anywhere, the last included, breaks every period.
  EXPECT_EQ(wholePeriod(1000, [](uint64_t K) { return K == 999 ? 3u : 1u; }), 0u);
  EXPECT_EQ(wholePeriod(1000, [](uint64_t K) { return K == 5 ? 3u : 1u; }), 0u);
  // A period longer than MaxPlannedPeriod is none.
  auto Every = [](uint64_t P) { return [P](uint64_t K) { return K % P == 0 ? 2u : 1u; }; };
  EXPECT_EQ(wholePeriod(1000, Every(MaxPlannedPeriod + 1)), 0u);
  EXPECT_EQ(wholePeriod(1000, Every(MaxPlannedPeriod)), MaxPlannedPeriod);
  EXPECT_EQ(wholePeriod(200, Every(MaxPeriod + 1)), MaxPeriod + 1);
  // Equal signatures first, then a test every 100 steps: the periods the first test breaks
  // are those it can be compared over; a longer one holds.
  EXPECT_EQ(wholePeriod(350, [](uint64_t K) { return (K + 1) % 100 == 0 ? 2u : 1u; }), 100u);
  EXPECT_EQ(wholePeriod(350, [](uint64_t K) { return K % 100 == 0 && K > 0 ? 2u : 1u; }), 0u);
  EXPECT_EQ(wholePeriod(199, [](uint64_t K) { return (K + 1) % 100 == 0 ? 2u : 1u; }), 0u);
  // Every period up to the limit is told apart (the broken periods' bits span two words).
  for (uint64_t P : {63u, 64u, 65u, 100u})
    EXPECT_EQ(wholePeriod(3 * P, Every(P)), P) << P;
}

TEST(CapRulesTest, TheTrackerAgreesWithTheDefinition) {
  // Sequences with a planted period (a few variants, then noise in some): the tracker's period
  // is the smallest P <= MaxPlannedPeriod with Sig[K] == Sig[K - P] for every K, 2P <= N.
  std::mt19937_64 Random(63);
  for (int Case = 0; Case < 400; ++Case) {
    const uint64_t Period = 1 + Random() % 140, N = 1 + Random() % 400;
    std::vector<uint64_t> Sig(N);
    for (uint64_t K = 0; K < N; ++K)
      Sig[K] = K < Period ? (Random() % 4 == 0 ? Random() % 3 : 0) : Sig[K - Period];
    if (Case % 3 == 0 && N > 1)
      Sig[Random() % N] = 7; // a stray iteration
    uint32_t Expected = 0;
    for (uint32_t P = 1; P <= MaxPlannedPeriod && 2 * P <= N && Expected == 0; ++P) {
      bool Holds = true;
      for (uint64_t K = P; K < N && Holds; ++K)
        Holds = Sig[K] == Sig[K - P];
      if (Holds)
        Expected = P;
    }
    EXPECT_EQ(wholePeriod(N, [&](uint64_t K) { return Sig[K]; }), Expected)
        << "case " << Case << ": period " << Period << ", " << N << " signatures";
  }
}

} // namespace
