// Loop plans: what the trace probe knows about the capped loops before the timing probe runs
// (docs/probes.md, "Capped loops", "Given the traces").
//
// The trace variant follows the same loop hooks as the timing variant's cap (TimingCap.cpp):
// the same stack of loop frames, the same outermost loop entries numbered the same way. For
// every outermost entry it hashes each iteration's MPI call sites and finds the smallest period
// P <= MaxPeriod with which the iterations after the first repeat over the WHOLE entry, then
// writes `rank<N>.loops` beside the traces. probe-compute --cap --program DIR keeps the entries
// whose period every rank that ran them agrees on and hands them to the timing run
// (MPIETE_CAP_PLAN). A loop entry the traces show repeating to its end needs no MinMeasured
// iterations to rule out a test every few steps: it may be left after Cap periods.
#ifndef MPIETE_RUNTIME_LOOPPLAN_H
#define MPIETE_RUNTIME_LOOPPLAN_H

#include "mpiete/instrument.h"

#include <cstdint>

namespace mpiete::cap {

/// Iterations whose MPI calls are compared to find a loop's period. Codes test for convergence
/// or print every 10 steps as often as not (f90-stencil3d): a period up to 16 is recognised.
constexpr uint32_t MaxPeriod = 16;

inline uint64_t mixBits(uint64_t X) {
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

/// The name of loop entry Entry (0, 1, ...: the times Loop was entered as the outermost loop on
/// the rank) on the board and in the plan; never 0.
inline uint64_t entryKey(mpiete_site_t Loop, uint32_t Entry) {
  return mixBits(Loop * 0x9e3779b97f4a7c15ULL + Entry) | 1;
}

/// The period of a whole sequence of iteration signatures, in constant space: the smallest
/// P <= MaxPeriod with Sig[K] == Sig[K - P] for every K, seen at least twice over.
class PeriodTracker {
public:
  void add(uint64_t Sig) {
    for (uint32_t P = 1; P <= MaxPeriod; ++P)
      if (N >= P && Ring[(N - P) % MaxPeriod] != Sig)
        Broken |= 1u << (P - 1);
    Ring[N % MaxPeriod] = Sig;
    ++N;
  }
  /// 0 when no period holds over all of them (or none was seen twice).
  uint32_t period() const {
    for (uint32_t P = 1; P <= MaxPeriod && 2 * P <= N; ++P)
      if ((Broken & (1u << (P - 1))) == 0)
        return P;
    return 0;
  }
  uint64_t count() const { return N; }

private:
  uint64_t Ring[MaxPeriod] = {};
  uint64_t N = 0;
  uint32_t Broken = 0; // bit P - 1: period P failed somewhere
};

} // namespace mpiete::cap

namespace mpiete::loops {

// The trace variant's follower of the loop hooks (TraceLoops.cpp).
void iterate(mpiete_site_t Loop, bool Opaque);
void exit(mpiete_site_t Loop);
/// An outermost MPI call at Site returned.
void call(mpiete_site_t Site);
/// Writes rank<Rank>.loops into Dir (at MPI_Finalize).
void write(const char *Dir, int Rank, int Size);

} // namespace mpiete::loops

#endif // MPIETE_RUNTIME_LOOPPLAN_H
