// The skeleton trace probe's slice of a C unit (seed 004 section 3.1.3): which statements decide
// neither the MPI calls a rank makes nor their arguments, and so may leave the trace variant.
#ifndef MPIETE_FRONTEND_LIB_SLICE_H
#define MPIETE_FRONTEND_LIB_SLICE_H

namespace clang {
class ASTContext;
} // namespace clang

namespace mpiete {

struct UnitModel;
struct LinkSummary;

/// A backward slice over the procedures of the unit's main file (docs/skeleton.md): fills
/// Model.SkeletonRemovals with every statement (or declaration initialiser) of them that no
/// MPI call, argument of one, or decision around one depends on, and with the values a kept
/// statement computes that nothing needs (an argument, a return's value: replaced by 0), and
/// Model.SliceStatements with the statements it judged. Conservative where it cannot see:
/// calls to procedures of other units, pointers (Steensgaard's unification, field by field
/// for structs), library state (files, random numbers) and, when received data steers the
/// program, the contents of every message buffer.
///
/// Program, when given, is the link step's knowledge of the other units' procedures
/// (LinkSummary.h): a call to one that cannot communicate is then an ordinary statement, and
/// the message kinds it names as steered keep their send buffers here too. Summary, when
/// given, receives the unit's link summary. Slice false: only the summary (a unit without MPI
/// calls).
void sliceUnit(clang::ASTContext &Ctx, UnitModel &Model, const LinkSummary *Program = nullptr,
               LinkSummary *Summary = nullptr, bool Slice = true);

} // namespace mpiete

#endif
