// The skeleton trace probe's slice of a Fortran unit (docs/skeleton.md), after analyzeFortran.
#ifndef MPIETE_FRONTEND_FORTRANSKELETON_H
#define MPIETE_FRONTEND_FORTRANSKELETON_H

#include "mpiete/frontend/FortranFrontend.h"

namespace mpiete {

struct LinkSummary;

/// Slices the unit analyzeFortran built Model from (same Parsing, MainText): fills
/// Model.SkeletonRemovals, Model.Sliced and the slice's counts. Never fails the build: what the
/// slice does not model is a located warning, and the unit keeps its full trace variant.
/// Program: the link step's summary of the other units (docs/skeleton.md, "Whole program"),
/// or null to slice the unit alone. Summary, when given, receives the unit's link summary;
/// the result says whether it has one (not when the slice does not model the unit).
bool sliceFortran(Fortran::parser::Parsing &Parsing, const FortranFrontendOptions &Opts,
                  UnitModel &Model, const std::string &MainText, DiagnosticSink &Diags,
                  const LinkSummary *Program = nullptr, LinkSummary *Summary = nullptr);

} // namespace mpiete

#endif
