// The one diagnostic sink: `file:line:col: error|warning|note: message [mpiete-<category>]`.
#ifndef MPIETE_SUPPORT_DIAGNOSTICS_H
#define MPIETE_SUPPORT_DIAGNOSTICS_H

#include <ostream>
#include <string>
#include <string_view>
#include <unordered_set>

namespace mpiete {

enum class Severity { Note, Warning, Error };

/// Where a diagnostic points. A location without a line names a file or a tool ("mpiete-cc").
struct DiagLoc {
  std::string File;
  unsigned Line = 0;
  unsigned Col = 0;
};

class DiagnosticSink {
public:
  explicit DiagnosticSink(std::ostream &OS) : OS(OS) {}

  void report(const DiagLoc &Loc, Severity Sev, std::string_view Message,
              std::string_view Category);
  void error(const DiagLoc &Loc, std::string_view Message, std::string_view Category) {
    report(Loc, Severity::Error, Message, Category);
  }
  void warning(const DiagLoc &Loc, std::string_view Message, std::string_view Category) {
    report(Loc, Severity::Warning, Message, Category);
  }
  void note(const DiagLoc &Loc, std::string_view Message, std::string_view Category) {
    report(Loc, Severity::Note, Message, Category);
  }

  unsigned errorCount() const { return Errors; }
  unsigned warningCount() const { return Warnings; }

  /// Records every line printed in Lines; with SkipRecorded, a line already in it is counted
  /// but not printed again (a command that starts over, as whatif after a replay that blocked,
  /// says each thing once).
  void recordLines(std::unordered_set<std::string> &Lines, bool SkipRecorded) {
    Recorded = &Lines;
    Skip = SkipRecorded;
  }
  /// Counts warnings without printing them (a second pass over a unit whose first pass said
  /// them: mpiete-cc's link-time re-slice).
  void hideWarnings() { HideWarnings = true; }
  /// Prints every line from here on, recorded or not.
  void stopRecording() {
    Recorded = nullptr;
    Skip = false;
  }

private:
  std::ostream &OS;
  std::unordered_set<std::string> *Recorded = nullptr;
  bool Skip = false;
  bool HideWarnings = false;
  unsigned Errors = 0;
  unsigned Warnings = 0;
};

} // namespace mpiete

#endif
