// The timing variant (libmpiete_timing.a): exclusive elapsed time of every
// compute block.
//
// Open blocks form a stack; only the innermost one runs. mpiete_tm_begin pauses
// the running block and pushes a new one; mpiete_tm_end / mpiete_tm_loop_end
// pop it, charge its time and resume the one below. Every MPI entry point
// pushes a pause marker for the duration of the call, so MPI time is charged to
// no block (a user reduction operation whose blocks are instrumented still
// times them: they push above the marker). The clock is read again after each
// hook's own work, so the hooks' overhead is charged to no block either.
//
// Segment mode: the time between the exit of one outermost MPI call and the entry of the next
// is one occurrence of the compute segment (site of the first -> site of the second),
// charged at the entry (Segments.h). It costs two clock reads per MPI call and nothing in
// between; mpiete_iter and mpiete_loop_exit only serve probe-compute's cap (TimingCap.h).
#include "HeapPin.h"
#include "Recorder.h"
#include "Segments.h"
#include "TimingCap.h"
#include "TimingControl.h"
#include "TimingSample.h"
#include "Util.h"
#include "Variant.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace mpiete::variant {

const char Name[] = "timing";
const char Suffix[] = "timing";
const bool HasTime = true;

} // namespace mpiete::variant

namespace mpiete {
namespace {

struct Frame {
  mpiete_site_t Id;
  uint64_t Nanos;    // time charged so far
  uint64_t Resumed;  // when it last started running (valid while it is the innermost)
  uint64_t Children; // blocks begun and ended inside it: each leaks hook time into it
  bool Mpi;          // a pause marker for an MPI call, not a block
};

class BlockStack {
public:
  bool empty() const { return Depth == 0; }
  Frame &top() { return Frames[Depth - 1]; }
  void push(const Frame &F) {
    if (Depth == Capacity) [[unlikely]]
      grow();
    Frames[Depth++] = F;
  }
  Frame pop() { return Frames[--Depth]; }

  /// Stops the innermost block's clock at T.
  void pauseTop(uint64_t T) {
    if (Depth != 0 && !top().Mpi)
      top().Nanos += T - top().Resumed;
  }
  /// Restarts the innermost block's clock at T.
  void resumeTop(uint64_t T) {
    if (Depth != 0)
      top().Resumed = T;
  }

private:
  void grow() {
    const size_t NewCapacity = Capacity == 0 ? 64 : Capacity * 2;
    auto *NewFrames = static_cast<Frame *>(std::realloc(Frames, NewCapacity * sizeof(Frame)));
    if (NewFrames == nullptr)
      Recorder::get().fail("out of memory growing the block stack to %zu entries", NewCapacity);
    Frames = NewFrames;
    Capacity = NewCapacity;
  }

