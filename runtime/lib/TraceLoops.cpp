// The trace variant's follower of the loop hooks (LoopPlan.h): the outermost loop entries and
// the period of their iterations' MPI calls, written as rank<N>.loops for probe-compute --cap.
// Its frames follow TimingCap.cpp's iterate() rule for rule (a frame left without its exit
// hook stays below the next loop's), so an entry here is the entry the timing run numbers
// the same way.
#include "LoopPlan.h"
#include "Recorder.h"
#include "Util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mpiete::loops {

namespace {

constexpr size_t MaxFrames = 64;
constexpr size_t MaxEntries = 256; // distinct outermost loops numbered (as TimingCap.cpp)
constexpr size_t MaxLines = 4096;  // entries written per rank (the timing board's slots)

struct LoopCount {
  mpiete_site_t Loop;
  uint32_t Entries;
};

struct Line {
  mpiete_site_t Loop;
  uint32_t Entry;
  uint32_t Period;
  uint64_t Iterations;
};

struct State {
  mpiete_site_t Frames[MaxFrames] = {};
  uint32_t Iter[MaxFrames] = {};
  size_t Depth = 0;
  LoopCount Counts[MaxEntries] = {};
  size_t NCounts = 0;

  // The outermost frame's entry.
  bool Numbered = false; // its loop has an entry number (MaxEntries not exceeded)
  uint32_t Entry = 0;
  uint64_t Sig = 0; // the running iteration's MPI call sites
  cap::PeriodTracker Tracker;

  Line Lines[MaxLines] = {};
  size_t NLines = 0;
  uint64_t Dropped = 0; // entries past MaxLines
};

constinit State S;

/// The outermost frame's entry ends (its exit hook, or the end of the run): its last iteration
/// counts, as the timing probe would skip it too.
void closeOutermost() {
  const uint64_t Iterations = uint64_t{S.Iter[0]} + 1;
  if (Iterations >= 2)
    S.Tracker.add(S.Sig);
  const uint32_t Period = S.Tracker.period();
  if (!S.Numbered || Period == 0)
    return;
  if (S.NLines == MaxLines) {
    ++S.Dropped;
    return;
  }
  S.Lines[S.NLines++] = Line{S.Frames[0], S.Entry, Period, Iterations};
}

void enterOutermost(mpiete_site_t Loop) {
  size_t I = 0;
  while (I < S.NCounts && S.Counts[I].Loop != Loop)
    ++I;
  S.Numbered = true;
  if (I < S.NCounts)
    S.Entry = ++S.Counts[I].Entries;
  else if (S.NCounts < MaxEntries) {
    S.Counts[S.NCounts++] = LoopCount{Loop, 0};
    S.Entry = 0;
  } else
    S.Numbered = false;
  S.Sig = 0;
  S.Tracker = cap::PeriodTracker{};
}

} // namespace

void iterate(mpiete_site_t Loop, bool) {
  size_t I = S.Depth;
  while (I > 0 && S.Frames[I - 1] != Loop)
    --I;
  if (I == 0) {
    if (S.Depth == MaxFrames)
      return;
    S.Frames[S.Depth] = Loop;
    S.Iter[S.Depth] = 0;
    if (S.Depth++ == 0)
      enterOutermost(Loop);
    return;
  }
  S.Depth = I;
  const uint32_t Iter = ++S.Iter[I - 1];
  if (I != 1)
    return;
  // Iteration Iter - 1 ended; the first (the timing probe's warm-up) is no sample there either.
  if (Iter >= 2)
    S.Tracker.add(S.Sig);
  S.Sig = 0;
}

void exit(mpiete_site_t Loop) {
  size_t I = S.Depth;
  while (I > 0 && S.Frames[I - 1] != Loop)
    --I;
  if (I == 0)
    return;
  if (I == 1)
    closeOutermost();
  S.Depth = I - 1;
}

void call(mpiete_site_t Site) {
  if (S.Depth > 0)
    S.Sig = cap::mixBits(S.Sig ^ Site);
}

void write(const char *Dir, int Rank, int Size) {
  if (S.Depth > 0) {
    closeOutermost();
    S.Depth = 0;
  }
  char Path[4200];
  if (std::snprintf(Path, sizeof Path, "%s/rank%d.loops", Dir, Rank) >=
      static_cast<int>(sizeof Path))
    Recorder::get().fail("output path too long under '%s'", Dir);
  std::FILE *F = std::fopen(Path, "w");
  if (F == nullptr)
    Recorder::get().fail("cannot open '%s' for writing: %s", Path, std::strerror(errno));
  std::fprintf(F,
               "# mpiete " MPIETE_TOOL_VERSION
               " loops rank %d of %d: outermost loop entries whose iterations after the first "
               "repeat their MPI calls with a period (loop entry iterations period)\n",
               Rank, Size);
  if (S.Dropped > 0)
    std::fprintf(F, "# %llu more entries not listed\n", static_cast<unsigned long long>(S.Dropped));
  for (size_t K = 0; K < S.NLines; ++K) {
    char Id[BlockIdBufferSize];
    formatBlockId(S.Lines[K].Loop, Id, sizeof Id);
    std::fprintf(F, "%s %u %llu %u\n", Id, S.Lines[K].Entry,
                 static_cast<unsigned long long>(S.Lines[K].Iterations), S.Lines[K].Period);
  }
  const bool Failed = std::ferror(F) != 0;
  if (std::fclose(F) != 0 || Failed)
    Recorder::get().fail("cannot write '%s': %s", Path, std::strerror(errno));
}

} // namespace mpiete::loops
