// The timing probe's capped loops: the loop hooks' frames, the per-iteration statistics and the
// board the ranks share (TimingCap.h).
#include "TimingCap.h"
#include "Recorder.h"
#include "Util.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace mpiete::cap {

namespace {

constexpr size_t BoardSlots = 4096; // (loop, entry) pairs; the board is 64 KiB
constexpr size_t MaxCapped = 64;    // header lines kept
constexpr size_t MeanSlots = 1024;  // segments whose capped mean is kept (a power of two)

struct Slot {
  uint64_t Key;     // 0: free
  uint64_t State;   // StopAt << 32 | GoUpTo
  uint64_t Entered; // ranks that entered this loop entry
};

struct PlanSlot {
  uint64_t Key; // 0: free
  uint32_t Period;
};
constexpr size_t PlanSlots = 8192;

struct Capped {
  mpiete_site_t Loop;
  uint32_t Iterations;
};

/// A segment's occurrences in the measured iterations (the warm-up left out) of outermost
/// loop entries: those of the entry running now, and those of the entries that were left early.
struct SegmentMean {
  mpiete_site_t From, To;
  uint64_t EntryN, EntryNanos;
  uint64_t N, Nanos;
  bool Used;
};

struct State {
  bool Read = false, On = false;
  uint32_t Cap = 0, MaxSamples = 0;
  double Tolerance = 0.02;
  Slot *Board = nullptr;

  LoopFrames Frames;

  // The outermost frame's entry and its iterations' statistics.
  uint64_t Key = 0;
  uint32_t Planned = 0; // the period the plan gives this entry (0: none)
  bool Counted = false; // on the board's Entered of this entry
  EntryStats Stats;
  bool Left = false;

  Capped Done[MaxCapped] = {};
  size_t NDone = 0;

