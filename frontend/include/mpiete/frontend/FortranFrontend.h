// The Fortran frontend: builds the program model of one Fortran unit from Flang's parse tree.
#ifndef MPIETE_FRONTEND_FORTRANFRONTEND_H
#define MPIETE_FRONTEND_FORTRANFRONTEND_H

#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/frontend/BlockPartition.h"
#include "mpiete/support/Diagnostics.h"

#include <string>
#include <vector>

namespace Fortran::parser {
class Parsing;
} // namespace Fortran::parser

namespace mpiete {

class DiagnosticSink;

struct FortranFrontendOptions {
  /// Path recorded for the unit (ids, block map, diagnostics); the file Flang read when empty.
  std::string UnitPath;
  /// The -D/-U options that make this unit distinct (part of the unit id).
  std::vector<std::string> Defines;
  /// MPI routines to leave uninstrumented (with a warning) instead of rejecting them.
  std::vector<std::string> PassThrough;
  bool PassThroughAll = false;
  /// Where Flang writes this unit's module files, and where it looks for others: the
  /// communication facts of module procedures go beside them (<module>.mpiete).
  std::string ModuleDir;
  std::vector<std::string> ModuleSearchDirs;
  bool FixedForm = false;
  unsigned FixedColumns = 72;
  /// Segments (the default): no compute blocks, DO loops that contain MPI calls get iteration
  /// and exit hooks. Seed (and Coarse, which Fortran does not distinguish): seed 004's blocks.
  Partition Mode = Partition::Segments;
};

/// A module file on the search path that Flang cannot read (gfortran's), met at a USE.
struct ForeignModule {
  std::string Module, Path;
  DiagLoc Use;
};

/// Before semantics: rejects what mpiete cannot analyse at all (`use pmpi_f08`), with a
/// located error, and a USE whose module file Flang cannot read: an error too, unless Foreign
/// is given, which then receives the first such module. A call of a routine mpiete rewrites
/// whose only keyword is a last `ierror=` loses the keyword in the parse tree (the analysis
/// modules give the routines no explicit interface, which a keyword needs; the instrumented
/// text drops it as well). Returns false on any error.
bool checkFortranParseTree(Fortran::parser::Parsing &Parsing, const FortranFrontendOptions &Opts,
                           DiagnosticSink &Diags, ForeignModule *Foreign = nullptr);

/// After semantics: fills Model from the parse tree; MainText receives the main file's bytes,
/// the text the transforms edit. Returns false on any error.
bool analyzeFortran(Fortran::parser::Parsing &Parsing, const FortranFrontendOptions &Opts,
                    UnitModel &Model, std::string &MainText, DiagnosticSink &Diags);

/// Whether the main file Flang read holds a task directive (`!$mpiete ...`, docs/taskfarm.md):
/// said in the warning for a file mpiete-fc cannot analyse, whose directives then stay comments.
bool hasTaskDirectives(Fortran::parser::Parsing &Parsing, bool FixedForm);

} // namespace mpiete

#endif
