// Formats diagnostics in the one shape every mpiete tool prints.
#include "mpiete/support/Diagnostics.h"

#include <sstream>

namespace mpiete {

void DiagnosticSink::report(const DiagLoc &Loc, Severity Sev, std::string_view Message,
                            std::string_view Category) {
  std::ostringstream Line;
  Line << Loc.File;
  if (Loc.Line != 0) {
    Line << ':' << Loc.Line;
    if (Loc.Col != 0)
      Line << ':' << Loc.Col;
  }
  switch (Sev) {
  case Severity::Error:
    Line << ": error: ";
    ++Errors;
    break;
  case Severity::Warning:
    ++Warnings;
    if (HideWarnings)
      return;
    Line << ": warning: ";
    break;
  case Severity::Note:
    Line << ": note: ";
    break;
  }
  Line << Message;
  if (!Category.empty())
    Line << " [mpiete-" << Category << ']';
  Line << '\n';
  std::string Text = std::move(Line).str();
  if (Recorded && !Recorded->insert(Text).second && Skip)
    return;
  OS << Text;
  OS.flush();
}

} // namespace mpiete
