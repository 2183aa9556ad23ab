// The trace variant (libmpiete_trace.a): counts executions of every block, and loop trips.
#include "Recorder.h"
#include "Variant.h"

namespace mpiete::variant {

const char Name[] = "trace";
const char Suffix[] = "counts";
const bool HasTime = false;

void mpiEnter() {}
void mpiExit() {}

} // namespace mpiete::variant

using mpiete::Kind;
using mpiete::Recorder;

extern "C" void mpiete_tr_block(mpiete_site_t id) { Recorder::get().record(id, Kind::Block); }

extern "C" void mpiete_tr_loop(mpiete_site_t id, unsigned long long trips) {
  Recorder::get().recordLoop(id, trips, 0);
}
