// The timing probe's sampled loops: the hooks, one loop entry at a time, and the per-loop
// totals the header reports (TimingSample.h).
#include "TimingSample.h"
#include "Recorder.h"
#include "TimingControl.h"
#include "Util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sys/resource.h>

// The hooks' flag (instrument.h; Fortran's COMMON /MPIETE_SMPL/ MPIETE_SAMPLE_ON, declared
// INTEGER*4): the hooks call mpiete_sample_skip only while it is nonzero. Set before main, so
// it holds for every loop the program runs. As gfortran lays the COMMON block out, 4 bytes
// aligned to 16 (the link warns of a definition of another size or a smaller alignment); the
// second name serves -fsecond-underscore.
extern "C" {
alignas(16) int mpiete_smpl_[1] = {0};
extern int mpiete_smpl__[1] __attribute__((alias("mpiete_smpl_")));
}

namespace mpiete::sample {

namespace {

constexpr size_t MaxLoops = 256; // loops reported per rank (later ones are sampled, unreported)

struct LoopTotals {
  mpiete_site_t Loop;
  uint64_t Entries, Run, Skipped;
  double MeasuredNanos, EstimatedNanos, Sum, SumSq;
  uint64_t N;
  uint64_t Touching; // entries whose rest ran whole: a measured iteration touched new pages
  bool Communicates; // an MPI call ran inside it: never sampled again
  // Its iterations are too short to time (tooShort): every entry from the one that found it
  // runs whole; the first such entry's mean iteration and hook times, for the report.
  bool Short;
  uint64_t ShortEntries;
  double ShortIterationNanos, ShortHookNanos;
};

struct State {
  uint32_t Stride = 0; // 0: off, every iteration runs
  // The open entry: one at a time. A sampled loop reached inside another's iteration (a
  // procedure called from its body) runs whole: the outer one's measured iterations include it.
  bool Open = false;
  mpiete_site_t Loop = 0;
  LoopTotals *Totals = nullptr;
  bool Whole = false; // this entry runs every iteration
  uint32_t J = 0;
  uint64_t RunStart = 0;  // the running iteration's start; 0 when it was skipped
  uint64_t RunFaults = 0; // the thread's minor page faults at that start
  uint64_t HookNanos = 0; // the hooks' own time between running iterations (startRun)
  bool Rest = false;      // the rest of this entry runs whole (first touch of memory)
  uint64_t RestRun = 0;   // iterations that ran so
  bool ShortNow = false;  // this entry found the loop's iterations too short (tooShort)
  // The first measured iterations (after the warm-up) and hooks of the entry, for tooShort.
  double FirstIterations[MaxShortSamples] = {}, FirstHooks[MaxShortSamples] = {};
  uint32_t NFirstIterations = 0, NFirstHooks = 0;
  EntryEstimate E;
  LoopTotals Loops[MaxLoops] = {};
  size_t NLoops = 0;
  LoopTotals Spare = {}; // the totals of loops past MaxLoops
};

constinit State S;

/// The settings, read before main: no hook runs before them.
__attribute__((constructor)) void setSamplingFlag() {
  if (const char *V = std::getenv("MPIETE_SAMPLE"); V != nullptr && std::atol(V) >= 2)
    S.Stride = static_cast<uint32_t>(std::atol(V));
  mpiete_smpl_[0] = S.Stride != 0 ? 1 : 0;
}

/// The thread's minor page faults so far: a page touched for the first time.
uint64_t minorFaults() {
  rusage U{};
  return getrusage(RUSAGE_THREAD, &U) == 0 ? static_cast<uint64_t>(U.ru_minflt) : 0;
}

LoopTotals &totalsOf(mpiete_site_t Loop) {
  for (size_t I = 0; I < S.NLoops; ++I)
    if (S.Loops[I].Loop == Loop)
      return S.Loops[I];
  if (S.NLoops == MaxLoops) {
    S.Spare = LoopTotals{};
    S.Spare.Loop = Loop;
    return S.Spare;
  }
  LoopTotals &T = S.Loops[S.NLoops++];
  T.Loop = Loop;
  return T;
}

/// An iteration starts to run; Since is when the hook took the clock, or 0. The page-fault
/// count is a system call (about a microsecond, as long as a short row's iteration): it is
/// outside the iteration's time, and the hook's own time is taken back from the segment.
void startRun(uint64_t Since) {
  const uint64_t Before = Since != 0 ? Since : nowNs();
  S.RunFaults = minorFaults();
  S.RunStart = nowNs();
  S.HookNanos += S.RunStart - Before;
  if (S.J < alwaysRun(S.Stride) && S.NFirstHooks < MaxShortSamples)
    S.FirstHooks[S.NFirstHooks++] = static_cast<double>(S.RunStart - Before);
}

/// Running iteration J ended after Nanos: a measured one or a primer.
void ended(uint32_t J, double Nanos) {
  if (primes(J, S.Stride)) {
    S.E.primed(Nanos);
    return;
  }
  S.E.measured(J, Nanos);
  if (J >= 1 && J < alwaysRun(S.Stride) && S.NFirstIterations < MaxShortSamples)
    S.FirstIterations[S.NFirstIterations++] = Nanos;
}

int iterate(mpiete_site_t Loop) {
  if (S.Stride == 0)
    return MPIETE_SAMPLE_RUN_REST;
  if (!S.Open) {
    S.Open = true;
    S.Loop = Loop;
    S.Totals = &totalsOf(Loop);
    S.Whole = S.Totals->Communicates || S.Totals->Short;
    S.J = 0;
    S.E = EntryEstimate{};
    S.Rest = false;
    S.ShortNow = false;
    S.NFirstIterations = S.NFirstHooks = 0;
    S.RestRun = 0;
    S.HookNanos = 0;
    S.RunStart = 0;
    if (S.Whole)
      return MPIETE_SAMPLE_RUN_REST;
    startRun(0);
    return MPIETE_SAMPLE_RUN;
  }
  // Another sampled loop inside this one's iteration (a procedure called from its body): it
  // runs whole, the outer one's measured iterations include it.
  if (Loop != S.Loop)
    return MPIETE_SAMPLE_RUN_REST;
  const uint32_t J = ++S.J;
  if (S.Whole) // Fortran asks at every iteration; C stopped at the entry's first
    return MPIETE_SAMPLE_RUN_REST;
  if (S.Rest) {
    ++S.RestRun;
    return MPIETE_SAMPLE_RUN;
  }
  uint64_t T = 0;
  if (S.RunStart != 0) {
    T = nowNs();
    ended(J - 1, static_cast<double>(T - S.RunStart));
    // A measured iteration or primer (not the warm-up) that touched pages for the first time: an
    // initialisation loop, or one that first writes an array. Its skipped iterations would
    // leave their pages to the next loop that touches them, which then pays the faults the
    // estimate already counts: the rest of this entry runs whole (the skipped ones so far keep
    // their estimate).
    if (J - 1 >= 1 && minorFaults() > S.RunFaults) {
      S.Rest = true;
      S.RestRun = 1;
      ++S.Totals->Touching;
      S.RunStart = 0;
      S.HookNanos += nowNs() - T;
      return MPIETE_SAMPLE_RUN;
    }
  }
  // The first iteration an entry may skip: the ones before it ran back to back, measured. If
  // they are too short to time, this entry runs whole from here without asking again (nothing
  // was skipped) and so do the loop's later entries.
  double IterationMedian = 0, HookMedian = 0;
  if (J == alwaysRun(S.Stride) && tooShort(S.FirstIterations, S.NFirstIterations, S.FirstHooks,
                                           S.NFirstHooks, &IterationMedian, &HookMedian)) {
    LoopTotals &L = *S.Totals;
    L.Short = true;
    L.ShortIterationNanos = IterationMedian;
    L.ShortHookNanos = HookMedian;
    S.ShortNow = true;
    S.Whole = true;
    S.RunStart = 0;
    return MPIETE_SAMPLE_RUN_REST;
  }
  if (runs(J, S.Stride) || primes(J, S.Stride)) {
    startRun(T);
    return MPIETE_SAMPLE_RUN;
  }
  S.RunStart = 0;
  S.E.skipped();
  return MPIETE_SAMPLE_SKIP_IT;
}

void leave(mpiete_site_t Loop) {
  if (!S.Open || Loop != S.Loop)
    return;
  S.Open = false;
  LoopTotals &T = *S.Totals;
  // Entries that ran whole count as short ones (their iterations are not counted: C asks no
  // more); the entry that found the iterations too short counts once its segment is credited.
  if (S.Whole && !S.ShortNow) {
    if (T.Short)
      ++T.ShortEntries;
    return;
  }
  if (S.RunStart != 0 && !S.Rest)
    ended(S.J, static_cast<double>(nowNs() - S.RunStart));
  const double Estimate = S.E.finish();
  timing::creditSegment(
      std::llround(Estimate - S.E.PrimedNanos - static_cast<double>(S.HookNanos)));
  if (S.ShortNow) { // the entry that found its iterations too short: nothing skipped
    ++T.ShortEntries;
    return;
  }
  ++T.Entries;
  T.Run += S.E.Run + S.RestRun;
  T.Skipped += S.E.Skipped;
  T.MeasuredNanos += S.E.MeasuredNanos;
  T.EstimatedNanos += Estimate;
  T.Sum += S.E.Sum;
  T.SumSq += S.E.SumSq;
  T.N += S.E.N;
}

} // namespace

void noteMpiCall(mpiete_site_t Site) {
  if (!S.Open || S.Whole)
    return;
  char Loop[BlockIdBufferSize], At[BlockIdBufferSize];
  formatBlockId(S.Loop, Loop, sizeof Loop);
  formatBlockId(Site, At, sizeof At);
  // Iteration alwaysRun() is the first an entry may skip (runs(), Stride >= 2).
  if (S.J >= alwaysRun(S.Stride))
    Recorder::get().fail("loop %s, sampled by probe-compute --sample, made an MPI call (site %s) "
                         "after iterations were skipped: its communication is not the "
                         "program's (run the timing probe without --sample)",
                         Loop, At);
  S.Totals->Communicates = true;
  S.Whole = true;
}

void writeHeader(std::FILE *F) {
  for (size_t I = 0; I < S.NLoops; ++I) {
    const LoopTotals &T = S.Loops[I];
    if (T.Skipped == 0 && T.ShortEntries == 0)
      continue;
    char Loop[BlockIdBufferSize];
    formatBlockId(T.Loop, Loop, sizeof Loop);
    // The spread of the measured iterations (warm-ups left out): how far their times vary
    // over the index, which the linear estimate between them follows only in part.
    const double N = static_cast<double>(T.N);
    const double Mean = T.N ? T.Sum / N : 0;
    const double Var = T.N > 1 ? std::max(0.0, (T.SumSq - N * Mean * Mean) / (N - 1)) : 0;
    std::fprintf(
        F, "# sampled-loop %s %llu %llu %llu %.0f %.0f %.3f %llu %llu %.0f %.0f\n", Loop,
        static_cast<unsigned long long>(T.Entries), static_cast<unsigned long long>(T.Run),
        static_cast<unsigned long long>(T.Skipped), T.MeasuredNanos, T.EstimatedNanos,
        Mean > 0 ? std::sqrt(Var) / Mean : 0.0, static_cast<unsigned long long>(T.Touching),
        static_cast<unsigned long long>(T.ShortEntries), T.ShortIterationNanos, T.ShortHookNanos);
  }
}

} // namespace mpiete::sample

extern "C" int mpiete_sample_skip(mpiete_site_t loop) { return mpiete::sample::iterate(loop); }

extern "C" void mpiete_sample_exit(mpiete_site_t loop) { mpiete::sample::leave(loop); }
