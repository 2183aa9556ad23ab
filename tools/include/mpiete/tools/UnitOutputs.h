// Writing one instrumented unit's outputs (block map, trace and timing variants): the one place
// mpiete-instrument (C) and the Flang plugin (Fortran) share.
#ifndef MPIETE_TOOLS_UNITOUTPUTS_H
#define MPIETE_TOOLS_UNITOUTPUTS_H

#include "mpiete/basedata/ProgramModel.h"

#include <iosfwd>
#include <string>

namespace mpiete {

class DiagnosticSink;

/// Where a unit's outputs go. Files are written when any is named; otherwise Print goes to
/// the stream.
struct UnitOutputs {
  enum class Print { Trace, Timing, Blocks, Skeleton };
  std::string TraceOut, TimingOut, BlocksOut;
  /// The skeleton trace probe (docs/skeleton.md), and beside it FILE.removed, the statements
  /// it leaves out. The model must have been sliced (C: CFrontendOptions::Skeleton; Fortran:
  /// sliceFortran).
  std::string SkeletonOut;
  /// Written instead of the other files when the unit makes no MPI call mpiete rewrites (or
  /// could not be analysed): a one-line note; the wrapper then builds the unit natively.
  std::string NativeOut;
  Print Show = Print::Trace;
  /// The timing variant gets the sampled loops' hooks (docs/probes.md, "Sampled loops"; the
  /// instrumenter's --sample-loops, mpiete-cc/-fc's --mpiete-sample-loops or
  /// MPIETE_SAMPLE_LOOPS=1). Off, the loops keep their blocks (the ids stay the same) but no hook:
  /// a call in a loop nest can cost the compiled code far more than its own time (f90-moddata's
  /// timing probe ran 1.6 times as long with the hooks idle).
  bool SampleHooks = false;

  bool toFiles() const {
    return !TraceOut.empty() || !TimingOut.empty() || !BlocksOut.empty() || !NativeOut.empty() ||
           !SkeletonOut.empty();
  }
};

/// Writes the native note (`native: <Reason>`) to Path; false (reported) when it cannot.
bool writeNativeNote(const std::string &Path, const std::string &Reason, DiagnosticSink &Diags);

/// Writes the outputs of a unit analysed into Model from Text: its block map (a program of this
/// one unit, named Program) and its instrumented variants in the unit's language. Every named
/// file or none: the variants are made first (conflicting edits are an error naming Program),
/// then all files are staged beside their targets and renamed over them only when all were
/// written, so a reader never sees half a file and make never sees half a unit. Without files,
/// the chosen output goes to OS. A unit without MPI calls to rewrite, given NativeOut, gets
/// only that note. Reports to Diags; false on any error.
bool writeUnitOutputs(const UnitModel &Model, const std::string &Text, const std::string &Program,
                      const UnitOutputs &Out, std::ostream &OS, DiagnosticSink &Diags);

} // namespace mpiete

#endif
