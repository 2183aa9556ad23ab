// The sampled loops' rules (runtime/lib/SampleRules.cpp, TimingSample.h): which iterations run,
// and the estimate of the skipped ones, on loops whose every iteration's time is known.
#include "TimingSample.h"

#include <gtest/gtest.h>

#include <functional>

using namespace mpiete::sample;

namespace {

/// Runs a loop of Trips iterations whose iteration J takes Time(J) under --sample Stride, as
/// the hooks drive the estimate; returns the estimate of the skipped iterations.
double sampleLoop(uint32_t Trips, uint32_t Stride, const std::function<double(uint32_t)> &Time,
                  EntryEstimate &E) {
  for (uint32_t J = 0; J < Trips; ++J) {
    if (runs(J, Stride))
      E.measured(J, Time(J));
    else if (primes(J, Stride))
      E.primed(Time(J));
    else
      E.skipped();
  }
  return E.finish();
}

double sumOf(uint32_t First, uint32_t Last, const std::function<double(uint32_t)> &Time) {
  double S = 0;
  for (uint32_t J = First; J <= Last; ++J)
    S += Time(J);
  return S;
}

TEST(SampleRulesTest, TheFirstStridePlusTwoAndEveryStrideThAfterThemRunEachPrimedByTheOneBefore) {
  std::vector<uint32_t> Measured, Primers;
  for (uint32_t J = 0; J < 20; ++J) {
    if (runs(J, 4))
      Measured.push_back(J);
    if (primes(J, 4))
      Primers.push_back(J);
  }
  EXPECT_EQ(Measured, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 9, 13, 17}));
  EXPECT_EQ(Primers, (std::vector<uint32_t>{8, 12, 16}));
  for (uint32_t J = 0; J < 1002; ++J)
    EXPECT_TRUE(runs(J, 1000) && !primes(J, 1000)) << J;
  EXPECT_FALSE(runs(1002, 1000) || primes(1002, 1000));
  EXPECT_TRUE(primes(2000, 1000));
  EXPECT_TRUE(runs(2001, 1000));
}

TEST(SampleRulesTest, EqualIterationsAreEstimatedExactly) {
  EntryEstimate E;
  auto Time = [](uint32_t) { return 100.0; };
  const double Estimate = sampleLoop(14, 4, Time, E); // 0-5, 9, 13 measured; 8, 12 primers
  EXPECT_EQ(E.Run, 10u);
  EXPECT_EQ(E.Primed, 2u);
  EXPECT_EQ(E.Skipped, 4u);
  EXPECT_DOUBLE_EQ(Estimate, 600.0);
  EXPECT_DOUBLE_EQ(E.PrimedNanos, 200.0);
  EXPECT_DOUBLE_EQ(E.MeasuredNanos + Estimate, 1400.0);
}

TEST(SampleRulesTest, APrimersOwnColdTimeIsReplacedByTheEstimate) {
  // Each primer follows a skipped iteration, so it reads from memory what the whole loop finds
  // in cache: ten times a warm iteration. The segment gets the measured time, the primers' real
  // time and the estimate less that: the whole loop at its warm time.
  auto Time = [](uint32_t J) { return primes(J, 8) ? 1000.0 : 100.0; };
  EntryEstimate E;
  const double Estimate = sampleLoop(40, 8, Time, E); // primers 16, 24, 32
  const double Segment = E.MeasuredNanos + E.PrimedNanos + (Estimate - E.PrimedNanos);
  EXPECT_DOUBLE_EQ(E.PrimedNanos, 3 * 1000.0);
  EXPECT_DOUBLE_EQ(Segment, 40 * 100.0);
}

TEST(SampleRulesTest, IterationsOnALineAreEstimatedExactlyBetweenMeasuredOnes) {
  // A triangular nest: iteration J's inner loop runs J + 10 times.
  auto Time = [](uint32_t J) { return 100.0 + 10.0 * J; };
  EntryEstimate E;
  const double Skipped = sampleLoop(14, 4, Time, E); // 0-5, 9, 13 measured: 13 is the last
  EXPECT_DOUBLE_EQ(Skipped, sumOf(6, 8, Time) + sumOf(10, 12, Time));
}

TEST(SampleRulesTest, IterationsAfterTheLastMeasuredOneTakeItsTime) {
  auto Time = [](uint32_t J) { return 100.0 + 10.0 * J; };
  EntryEstimate E;
  const double Skipped = sampleLoop(12, 4, Time, E); // 10 and 11 are after the last, 9
  EXPECT_DOUBLE_EQ(Skipped, sumOf(6, 8, Time) + 2 * Time(9));
}

TEST(SampleRulesTest, TheWarmUpDoesNotSetTheSkippedIterationsTime) {
  // The first iteration touches cold memory: ten times a later one.
  auto Time = [](uint32_t J) { return J == 0 ? 1000.0 : 100.0; };
  EntryEstimate E;
  const double Skipped = sampleLoop(11, 3, Time, E); // 0-4, 7, 10 measured; 6, 9 primers
  EXPECT_EQ(E.Skipped, 2u);                          // 5 and 8
  EXPECT_DOUBLE_EQ(Skipped, 4 * 100.0);
  EXPECT_EQ(E.N, 6u); // the measured ones after the warm-up: 1-4, 7 and 10
  EXPECT_DOUBLE_EQ(E.MeasuredNanos, 1000.0 + 6 * 100.0);
}

