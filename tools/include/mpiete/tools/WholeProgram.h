// The whole program's skeleton facts at link time (docs/skeleton.md, "Whole program"): which
// procedures may communicate, solved over every unit's link summary.
#ifndef MPIETE_TOOLS_WHOLEPROGRAM_H
#define MPIETE_TOOLS_WHOLEPROGRAM_H

#include "mpiete/basedata/LinkSummary.h"

#include <map>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

/// The program's summary from its units': a procedure may communicate when it does by itself,
/// or calls (through any chain of units) one that does or one no unit defines (a library's:
/// unknown, so it may). Effects are the units' own (each unit's were taken with the knowledge
/// the previous round had); Steered is the union. A name defined by two units is left out
/// (unknown: the linker decides which one runs).
LinkSummary solveProgram(const std::vector<LinkSummary> &Units);

/// A link input mpiete-cc built: its sidecar prefix (Prefix.skeleton.summary, .recipe,
/// .skeleton.o) and whether it has probes (else it was built natively: no MPI calls).
struct WholeProgramUnit {
  std::string Prefix;
  bool Instrumented = false;
};

struct WholeProgramSkeleton {
  /// Unit prefix -> its whole-program skeleton object, and the list of the statements that
  /// skeleton leaves out (SOURCE.removed).
  std::map<std::string, std::string> Skeletons, Removed;
  unsigned Rounds = 0;
};

/// Re-slices the units of a program every input of which is one of Units: solves the program
/// (solveProgram), re-runs the instrumenter on each instrumented unit (and each natively built
/// one that calls other units' procedures) with the program's summary, and again
/// while the program's summary changes (at most three rounds: each is sound), then compiles
/// the new skeletons under OutPrefix. A unit whose source changed since it was compiled, or
/// whose re-run fails, keeps its per-unit skeleton (a note or a warning); a unit without its
/// summary or recipe makes the whole program per unit (said on stderr under Tool's name when
/// Verbose). Returns whether any unit was re-sliced.
bool linkWholeProgram(const std::vector<WholeProgramUnit> &Units, const std::string &OutPrefix,
                      const std::string &Instrumenter, const std::string &Tool, bool Verbose,
                      DiagnosticSink &Diags, WholeProgramSkeleton &Out);

} // namespace mpiete

#endif
