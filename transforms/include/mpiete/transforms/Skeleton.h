// The skeleton trace probe of a unit: the trace variant's edits plus the slice's removals.
#ifndef MPIETE_TRANSFORMS_SKELETON_H
#define MPIETE_TRANSFORMS_SKELETON_H

#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/transforms/EditSet.h"

#include <optional>
#include <string>

namespace mpiete {

/// The trace variant's edits (instrumentC) and, for every statement the slice removed
/// (Model.SkeletonRemovals), its text replaced by ";" (by nothing for an initialiser) followed by
/// the newlines it held, so the lines after it keep their numbers.
EditSet skeletonC(const UnitModel &Model, const std::string &Text);

/// The skeleton's text (a Fortran unit's: skeletonFortran), or nothing with Error set when the
/// edits conflict.
std::optional<std::string> skeletonText(const UnitModel &Model, const std::string &Text,
                                        std::string &Error);

/// The removals, one a line: `file:line:col: procedure: text` (APP.skeleton.removed), after a
/// header line `# file: R of S statements removed; message data kept: yes|no`.
std::string skeletonRemovalList(const UnitModel &Model);

} // namespace mpiete

#endif
