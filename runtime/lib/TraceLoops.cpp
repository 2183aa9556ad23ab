// The trace variant's follower of the loop hooks (LoopPlan.h): the outermost loop entries and
// the period of their iterations' MPI calls, written as rank<N>.loops for probe-compute --cap.
// Its frames are the timing variant's cap's own class (cap::LoopFrames), so an entry here is
// the entry the timing run numbers the same way.
#include "LoopPlan.h"
#include "Recorder.h"
#include "Util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mpiete::loops {

namespace {

constexpr size_t MaxLines = 4096; // entries written per rank (the timing board's slots)

struct Line {
  mpiete_site_t Loop;
  uint32_t Entry;
  uint32_t Period;
  uint64_t Iterations;
};

struct State {
  cap::LoopFrames Frames;
  uint64_t Sig = 0; // the running iteration of the outermost entry: its MPI call sites
  cap::PeriodTracker Tracker;

  Line Lines[MaxLines] = {};
  size_t NLines = 0;
  uint64_t Dropped = 0; // entries past MaxLines
};

constinit State S;

/// The outermost frame's entry ends (its exit hook, or the end of the run): its last iteration
/// counts, as the timing probe would skip it too.
void closeOutermost() {
  const uint64_t Iterations = uint64_t{S.Frames.outermostIter()} + 1;
  if (Iterations >= 2)
    S.Tracker.add(S.Sig);
  const uint32_t Period = S.Tracker.period();
  if (!S.Frames.numbered() || Period == 0)
    return;
  if (S.NLines == MaxLines) {
    ++S.Dropped;
    return;
  }
  S.Lines[S.NLines++] = Line{S.Frames.outermost(), S.Frames.entry(), Period, Iterations};
}

} // namespace

void iterate(mpiete_site_t Loop, bool Opaque) {
  const auto [Level, Iter] = S.Frames.iterate(Loop, Opaque);
  if (Level != 1)
    return;
  // Iteration Iter - 1 ended; the first (the timing probe's warm-up) is no sample there either.
  if (Iter == 0)
    S.Tracker = cap::PeriodTracker{};
  else if (Iter >= 2)
    S.Tracker.add(S.Sig);
  S.Sig = 0;
}

void exit(mpiete_site_t Loop) {
  if (S.Frames.levelOf(Loop) == 1)
    closeOutermost();
  S.Frames.exit(Loop);
}

void call(mpiete_site_t Site) {
  if (S.Frames.depth() > 0)
    S.Sig = cap::mixBits(S.Sig ^ Site);
}

void write(const char *Dir, int Rank, int Size) {
  if (S.Frames.depth() > 0) {
    closeOutermost();
    S.Frames.clear();
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
