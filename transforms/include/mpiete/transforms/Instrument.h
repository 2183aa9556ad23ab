// Turns a unit's program model into the edits that make its trace and timing probes.
#ifndef MPIETE_TRANSFORMS_INSTRUMENT_H
#define MPIETE_TRANSFORMS_INSTRUMENT_H

#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/transforms/EditSet.h"

#include <optional>
#include <string>

namespace mpiete {

enum class Variant { Trace, Timing };

std::string_view toString(Variant V);

/// The edits of one variant of a C unit (docs/transforms.md): a prelude, block hooks, whole
/// loops wrapped with a trip counter, MPI calls renamed to the runtime with their site id.
/// SampleHooks: the timing variant gets the sampled loops' hooks too (docs/probes.md, "Sampled
/// loops": opt-in at build time); the trace variant never does.
EditSet instrumentC(const UnitModel &Model, Variant V, bool SampleHooks = false);

/// The instrumented text, or nothing with Error set when the edits conflict.
std::optional<std::string> instrumentedText(const UnitModel &Model, const std::string &Text,
                                            Variant V, std::string &Error,
                                            bool SampleHooks = false);

} // namespace mpiete

#endif
