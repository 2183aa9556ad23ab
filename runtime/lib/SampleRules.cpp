// The sampled loops' estimate (TimingSample.h): no state of the runtime's, unit-tested
// (runtime/unittests/SampleRulesTest.cpp).
#include "TimingSample.h"

#include <algorithm>

namespace mpiete::sample {

namespace {

double median3(double A, double B, double C) {
  return std::max(std::min(A, B), std::min(std::max(A, B), C));
}

} // namespace

double medianOf(double *V, size_t N) {
  std::nth_element(V, V + N / 2, V + N);
  const double Upper = V[N / 2];
  if (N % 2 == 1)
    return Upper;
  return (*std::max_element(V, V + N / 2) + Upper) / 2;
}

bool tooShort(double *Iterations, size_t NIterations, double *Hooks, size_t NHooks,
              double *IterationMedian, double *HookMedian) {
  if (NIterations == 0 || NHooks == 0)
    return false;
  const double Iteration = medianOf(Iterations, NIterations), Hook = medianOf(Hooks, NHooks);
  if (IterationMedian)
    *IterationMedian = Iteration;
  if (HookMedian)
    *HookMedian = Hook;
  return Iteration < ShortFactor * Hook;
}

void EntryEstimate::measured(uint32_t J, double Nanos) {
  ++Run;
  MeasuredNanos += Nanos;
  if (J == 0) { // the warm-up: cold caches, first touches; timed but not used while others are
    Warm = Nanos;
    HaveWarm = true;
    return;
  }
  Sum += Nanos;
  SumSq += Nanos * Nanos;
  ++N;
  if (Finals == 0 && !HaveLast) {
    // The first: nothing before it to filter with (with alwaysRun the iterations after it run
    // back to back, so its time stands for no skipped one but those, if any, before it).
    Credit += static_cast<double>(Pending) * Nanos;
    Pending = 0;
    F1 = Nanos;
    J1 = J;
    Finals = 1;
    return;
  }
  if (HaveLast) { // Last's neighbours are known now: its filtered time is final
    // Between them: its own time (a line, a step, any monotone run); else an outlier, replaced
    // by the line between them at its index.
    // The one before is taken as filtered: an outlier does not judge its neighbour.
    const bool Between = std::min(F1, Nanos) <= Last && Last <= std::max(F1, Nanos);
    const double F =
        Between ? Last
                : F1 + (Nanos - F1) * static_cast<double>(JLast - J1) / static_cast<double>(J - J1);
    creditGap(F);
    F2 = F1;
    J2 = J1;
    F1 = F;
    J1 = JLast;
    ++Finals;
  }
  Last = Nanos;
  JLast = J;
  HaveLast = true;
  Gap = Pending;
  Pending = 0;
}

double EntryEstimate::finish() {
  if (HaveLast) {
    // The last measured one has no next: the median of itself, the one before and where the
    // line through the two before that puts it.
    double F = Last;
    if (Finals >= 2 && J1 > J2) {
      const double Line =
          F1 + (F1 - F2) * static_cast<double>(JLast - J1) / static_cast<double>(J1 - J2);
      F = std::max(0.0, median3(Last, F1, Line));
    }
    creditGap(F);
    F1 = F;
    HaveLast = false;
    ++Finals;
  }
  if (Pending > 0)
    Credit += static_cast<double>(Pending) * (Finals > 0 ? F1 : HaveWarm ? Warm : 0.0);
  Pending = 0;
  return Credit;
}

} // namespace mpiete::sample