  SegmentMean Means[MeanSlots] = {};
  PlanSlot Plan[PlanSlots] = {};
  uint16_t Touched[MeanSlots] = {}; // the slots the running entry added to
  size_t NTouched = 0;
};

constinit State S;

/// The plan's loop entries (MPIETE_CAP_PLAN): key -> the period the traces show to the end.
uint32_t plannedPeriod(uint64_t Key) {
  for (size_t I = Key % PlanSlots, Probes = 0; Probes < PlanSlots;
       I = (I + 1) % PlanSlots, ++Probes) {
    if (S.Plan[I].Key == Key)
      return S.Plan[I].Period;
    if (S.Plan[I].Key == 0)
      return 0;
  }
  return 0;
}

/// Reads the plan probe-compute wrote from the traces: lines `SITE ENTRY PERIOD` (SITE in hex).
/// Entries past the table's half are left out: those loops keep the rule without a plan.
void readPlan(const char *Path) {
  std::FILE *F = std::fopen(Path, "r");
  if (F == nullptr)
    Recorder::get().fail("cannot read the loop plan '%s': %s", Path, std::strerror(errno));
  unsigned long long Site = 0;
  unsigned Entry = 0, Period = 0;
  size_t Used = 0;
  while (Used < PlanSlots / 2 && std::fscanf(F, "%llx %u %u", &Site, &Entry, &Period) == 3) {
    if (Period == 0 || Period > MaxPlannedPeriod)
      continue;
    const uint64_t Key = entryKey(Site, Entry);
    size_t I = Key % PlanSlots;
    while (S.Plan[I].Key != 0 && S.Plan[I].Key != Key)
      I = (I + 1) % PlanSlots;
    Used += S.Plan[I].Key == 0;
    S.Plan[I] = PlanSlot{Key, Period};
  }
  std::fclose(F);
}

void readSettings() {
  S.Read = true;
  const char *Cap = std::getenv("MPIETE_CAP");
  if (Cap == nullptr || std::atol(Cap) <= 0)
    return;
  S.Cap = static_cast<uint32_t>(std::atol(Cap));
  S.MaxSamples = S.Cap * 16;
  if (const char *Max = std::getenv("MPIETE_CAP_MAX"); Max != nullptr && std::atol(Max) > 0)
    S.MaxSamples = std::max<uint32_t>(S.Cap, static_cast<uint32_t>(std::atol(Max)));
  if (const char *Tol = std::getenv("MPIETE_CAP_TOLERANCE"); Tol != nullptr && std::atof(Tol) > 0)
    S.Tolerance = std::atof(Tol);
  const char *Path = std::getenv("MPIETE_CAP_BOARD");
  if (Path == nullptr || Path[0] == '\0')
    Recorder::get().fail("MPIETE_CAP is set but MPIETE_CAP_BOARD is not: the ranks need a "
                         "board to agree where loops stop (run through mpiete probe-compute)");
  // Any rank may be first: creating it and setting its size (zeros) are harmless repeated.
  const int Fd = open(Path, O_RDWR | O_CREAT, 0600);
  if (Fd < 0 || ftruncate(Fd, BoardSlots * sizeof(Slot)) != 0)
    Recorder::get().fail("cannot open the cap board '%s': %s", Path, std::strerror(errno));
  void *P = mmap(nullptr, BoardSlots * sizeof(Slot), PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
  close(Fd);
  if (P == MAP_FAILED)
    Recorder::get().fail("cannot map the cap board '%s': %s", Path, std::strerror(errno));
  S.Board = static_cast<Slot *>(P);
  if (const char *Plan = std::getenv("MPIETE_CAP_PLAN"); Plan != nullptr && Plan[0] != '\0')
    readPlan(Plan);
  S.On = true;
}

/// The board's slot for Key (claimed if new); null when the board is full. A rank that finds
/// no slot for Key knows no rank has one (every rank probes the same table), so no rank can
/// stop that entry: the loop runs whole everywhere.
Slot *slotOf(uint64_t Key) {
  for (size_t I = Key % BoardSlots, Probes = 0; Probes < BoardSlots;
       I = (I + 1) % BoardSlots, ++Probes) {
    uint64_t Expected = 0;
    if (__atomic_compare_exchange_n(&S.Board[I].Key, &Expected, Key, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE) ||
        Expected == Key)
      return &S.Board[I];
  }
  return nullptr;
}

/// The running entry's occurrence of From -> To, in a measured iteration.
void addMeasured(mpiete_site_t From, mpiete_site_t To, uint64_t Nanos) {
  for (size_t I = mixBits(From * 0x9e3779b97f4a7c15ULL ^ To) % MeanSlots, Probes = 0;
       Probes < MeanSlots; I = (I + 1) % MeanSlots, ++Probes) {
    SegmentMean &M = S.Means[I];
    if (M.Used && (M.From != From || M.To != To))
      continue;
    if (!M.Used)
      M = SegmentMean{From, To, 0, 0, 0, 0, true};
    if (M.EntryN++ == 0)
      S.Touched[S.NTouched++] = static_cast<uint16_t>(I);
    M.EntryNanos += Nanos;
    return;
  }
  // Full: this segment's skipped occurrences take its mean with the warm-up (as before).
}

/// The running entry's measured occurrences: kept (it was left early) or dropped.
void closeEntry(bool Keep) {
  for (size_t K = 0; K < S.NTouched; ++K) {
    SegmentMean &M = S.Means[S.Touched[K]];
    if (Keep) {
      M.N += M.EntryN;
      M.Nanos += M.EntryNanos;
    }
    M.EntryN = M.EntryNanos = 0;
  }
  S.NTouched = 0;
}

/// An outermost loop is entered: its entry number on this rank names it on the board.
void enterOutermost() {
  S.Key = entryKey(S.Frames.outermost(), S.Frames.entry());
  S.Planned = plannedPeriod(S.Key);
  S.Counted = false;
  closeEntry(false);
  S.Stats.enter();
  S.Left = false;
}

/// Whether iteration Iter of the outermost loop is skipped (and with it the rest of the loop).
bool decide(uint32_t Iter) {
  // An opaque loop (its calls go into code its unit cannot see) is a candidate only once its
  // iterations made MPI calls on this rank; until then the rank stays off the board, so a
  // loop of pure computation entered a million times costs no slot. A rank counted on an
  // entry's slot asks it at every later iteration, so it follows any stop.
  if (!S.Counted && S.Frames.outermostOpaque() && !S.Stats.calls())
    return false;
  Slot *Found = slotOf(S.Key);
  if (Found == nullptr)
    return false;
  Slot &B = *Found;
  if (!S.Counted) {
    // Counted at its first question rather than at entry: a rank that leaves the loop before
    // is never counted, and a loop not every rank is counted on is never left early.
    S.Counted = true;
    __atomic_add_fetch(&B.Entered, 1, __ATOMIC_ACQ_REL);
  }
  uint64_t Old = __atomic_load_n(&B.State, __ATOMIC_ACQUIRE);
  for (;;) {
    const auto StopAt = static_cast<uint32_t>(Old >> 32);
    const auto GoUpTo = static_cast<uint32_t>(Old);
    if (StopAt != 0 && Iter >= StopAt)
      return true;
    if (Iter <= GoUpTo)
      return false;
    // This rank is the first here: it decides for every rank. Only a loop every rank runs is
    // left early: a master's loop and its workers' differ (taskfarm), and leaving one of them
    // changes which messages the other receives.
    const bool Everyone = __atomic_load_n(&B.Entered, __ATOMIC_ACQUIRE) >=
                          static_cast<uint64_t>(Recorder::get().size());
    // A loop with a period P > 1 (a test every P steps) is left only after an iteration that
    // ends a period counted from its first, Iter % P == 0: a loop of a multiple of P steps,
    // or one that stops at a test, ends with that variant, and the computation from its last
    // call to the first call after the loop is then a segment the full run has too.
    // An entry the traces show repeating with a period to its end (the plan) is left with that
    // period only, once its measured iterations show it too (up to MaxPlannedPeriod: a test
    // every 50 steps), and needs no MinMeasured iterations to rule out a rarer test: Cap
    // periods are enough. Any other finds its period in its own last iterations (up to
    // MaxPeriod).
    const bool Planned = S.Planned != 0;
    const EntryStats &E = S.Stats;
    const uint32_t Period =
        Planned ? (periodHolds(E.history(), E.measured(), S.Planned) ? S.Planned : 0)
                : periodOf(E.history(), E.measured());
    const uint32_t Least = Planned ? MinPlanned : MinMeasured;
    const bool Stop = Everyone && (!S.Frames.outermostOpaque() || E.calls()) &&
                      enough(S.Cap, S.Tolerance, S.MaxSamples, E.measured(), E.timed(), E.sum(),
                             E.sumSq(), Period, Least) &&
                      Iter % Period == 0;
    const uint64_t New =
        Stop ? (uint64_t{Iter} << 32 | GoUpTo) : (uint64_t{StopAt} << 32 | uint64_t{Iter});
    if (__atomic_compare_exchange_n(&B.State, &Old, New, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return Stop;
  }
}

int iterate(mpiete_site_t Loop, bool CanLeave, bool Opaque) {
  if (!S.Read) [[unlikely]]
    readSettings();
  if (!S.On)
    return 0;
  const auto [Level, Iter] = S.Frames.iterate(Loop, Opaque);
  // Only the outermost loop is capped: inner loops run whole in its iterations.
  if (Level != 1)
    return 0;
  if (Iter == 0) { // entered: its first iteration starts
    enterOutermost();
    return 0;
  }
  S.Stats.iterationStarts(Iter);
  if (!CanLeave || S.Left)
    return S.Left ? 1 : 0;
  if (!decide(Iter))
    return 0;
  S.Left = true;
  closeEntry(true);
  if (S.NDone < MaxCapped)
    S.Done[S.NDone++] = Capped{Loop, Iter};
  return 1;
}

} // namespace

void noteSegment(mpiete_site_t From, mpiete_site_t To, uint64_t Nanos) {
  if (!S.On || S.Frames.depth() == 0)
    return;
  if (!S.Stats.segment(To, Nanos)) // began in the warm-up: no sample
    return;
  if (S.Frames.outermostIter() >= 1 && !S.Left)
    addMeasured(From, To, Nanos);
}

void writeHeader(std::FILE *F) {
  for (size_t I = 0; I < S.NDone; ++I) {
    char Loop[BlockIdBufferSize];
    formatBlockId(S.Done[I].Loop, Loop, sizeof Loop);
    std::fprintf(F, "# capped-loop %s %u\n", Loop, S.Done[I].Iterations);
  }
  for (const SegmentMean &M : S.Means) {
    if (M.N == 0)
      continue;
    char From[BlockIdBufferSize], To[BlockIdBufferSize];
    formatBlockId(M.From, From, sizeof From);
    formatBlockId(M.To, To, sizeof To);
    std::fprintf(F, "# capped-mean %s %s %llu %llu\n", From, To,
                 static_cast<unsigned long long>(M.N), static_cast<unsigned long long>(M.Nanos));
  }
}

} // namespace mpiete::cap

// A hook that cannot leave its loop (a call of mpiete_iter not through the C macro): the loop
// is followed, never capped.
extern "C" void mpiete_iter(mpiete_site_t loop) { (void)mpiete::cap::iterate(loop, false, false); }

extern "C" int mpiete_iter_capped(mpiete_site_t loop) {
  return mpiete::cap::iterate(loop, true, false);
}

extern "C" int mpiete_iter_opaque_capped(mpiete_site_t loop) {
  return mpiete::cap::iterate(loop, true, true);
}

extern "C" void mpiete_loop_exit_opaque(mpiete_site_t loop) { mpiete_loop_exit(loop); }

extern "C" void mpiete_loop_exit(mpiete_site_t loop) {
  using mpiete::cap::S;
  if (S.On)
    S.Frames.exit(loop);
}
