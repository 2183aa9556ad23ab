// The timing probe's capped loops (probe-compute --cap N, seed 004 section 3.1.1): the outermost
// loop that contains MPI calls runs a warm-up iteration and then at least max(N per variant of
// its period, MinMeasured) measured ones; once its iterations repeat the same MPI calls with a
// period and their mean compute time is known to MPIETE_CAP_TOLERANCE, the rest is skipped
// (mpiete_iter_capped returns 1 and the instrumented code breaks out). docs/probes.md, "Capped
// loops", says why it is sound and where it is not.
//
// Every rank must leave a loop at the same iteration, or their communication no longer
// matches. The decision is therefore taken once per (loop, entry) by the first rank to reach
// the iteration, and kept on a board every rank of the node maps (MPIETE_CAP_BOARD, a file
// probe-compute creates): the others follow it.
#ifndef MPIETE_RUNTIME_TIMINGCAP_H
#define MPIETE_RUNTIME_TIMINGCAP_H

#include "LoopPlan.h"
#include "mpiete/instrument.h"

#include <cstdint>
#include <cstdio>

namespace mpiete::cap {

/// A compute segment From -> To (ending at the MPI call at To) took Nanos (Timing.cpp's
/// segment hook).
void noteSegment(mpiete_site_t From, mpiete_site_t To, uint64_t Nanos);
/// The header lines: `# capped-loop <loop> <iterations run>` of the loops this rank left early,
/// and `# capped-mean <from> <to> <occurrences> <nanoseconds>` of every segment that occurred
/// in their measured iterations: the warm-up iteration (first touches of memory, cold caches:
/// 1.4 times a later one in wavefront) is left out, since the skipped iterations the estimator
/// fills with this mean are not warm-ups.
void writeHeader(std::FILE *F);

/// Measured iterations whose MPI call signatures are kept: two of the longest planned period
/// (MaxPlannedPeriod: LoopPlan.h).
constexpr uint32_t HistorySize = 2 * MaxPlannedPeriod;
/// The last iterations a period the run finds on its own (periodOf, at most MaxPeriod) must hold
/// over.
constexpr uint32_t PeriodWindow = 64;
/// Iterations timed at least (after the warm-up) before any loop stops: a test every up to
/// MaxPeriod iterations is seen within them, so it is never taken for a period of one.
constexpr uint32_t MinMeasured = MaxPeriod;
/// The least for a loop entry the traces show repeating with its period to its end (the plan,
/// MPIETE_CAP_PLAN): no test can hide beyond the measured iterations, so Cap periods suffice,
/// but never fewer than this many samples of the mean.
constexpr uint32_t MinPlanned = 4;
/// The smallest period P <= MaxPeriod that holds over the last min(N, PeriodWindow) signatures
/// of N measured iterations, seen twice (History[K % HistorySize] is iteration K's), 0 if none.
uint32_t periodOf(const uint64_t *History, uint32_t N);
/// Whether period P (<= MaxPlannedPeriod: the plan's) holds over every measured iteration still
/// in the history, at least 2P of them.
bool periodHolds(const uint64_t *History, uint32_t N, uint32_t P);
/// An outermost loop entry's iterations as the runtime sees them (the rules' input): the MPI
/// calls each measured iteration ended segments at (History, its signatures) and the compute
/// time of those timed whole. Iteration 0 is the warm-up; the segment running when iteration 1
/// starts began in the warm-up, so it is neither in iteration 1's time nor a sample of a
/// segment (the computation after the warm-up's last call: first touches of memory), and
/// iteration 1, having lost it, is no sample of the spread: in a loop whose work lies after
/// its last call it would count 0 s.
class EntryStats {
public:
  /// The entry's first iteration (the warm-up) starts.
  void enter() {
    Sig = IterNanos = 0;
    N = Timed = 0;
    Sum = SumSq = 0;
    Calls = First = false;
  }
  /// Iteration Iter (>= 1) starts: iteration Iter - 1 ended.
  void iterationStarts(uint32_t Iter) {
    if (Iter >= 2) { // iteration 0, the warm-up, is no measured iteration
      Calls = Calls || Sig != 0;
      // Iteration 1 lost its first segment if it had one (its signature says so).
      if (!(First && Sig != 0)) {
        const auto X = static_cast<double>(IterNanos);
        Sum += X;
        SumSq += X * X;
        ++Timed;
      }
      History[N % HistorySize] = Sig;
      ++N;
    }
    Sig = IterNanos = 0;
    First = Iter == 1;
  }
  /// A compute segment ending at the MPI call To took Nanos in the running iteration; false
  /// if it began in the warm-up (iteration 1's first: no sample).
  bool segment(uint64_t To, uint64_t Nanos) {
    const bool FromWarmUp = First && Sig == 0;
    Sig = mixBits(Sig ^ To);
    if (FromWarmUp)
      return false;
    IterNanos += Nanos;
    return true;
  }

  /// Signatures of the measured iterations: History[K % HistorySize] is iteration K's.
  const uint64_t *history() const { return History; }
  uint32_t measured() const { return N; }
  /// Of the measured iterations, those timed whole, and their times' sum and sum of squares.
  uint32_t timed() const { return Timed; }
  double sum() const { return Sum; }
  double sumSq() const { return SumSq; }
  /// Whether a measured iteration made an MPI call.
  bool calls() const { return Calls; }

private:
  uint64_t History[HistorySize] = {};
  uint64_t Sig = 0, IterNanos = 0;
  uint32_t N = 0, Timed = 0;
  double Sum = 0, SumSq = 0;
  bool Calls = false;
  bool First = false; // the running iteration is iteration 1, the first measured
};

/// Whether a rank that has timed N iterations after the warm-up, whose calls repeat with Period
/// (0: none), stops the loop here. Timed of them were timed whole (Sum, SumSq of their compute
/// nanoseconds; the first after the warm-up is not when a segment began in the warm-up). Least:
/// the iterations timed at least (MinMeasured; MinPlanned where the plan gave this period).
bool enough(uint32_t Cap, double Tolerance, uint32_t MaxSamples, uint32_t N, uint32_t Timed,
            double Sum, double SumSq, uint32_t Period, uint32_t Least = MinMeasured);

} // namespace mpiete::cap

#endif // MPIETE_RUNTIME_TIMINGCAP_H
