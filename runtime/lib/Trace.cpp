// The trace variant (libmpiete_trace.a): the block hooks append to the per-rank binary trace
// (TraceWriter); messages are recorded by the transport (TransportTrace.cpp).
#include "LoopPlan.h"
#include "RankStatus.h"
#include "Recorder.h"
#include "TraceWriter.h"
#include "Variant.h"

namespace mpiete::variant {
using mpiete::TraceWriter;

const char Name[] = "trace";
const char Suffix[] = "trace";
const bool HasTime = false;

// Call boundaries: the first record an outermost call writes is flagged; a call that wrote
// nothing writes a Call record. The status file (probe-program's watchdog) follows each one.
void mpiEnter(mpiete_site_t Site, bool Outermost) {
  if (!Outermost)
    return;
  loops::call(Site);
  status::enter(Site);
  if (TraceWriter::get().on())
    TraceWriter::get().callBegin();
}
void mpiExit(mpiete_site_t Site, bool Outermost) {
  if (!Outermost)
    return;
  status::leave(Recorder::get().rank());
  if (TraceWriter::get().on())
    TraceWriter::get().callEnd(Site);
}

} // namespace mpiete::variant

using mpiete::TraceWriter;

extern "C" void mpiete_tr_block(mpiete_site_t id) {
  TraceWriter &W = TraceWriter::get();
  if (!W.on())
    return;
  W.block(id);
}

extern "C" void mpiete_tr_loop(mpiete_site_t id, unsigned long long trips) {
  TraceWriter &W = TraceWriter::get();
  if (!W.on())
    return;
  W.loop(id, trips);
}

extern "C" void mpiete_iter(mpiete_site_t loop) {
  mpiete::loops::iterate(loop, false);
  TraceWriter &W = TraceWriter::get();
  if (!W.on())
    return;
  W.iter(loop);
}

// The trace variants run every iteration: the cap is the timing probe's (TimingCap.cpp).
extern "C" int mpiete_iter_capped(mpiete_site_t loop) {
  mpiete_iter(loop);
  return 0;
}

// Opaque loops (no MPI call their unit can see) are followed for the loop plan only
// (LoopPlan.h): the writer compresses what their calls write by its detector.
extern "C" int mpiete_iter_opaque_capped(mpiete_site_t loop) {
  mpiete::loops::iterate(loop, true);
  return 0;
}
extern "C" void mpiete_loop_exit_opaque(mpiete_site_t loop) { mpiete::loops::exit(loop); }

// Sampled loops of pure computation run whole in the trace variants (TimingSample.cpp).
extern "C" int mpiete_sample_skip(mpiete_site_t) { return 0; }
extern "C" void mpiete_sample_exit(mpiete_site_t) {}

extern "C" void mpiete_loop_exit(mpiete_site_t loop) {
  mpiete::loops::exit(loop);
  TraceWriter &W = TraceWriter::get();
  if (!W.on())
    return;
  W.loopExit(loop);
}
