// The timing probe's sampled loops (probe-compute --sample S, issue 15; seed 004 section 3.1.1
// caps every loop other than a single-block one). A sampled loop is a counted loop of pure
// computation the frontend hooked (ProgramModel.h, ComputeEdits::SampledLoop): no MPI call, no
// call its unit cannot see, no exit but its end, another loop in its body. Under --sample it runs
// its first iterations and every S-th one after them; the others are skipped (the hook returns
// nonzero and the code continues with the next iteration). The skipped iterations' time is
// estimated from the measured ones (linear between the measured iterations around them, flat
// after the last) and added to the running compute segment at the loop's exit, so the segment's
// time stands for the whole loop. docs/probes.md, "Sampled loops", says what this rests on.
//
// Nothing here is shared between ranks: a loop with no MPI call changes no rank's
// communication by itself, so each rank samples on its own. What skipping may change later
// (data that steers a later loop or a convergence test) is checked by probe-compute against
// the traces and, failing that, the run is repeated without sampling.
#ifndef MPIETE_RUNTIME_TIMINGSAMPLE_H
#define MPIETE_RUNTIME_TIMINGSAMPLE_H

#include "mpiete/instrument.h"

#include <cstdint>
#include <cstdio>

namespace mpiete::sample {

/// Iterations of every entry that always run, measured back to back: the first (a warm-up: cold
/// caches, first touches of memory; timed but not used while a later one is) and the next
/// Stride + 1. An entry no longer than that runs whole: skipping in it would save little and
/// rest on one measured iteration (f77-wavefront's pipelined loops of 8 rows, session 14).
constexpr uint32_t alwaysRun(uint32_t Stride) { return Stride + 2; }

/// Whether iteration J (0-based) of a loop entry runs and is measured under --sample Stride:
/// the first alwaysRun(Stride), then every Stride-th.
constexpr bool runs(uint32_t J, uint32_t Stride) {
  return J < alwaysRun(Stride) || (J - 1) % Stride == 0;
}

/// Whether iteration J runs only to prime the next one, a measured one after skipped ones: an
/// iteration leaves in the caches what the next one reads (a stencil's rows j and j+1 are row
/// j+1's j-1 and j), so a measured iteration after a skipped one would read from memory what it
/// finds in cache in the whole loop. The primer's own time is of such a cold iteration: it is
/// estimated like a skipped one's and its real time is taken back from the segment
/// (EntryEstimate::primed).
constexpr bool primes(uint32_t J, uint32_t Stride) {
  return Stride >= 2 && J >= alwaysRun(Stride) && J % Stride == 0;
}

/// An entry's iterations are too short to sample when the median of its measured ones (after
/// the warm-up, run back to back) is below ShortFactor times the median of the hooks' own times
/// (the page-fault count and the clock reads, taken out of the iterations' times): the hooks
/// then disturb what they measure by as much as it lasts. cg's CSR rows of a few nonzeros
/// (tens of nanoseconds against a hook of about a microsecond) measured several times what they
/// take in a sweep without hooks, and every skipped row was estimated from them (+777%,
/// docs/skeleton.md, session 17). Such an entry runs whole from there, before anything was
/// skipped, and so do the loop's later entries, which then read no clock. Medians, so that one
/// iteration or hook the host preempted decides nothing. At most MaxShortSamples of each are
/// kept (the first ones); the arrays are reordered.
constexpr double ShortFactor = 4;
constexpr size_t MaxShortSamples = 33;
/// IterationMedian and HookMedian, when given, receive the two medians compared.
bool tooShort(double *Iterations, size_t NIterations, double *Hooks, size_t NHooks,
              double *IterationMedian = nullptr, double *HookMedian = nullptr);
/// The median of N values (N > 0; reorders them).
double medianOf(double *V, size_t N);

/// One entry of a sampled loop: the measured iterations' times in order, the skipped ones
/// between them, and the time the skipped ones are estimated at. No allocation: a pure rule,
/// unit-tested (runtime/unittests/SampleRulesTest.cpp).
///
/// Each measured iteration stands for the skipped ones around it by its filtered time: its own
/// when it lies between the measured iterations before (filtered) and after it, else the line
/// between those two at its index (the last one: the median of itself, the one before and the line
/// through the two before that, at its index). A time on a line, a step, any monotone run is
/// its own, so trends are followed exactly; one measured iteration that the host preempted (a
/// time slice of milliseconds inside an iteration of microseconds) no longer stands for the
/// Stride iterations around it.
class EntryEstimate {
public:
  /// Iteration J ran and took Nanos (J == 0 is the warm-up).
  void measured(uint32_t J, double Nanos);
  /// An iteration was skipped.
  void skipped() {
    ++Pending;
    ++Skipped;
  }
  /// A primer (primes()) ran and took Nanos: estimated as a skipped one, its time taken back.
  void primed(double Nanos) {
    ++Pending;
    ++Run;
    ++Primed;
    PrimedNanos += Nanos;
  }
  /// The loop ended: the skipped iterations and primers since the last measured one take its
  /// time. Returns the estimate of every skipped iteration and primer of the entry, in
  /// nanoseconds; what the segment gains is that less PrimedNanos.
  double finish();

  double MeasuredNanos = 0;      ///< the measured iterations' sum (warm-up included)
  uint64_t Run = 0, Skipped = 0; ///< Run counts the primers too
  uint64_t Primed = 0;
  double PrimedNanos = 0;    ///< the primers' own times
  double Sum = 0, SumSq = 0; ///< of the measured iterations after the warm-up
  uint64_t N = 0;            ///< how many those are

private:
  /// The skipped iterations between the last final one (F1) and the one whose filtered time
  /// waits for the next (Last) take the mean of their filtered times.
  void creditGap(double Filtered) {
    Credit += static_cast<double>(Gap) * (F1 + Filtered) / 2;
    Gap = 0;
  }

  double Credit = 0;
  double Warm = 0; ///< the warm-up's time: the skipped ones' only when nothing else ran
  bool HaveWarm = false;
  uint64_t Pending = 0; ///< skipped or primers since the last measured iteration
  // The measured iterations after the warm-up, newest last: Last (its filtered time not final
  // yet), F1 and F2 the final filtered times of the two before it, at iterations J1 and J2.
  uint64_t Finals = 0; ///< how many filtered times are final (F1, F2 valid when >= 1, 2)
  bool HaveLast = false;
  double Last = 0, F1 = 0, F2 = 0;
  uint32_t JLast = 0, J1 = 0, J2 = 0;
  uint64_t Gap = 0; ///< skipped or primers between F1's iteration and Last
};

/// probe-compute's check: the header lines `# sampled-loop <loop> <entries> <run> <skipped>
/// <measured ns> <estimated ns> <cv> <entries whose rest ran whole> <entries run whole as too
/// short> <their mean iteration ns> <the hooks' mean ns>` of every loop that skipped an
/// iteration or ran whole as too short (tooShort) on this rank. An entry runs whole from a measured
/// iteration that touched pages for the first time (minor page faults): skipping a loop that first
/// writes memory moves its page faults into the next loop, which the estimate cannot see.
void writeHeader(std::FILE *F);
/// An MPI call started (Timing.cpp): inside a sampled loop that skipped iterations this is a
/// loop the frontend took for pure computation that communicates (a function of another file
/// that calls MPI): the rank's communication no longer matches the program's, so the run fails
/// and probe-compute runs it again without sampling. A loop that skipped nothing yet is just
/// never sampled again.
void noteMpiCall(mpiete_site_t Site);

} // namespace mpiete::sample

#endif // MPIETE_RUNTIME_TIMINGSAMPLE_H
