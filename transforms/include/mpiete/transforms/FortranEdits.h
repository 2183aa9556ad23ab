// The Fortran instrumentation: whole statements inserted around blocks and MPI calls renamed,
// respecting fixed form (columns 1-72, continuation in column 6) and free form.
#ifndef MPIETE_TRANSFORMS_FORTRANEDITS_H
#define MPIETE_TRANSFORMS_FORTRANEDITS_H

#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/transforms/Instrument.h"

#include <optional>
#include <string>

namespace mpiete {

/// The unit id as a Fortran default INTEGER literal: the unsigned 32-bit id reinterpreted as
/// signed ("-123", and "(-2147483647-1)" for the one value without a literal).
std::string fortranUnitLiteral(uint32_t UnitId);

/// The instrumented text of one variant of a Fortran unit (docs/fortran.md), or nothing with
/// Error set when the edits conflict. A pure function of the model and the text. SampleHooks:
/// as for instrumentC (the timing variant only).
std::optional<std::string> instrumentFortran(const UnitModel &Model, const std::string &Text,
                                             Variant V, std::string &Error,
                                             bool SampleHooks = false);

/// The skeleton trace probe of a Fortran unit: the trace variant with every line of the slice's
/// removals (Model.SkeletonRemovals) blank, or `label CONTINUE` where a removed statement had
/// a label, so the lines keep their numbers and jumps and DO terminations their targets.
std::optional<std::string> skeletonFortran(const UnitModel &Model, const std::string &Text,
                                           std::string &Error);

} // namespace mpiete

#endif
