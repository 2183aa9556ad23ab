// The skeleton trace probe's slice of a Fortran unit (docs/skeleton.md), after analyzeFortran.
#ifndef MPIETE_FRONTEND_FORTRANSKELETON_H
#define MPIETE_FRONTEND_FORTRANSKELETON_H

#include "mpiete/frontend/FortranFrontend.h"

namespace mpiete {

/// Slices the unit analyzeFortran built Model from (same Parsing, MainText): fills
/// Model.SkeletonRemovals, Model.Sliced and the slice's counts. Never fails the build: what the
/// slice does not model is a located warning, and the unit keeps its full trace variant.
void sliceFortran(Fortran::parser::Parsing &Parsing, const FortranFrontendOptions &Opts,
                  UnitModel &Model, const std::string &MainText, DiagnosticSink &Diags);

} // namespace mpiete

#endif