TEST(SampleRulesTest, AnEntryOfStridePlusTwoIterationsRunsWhole) {
  EntryEstimate E;
  const double Skipped = sampleLoop(6, 4, [](uint32_t) { return 50.0; }, E);
  EXPECT_EQ(E.Skipped, 0u);
  EXPECT_EQ(E.Run, 6u);
  EXPECT_DOUBLE_EQ(Skipped, 0.0);
}

// A measured iteration the host preempted (a time slice inside it) stands for no skipped one:
// each measured time is replaced by the median of itself and its neighbours before it is used.
TEST(SampleRulesTest, OnePreemptedMeasuredIterationDoesNotStandForTheSkippedOnes) {
  // Stride 4 over 30 iterations: 0-5, 9, 13, 17, 21, 25, 29 measured; 13 took a time slice.
  auto Time = [](uint32_t J) { return J == 13 ? 4000000.0 : 100.0; };
  EntryEstimate E;
  const double Skipped = sampleLoop(30, 4, Time, E);
  EXPECT_EQ(E.Skipped + E.Primed, 30u - 12u);
  EXPECT_DOUBLE_EQ(Skipped, 18 * 100.0);
}

TEST(SampleRulesTest, APreemptedIterationOnALineIsReplacedByTheLine) {
  auto Line = [](uint32_t J) { return 100.0 + 10.0 * J; };
  for (uint32_t Spike : {9u, 17u, 29u}) { // the first sparse one, an interior one, the last
    auto Time = [&](uint32_t J) { return J == Spike ? 1e7 : Line(J); };
    EntryEstimate E;
    const double Skipped = sampleLoop(32, 4, Time, E); // 30 and 31 after the last, 29
    EXPECT_DOUBLE_EQ(Skipped, sumOf(6, 8, Line) + sumOf(10, 12, Line) + sumOf(14, 16, Line) +
                                  sumOf(18, 20, Line) + sumOf(22, 24, Line) + sumOf(26, 28, Line) +
                                  2 * Line(29))
        << "spike at " << Spike;
  }
}

// A real change of pace between measured iterations (a loop whose second half does twice the
// work) is kept: a step is a monotone run, its own median.
TEST(SampleRulesTest, AStepInTheIterationsTimeIsFollowed) {
  auto Time = [](uint32_t J) { return J < 16 ? 100.0 : 200.0; };
  EntryEstimate E;
  const double Skipped = sampleLoop(33, 4, Time, E); // 13 and 17 around the step
  // Between 13 (100) and 17 (200) the line: 14-16 at 125, 150, 175.
  EXPECT_DOUBLE_EQ(Skipped, 6 * 100.0 + (125.0 + 150.0 + 175.0) + 12 * 200.0);
}

// Too short to sample: the median iteration below ShortFactor (4) times the median hook.
TEST(SampleRulesTest, AnEntryIsTooShortWhenItsMedianIterationIsBelowFourMedianHooks) {
  double Iterations[] = {3999, 3999, 3999}, Hooks[] = {1000, 1000, 1000};
  EXPECT_TRUE(tooShort(Iterations, 3, Hooks, 3));
  double Exactly[] = {4000, 4000, 4000, 4000};
  EXPECT_FALSE(tooShort(Exactly, 4, Hooks, 3));
  // Nothing measured (an entry of fewer iterations than alwaysRun never asks): not short.
  EXPECT_FALSE(tooShort(Iterations, 0, Hooks, 3));
  double Even[] = {1, 2, 3, 10};
  EXPECT_DOUBLE_EQ(medianOf(Even, 4), 2.5);
}

// One iteration or hook the host preempted (milliseconds) decides nothing: cg-like rows of
// 30 ns stay too short, rows of 26 us stay sampled.
TEST(SampleRulesTest, APreemptedIterationOrHookDoesNotDecideShortness) {
  double Short[] = {30, 31, 29, 4e6, 30, 32, 28, 30, 31};
  double Hooks[] = {900, 950, 880, 910, 920, 905, 890, 915, 900, 930};
  double IterationMedian = 0, HookMedian = 0;
  EXPECT_TRUE(tooShort(Short, 9, Hooks, 10, &IterationMedian, &HookMedian));
  // The medians compared (machine.yaml's "too short" line prints them): 30 and (905 + 910) / 2.
  EXPECT_DOUBLE_EQ(IterationMedian, 30);
  EXPECT_DOUBLE_EQ(HookMedian, 907.5);
  double Long[] = {26000, 26100, 25900, 26050, 26000, 25950, 26020, 26010, 25990};
  double PreemptedHooks[] = {900, 950, 5e6, 910, 920, 905, 890, 915, 900, 930};
  EXPECT_FALSE(tooShort(Long, 9, PreemptedHooks, 10));
}

} // namespace
