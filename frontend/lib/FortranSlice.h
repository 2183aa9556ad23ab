// The skeleton trace probe's slice of a Fortran unit (FortranSlice.cpp, docs/skeleton.md).
// Internal to frontend/lib.
#ifndef MPIETE_FRONTEND_LIB_FORTRANSLICE_H
#define MPIETE_FRONTEND_LIB_FORTRANSLICE_H

#include "FortranAnalysis.h"

#include <functional>

namespace mpiete {
struct LinkSummary;
}

namespace mpiete::fortran {

/// Fills Model.SkeletonRemovals and the slice's counts (Model.Sliced...). Quiet tells a module
/// procedure of another file known not to communicate. On what the slice does not model, a
/// located warning and no removals: the unit's skeleton is then its full trace variant, it has
/// no link summary, and the result is false. Program: the link step's summary of the whole
/// program (null: per unit); Summary, when given, receives the unit's link summary.
bool sliceUnit(const SourceMap &SM, const std::string &MainText, const CommunicationAnalysis &CA,
               const std::vector<ProcInfo> &Procs, const p::Program &Prog,
               const std::function<bool(const p::Name &)> &Quiet, UnitModel &Model,
               DiagnosticSink &Diags, const LinkSummary *Program = nullptr,
               LinkSummary *Summary = nullptr);

} // namespace mpiete::fortran

#endif