  Frame *Frames = nullptr;
  size_t Depth = 0;
  size_t Capacity = 0;
};

constinit BlockStack Stack;

/// Hook time a block charges to the block around it per nested block: the calls into and out
/// of the hooks outside the interval the hooks exclude. It matters when a compute block calls,
/// through a procedure of another unit, code that holds millions of blocks: without this, that
/// block would be charged all their hooks' time (calibrate() measures it).
constinit double NestedLeakNs = 0;

/// Pops the innermost open block, which must be Id; returns its exclusive time
/// up to T.
uint64_t popBlock(mpiete_site_t Id, uint64_t T, const char *Hook) {
  if (Stack.empty() || Stack.top().Mpi || Stack.top().Id != Id) [[unlikely]] {
    char Want[BlockIdBufferSize], Open[48] = "no block is open";
    formatBlockId(Id, Want, sizeof Want);
    if (!Stack.empty() && Stack.top().Mpi)
      std::snprintf(Open, sizeof Open, "an MPI call is running");
    else if (!Stack.empty())
      formatBlockId(Stack.top().Id, Open, sizeof Open);
    Recorder::get().fail("%s(%s) does not match the innermost open block: %s (bad "
                         "instrumentation)",
                         Hook, Want, Open);
  }
  Frame F = Stack.pop();
  const uint64_t Raw = F.Nanos + (T - F.Resumed);
  const auto Leak = static_cast<uint64_t>(NestedLeakNs * static_cast<double>(F.Children));
  return Raw > Leak ? Raw - Leak : 0;
}

constinit SegmentTable Segments;
constinit mpiete_site_t LastSite = ProgramStart;
constinit uint64_t LastExit = 0; // the process start until the first call returns
/// A seed-mode block hook ran: the program was built with --mpiete-seed-blocks.
constinit bool SeedBlocks = false;

__attribute__((constructor)) void markProcessStart() {
  if (LastExit == 0)
    LastExit = nowNs();
}

} // namespace

namespace variant {

void mpiEnter(mpiete_site_t Site, bool Outermost) {
  const uint64_t T = nowNs();
  // The prediction ends at MPI_Finalize: nothing after it is charged.
  if (Outermost && !Recorder::get().finalized()) [[likely]] {
    sample::noteMpiCall(Site);
    const uint64_t Nanos = T > LastExit ? T - LastExit : 0;
    Segments.add(LastSite, Site, Nanos);
    cap::noteSegment(LastSite, Site, Nanos);
    heap::atMpiCall();
  }
  Stack.pauseTop(T);
  Stack.push(Frame{0, 0, T, 0, true});
}

void mpiExit(mpiete_site_t Site, bool Outermost) {
  // Balanced by construction (MpiScope); a block left open inside the call is
  // an error.
  if (Stack.empty() || !Stack.top().Mpi) [[unlikely]] {
    char Open[32] = "none";
    if (!Stack.empty())
      formatBlockId(Stack.top().Id, Open, sizeof Open);
    Recorder::get().fail("block %s was begun but not ended inside an MPI call (bad "
                         "instrumentation)",
                         Open);
  }
  Stack.pop();
  const uint64_t T = nowNs();
  Stack.resumeTop(T);
  if (Outermost) {
    LastSite = Site;
    LastExit = T;
  }
}

} // namespace variant

namespace {

// The hooks' bodies, shared with the overhead measurement so it times exactly
// what they do.
inline __attribute__((always_inline)) void beginBlock(mpiete_site_t Id) {
  Stack.pauseTop(nowNs());
  if (!Stack.empty() && !Stack.top().Mpi)
    ++Stack.top().Children;
  Stack.push(Frame{Id, 0, 0, 0, false});
  Stack.top().Resumed = nowNs();
}

inline __attribute__((always_inline)) uint64_t endBlock(mpiete_site_t Id, const char *Hook) {
  return popBlock(Id, nowNs(), Hook);
}

constinit double OverheadNs = 0;
constinit int PinnedCpu = -1;
constinit bool TokenPassing = false;
constinit int RanksPerNode = 1;
constinit bool SpinWait = false;
constinit bool SpinPause = false;

} // namespace

namespace timing {

void calibrate() {
  const bool SeedBlocksBefore = SeedBlocks; // the calibration runs the real hooks
  constexpr int Pairs = 1000;
  static uint64_t Samples[Pairs]; // static: the hooks' code path stays allocation-free
  constexpr mpiete_site_t Probe = ~0ULL;
  for (int I = 0; I < Pairs; ++I) {
    beginBlock(Probe);
    Samples[I] = endBlock(Probe, "calibrate");
    Stack.resumeTop(nowNs());
  }
  std::nth_element(Samples, Samples + Pairs / 2, Samples + Pairs);
  OverheadNs = static_cast<double>(Samples[Pairs / 2]);

  // The leak into an enclosing block: an open parent around runs of empty children, through
  // the real (out-of-line) hooks as instrumented code calls them; the median of the runs.
  constexpr int Runs = 21, Children = 200;
  static uint64_t PerRun[Runs];
  void (*volatile Begin)(mpiete_site_t) = mpiete_tm_begin;
  void (*volatile End)(mpiete_site_t) = mpiete_tm_end;
  constexpr mpiete_site_t CalibrationChild = CalibrationBlock;
  for (int R = 0; R < Runs; ++R) {
    beginBlock(Probe);
    for (int I = 0; I < Children; ++I) {
      Begin(CalibrationChild);
      End(CalibrationChild);
    }
    Stack.top().Children = 0; // the raw time: no leak subtracted yet
    PerRun[R] = endBlock(Probe, "calibrate");
    Stack.resumeTop(nowNs());
  }
  std::nth_element(PerRun, PerRun + Runs / 2, PerRun + Runs);
  NestedLeakNs = static_cast<double>(PerRun[Runs / 2]) / Children;
  SeedBlocks = SeedBlocksBefore;
}

double nestedLeakNanos() { return NestedLeakNs; }

double overheadNanos() { return OverheadNs; }

void setRanksPerNode(int K) { RanksPerNode = K; }

void setSpinWait(bool Spin, bool Pause) {
  SpinWait = Spin;
  SpinPause = Pause;
}

void creditSegment(int64_t Nanos) {
  const uint64_t Abs = Nanos < 0 ? 0 - static_cast<uint64_t>(Nanos) : static_cast<uint64_t>(Nanos);
  if (Nanos >= 0)
    LastExit = LastExit > Abs ? LastExit - Abs : 0;
  else // the primers ran inside the segment: their time is after LastExit
    LastExit = std::min(LastExit + Abs, nowNs());
}

void setCpu(int Cpu) {
  PinnedCpu = Cpu;
  TokenPassing = true;
}

} // namespace timing

void variant::writeHeaderExtra(std::FILE *F) {
  std::fprintf(F, "# timer-overhead-ns %.1f\n", OverheadNs);
  std::fprintf(F, "# nested-leak-ns %.1f\n", NestedLeakNs);
  std::fprintf(F, "# token-passing %s\n", TokenPassing ? "on" : "off");
  std::fprintf(F, "# cpu %d\n", PinnedCpu);
  std::fprintf(F, "# ranks-per-node %d\n", RanksPerNode);
  std::fprintf(F, "# waiting %s\n", !SpinWait ? "sleep" : SpinPause ? "spin" : "busy");
  if (const char *Heap = heap::mode()) { // null: the token machine never started
    std::fprintf(F, "# heap %s\n", Heap);
    std::fprintf(F, "# heap-pins %llu\n", static_cast<unsigned long long>(heap::pins()));
  }
  std::fprintf(F, "# partition %s\n", SeedBlocks ? "blocks" : "segments");
  cap::writeHeader(F);
  sample::writeHeader(F);
}

void variant::writeTrailer(std::FILE *F) {
  if (!SeedBlocks)
    Segments.write(F);
}

} // namespace mpiete

using mpiete::Recorder;

extern "C" void mpiete_tm_begin(mpiete_site_t id) {
  mpiete::SeedBlocks = true;
  mpiete::beginBlock(id);
}

extern "C" void mpiete_tm_end(mpiete_site_t id) {
  const uint64_t Nanos = mpiete::endBlock(id, "mpiete_tm_end");
  Recorder::get().recordBlockEnd(id, Nanos);
  mpiete::Stack.resumeTop(mpiete::nowNs());
}

extern "C" void mpiete_tm_loop_end(mpiete_site_t id, unsigned long long trips) {
  const uint64_t Nanos = mpiete::endBlock(id, "mpiete_tm_loop_end");
  Recorder::get().recordTimedLoop(id, trips, Nanos);
  mpiete::Stack.resumeTop(mpiete::nowNs());
}
