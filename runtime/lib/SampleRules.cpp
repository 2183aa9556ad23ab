// The sampled loops' estimate (TimingSample.h): no state of the runtime's, unit-tested
// (runtime/unittests/SampleRulesTest.cpp).
#include "TimingSample.h"

namespace mpiete::sample {

void EntryEstimate::measured(uint32_t J, double Nanos) {
  ++Run;
  MeasuredNanos += Nanos;
  const bool Warm = J == 0;
  if (!Warm) {
    Sum += Nanos;
    SumSq += Nanos * Nanos;
    ++N;
  }
  // The skipped iterations between two measured ones: on the line between them (a loop whose
  // iterations grow or shrink with the index, a triangular loop nest, is followed). After the
  // warm-up alone none are skipped (alwaysRun), so a warm-up never sets their time.
  if (Pending > 0) {
    const double Left = HavePrev && !PrevWarm ? Prev : Nanos;
    Credit += static_cast<double>(Pending) * (Left + Nanos) / 2;
    Pending = 0;
  }
  if (!Warm || !HavePrev) {
    Prev = Nanos;
    HavePrev = true;
    PrevWarm = Warm;
  }
}

double EntryEstimate::finish() {
  if (Pending > 0 && HavePrev)
    Credit += static_cast<double>(Pending) * Prev;
  Pending = 0;
  return Credit;
}

} // namespace mpiete::sample
