// Loop plans: what the trace probe knows about the capped loops before the timing probe runs
// (docs/probes.md, "Capped loops", "Given the traces").
//
// The trace variant follows the same loop hooks as the timing variant's cap (TimingCap.cpp):
// the same stack of loop frames, the same outermost loop entries numbered the same way. For
// every outermost entry it hashes each iteration's MPI call sites and finds the smallest period
// P <= MaxPlannedPeriod with which the iterations after the first repeat over the WHOLE entry, then
// writes `rank<N>.loops` beside the traces. probe-compute --cap --program DIR keeps the entries
// whose period every rank that ran them agrees on and hands them to the timing run
// (MPIETE_CAP_PLAN). A loop entry the traces show repeating to its end needs no MinMeasured
// iterations to rule out a test every few steps: it may be left after Cap periods.
#ifndef MPIETE_RUNTIME_LOOPPLAN_H
#define MPIETE_RUNTIME_LOOPPLAN_H

#include "mpiete/instrument.h"

#include <bit>
#include <cstdint>

namespace mpiete::cap {

/// The longest period a timing run finds in its own iterations' MPI calls (TimingCap.h). Codes
/// test for convergence or print every 10 steps as often as not (f90-stencil3d): a period up to
/// 16 is recognised without the traces.
constexpr uint32_t MaxPeriod = 16;
/// The longest period the traces can show over a whole loop entry (PeriodTracker, the plan): a
/// checksum or a convergence test every 20, 50 or 100 steps. The timing run leaves such a loop
/// only where its own iterations show the same period (TimingCap.h, periodHolds) and after Cap
/// of them, so a loop of a few periods runs whole.
constexpr uint32_t MaxPlannedPeriod = 128;

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
/// P <= MaxPlannedPeriod with Sig[K] == Sig[K - P] for every K, seen at least twice over.
/// An iteration costs a comparison per period not yet broken, none while every signature so far
/// is the same (a loop of pure computation that calls another file: its signatures are all 0).
class PeriodTracker {
public:
  void add(uint64_t Sig) {
    // While period 1 holds, every signature so far is the same: a new one equal to the last
    // breaks nothing.
    const bool Same = (Broken[0] & 1) == 0 && Sig == Ring[(N - 1) % MaxPlannedPeriod];
    if (N > 0 && !Same) {
      const uint64_t Last = N < MaxPlannedPeriod ? N : MaxPlannedPeriod;
      for (uint32_t W = 0; W < Words; ++W)
        for (uint64_t Live = ~Broken[W]; Live != 0; Live &= Live - 1) {
          const auto Bit = static_cast<uint32_t>(std::countr_zero(Live));
          const uint64_t P = uint64_t{W} * 64 + Bit + 1;
          if (P > Last)
            break;
          if (Ring[(N - P) % MaxPlannedPeriod] != Sig)
            Broken[W] |= uint64_t{1} << Bit;
        }
    }
    Ring[N % MaxPlannedPeriod] = Sig;
    ++N;
  }
  /// 0 when no period holds over all of them (or none was seen twice).
  uint32_t period() const {
    for (uint32_t P = 1; P <= MaxPlannedPeriod && 2 * P <= N; ++P)
      if ((Broken[(P - 1) / 64] & (uint64_t{1} << ((P - 1) % 64))) == 0)
        return P;
    return 0;
  }
  uint64_t count() const { return N; }

private:
  static constexpr uint32_t Words = MaxPlannedPeriod / 64;
  static_assert(MaxPlannedPeriod % 64 == 0);
  uint64_t Ring[MaxPlannedPeriod] = {};
  uint64_t N = 0;
  uint64_t Broken[Words] = {}; // bit P - 1: period P failed somewhere
};

/// The loop hooks' frames, as both variants follow them (mpiete_iter / mpiete_loop_exit): a
/// stack of open loops, a frame left without its exit hook (break, return, goto) closed when an
/// enclosing loop iterates again, and every outermost entry numbered per loop (0, 1, ...) on the
/// rank. The timing variant's cap names its board slots by (loop, entry) and the trace
/// variant's plan names the same entries, so both take them from this one class.
class LoopFrames {
public:
  /// What a mpiete_iter did: Level is the loop's frame (1: outermost; 0: not followed, the
  /// stack being full); Iter its iterations begun before this one (0: the loop was entered).
  struct Step {
    size_t Level;
    uint32_t Iter;
  };

  Step iterate(mpiete_site_t Loop, bool Opaque) {
    const size_t I = levelOf(Loop);
    if (I == 0) {
      if (Depth == MaxFrames)
        return Step{0, 0};
      Frames[Depth] = Frame{Loop, 0, Opaque};
      if (Depth++ == 0)
        numberEntry(Loop);
      return Step{Depth, 0};
    }
    Depth = I; // frames above it belong to loops left without an exit hook
    return Step{I, ++Frames[I - 1].Iter};
  }
  /// mpiete_loop_exit(Loop): Loop's frame and those above it close.
  void exit(mpiete_site_t Loop) {
    if (const size_t I = levelOf(Loop); I != 0)
      Depth = I - 1;
  }
  /// Every frame closes (the end of the run).
  void clear() { Depth = 0; }

  /// Loop's frame (1: outermost), 0 when it is not open.
  size_t levelOf(mpiete_site_t Loop) const {
    size_t I = Depth;
    while (I > 0 && Frames[I - 1].Loop != Loop)
      --I;
    return I;
  }
  size_t depth() const { return Depth; }
  /// The outermost frame (valid while depth() > 0): its loop, iterations begun, hook kind.
  mpiete_site_t outermost() const { return Frames[0].Loop; }
  uint32_t outermostIter() const { return Frames[0].Iter; }
  bool outermostOpaque() const { return Frames[0].Opaque; }
  /// The outermost entry's number; Numbered false when more than MaxEntries distinct loops were
  /// outermost (Entry is then 0 for every entry of the loop).
  uint32_t entry() const { return Entry; }
  bool numbered() const { return Numbered; }

private:
  static constexpr size_t MaxFrames = 64;
  static constexpr size_t MaxEntries = 256; // distinct outermost loops numbered per rank
  struct Frame {
    mpiete_site_t Loop;
    uint32_t Iter;
    bool Opaque; // opaque hooks: the frontend saw no MPI call in the loop
  };
  struct LoopCount {
    mpiete_site_t Loop;
    uint32_t Entries;
  };

  void numberEntry(mpiete_site_t Loop) {
    size_t I = 0;
    while (I < NCounts && Counts[I].Loop != Loop)
      ++I;
    Numbered = I < NCounts || NCounts < MaxEntries;
    if (I < NCounts)
      Entry = ++Counts[I].Entries;
    else {
      if (Numbered)
        Counts[NCounts++] = LoopCount{Loop, 0};
      Entry = 0;
    }
  }

  Frame Frames[MaxFrames] = {};
  size_t Depth = 0;
  LoopCount Counts[MaxEntries] = {};
  size_t NCounts = 0;
  uint32_t Entry = 0;
  bool Numbered = false;
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
