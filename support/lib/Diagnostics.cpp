// Formats diagnostics in the one shape every mpiete tool prints.
#include "mpiete/support/Diagnostics.h"

namespace mpiete {

void DiagnosticSink::report(const DiagLoc &Loc, Severity Sev, std::string_view Message,
                            std::string_view Category) {
  OS << Loc.File;
  if (Loc.Line != 0) {
    OS << ':' << Loc.Line;
    if (Loc.Col != 0)
      OS << ':' << Loc.Col;
  }
  switch (Sev) {
  case Severity::Error:
    OS << ": error: ";
    ++Errors;
    break;
  case Severity::Warning:
    OS << ": warning: ";
    ++Warnings;
    break;
  case Severity::Note:
    OS << ": note: ";
    break;
  }
  OS << Message;
  if (!Category.empty())
    OS << " [mpiete-" << Category << ']';
  OS << '\n';
  OS.flush();
}

} // namespace mpiete
