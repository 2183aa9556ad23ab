// The trace variant (libmpiete_trace.a): the block hooks append to the per-rank binary trace
// (TraceWriter); messages are recorded by the transport (TransportTrace.cpp).
#include "Recorder.h"
#include "TraceWriter.h"
#include "Variant.h"

namespace mpiete::variant {

const char Name[] = "trace";
const char Suffix[] = "trace";
const bool HasTime = false;

void mpiEnter() {}
void mpiExit() {}

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
