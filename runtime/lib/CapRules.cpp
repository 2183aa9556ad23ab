// The capped loops' rules (TimingCap.h): a loop's period from its iterations' call signatures,
// and whether enough iterations were timed to leave it. No state of the runtime's: unit-tested
// (runtime/unittests/CapRulesTest.cpp).
#include "TimingCap.h"

#include <algorithm>
#include <cmath>

namespace mpiete::cap {

namespace {

/// Whether Sig[K] == Sig[K - P] over the last Window of N signatures.
bool repeats(const uint64_t *History, uint32_t N, uint32_t Window, uint32_t P) {
  for (uint32_t K = N - Window + P; K < N; ++K)
    if (History[K % HistorySize] != History[(K - P) % HistorySize])
      return false;
  return true;
}

} // namespace

uint32_t periodOf(const uint64_t *History, uint32_t N) {
  // History[K % HistorySize] is measured iteration K's signature; the period must hold over
  // every iteration of the window, so that a test every few iterations is not taken for a
  // period of one.
  const uint32_t Window = std::min(N, PeriodWindow);
  for (uint32_t P = 1; P <= MaxPeriod && 2 * P <= Window; ++P)
    if (repeats(History, N, Window, P))
      return P;
  return 0;
}

bool periodHolds(const uint64_t *History, uint32_t N, uint32_t P) {
  const uint32_t Window = std::min(N, HistorySize);
  // 2P <= Window <= HistorySize keeps P within MaxPlannedPeriod.
  return P != 0 && 2 * P <= Window && repeats(History, N, Window, P);
}

bool enough(uint32_t Cap, double Tolerance, uint32_t MaxSamples, uint32_t N, uint32_t Timed,
            double Sum, double SumSq, uint32_t Period, uint32_t Least) {
  // Only a loop whose iterations repeat the same calls, every one of a period's variants timed
  // Cap times: one that changes its communication from one iteration to the next without a
  // period (a growing pipeline) is not predicted by its first iterations.
  if (Period == 0 || N < std::max(Cap * Period, Least))
    return false;
  if (N >= MaxSamples || Timed < 2)
    return true;
  const double Mean = Sum / Timed;
  if (Mean <= 0 || Period > 1)
    return true; // a periodic loop's spread is its period's: Cap periods were timed
  const double Var = std::max(0.0, (SumSq - Sum * Mean) / (Timed - 1));
  // The standard error of the mean iteration: a segment whose time varies keeps more samples.
  return std::sqrt(Var / Timed) <= Tolerance * Mean;
}

} // namespace mpiete::cap
