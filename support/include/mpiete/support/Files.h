// Writing the tools' output files: whole or not at all.
#ifndef MPIETE_SUPPORT_FILES_H
#define MPIETE_SUPPORT_FILES_H

#include <string>

namespace mpiete {

class DiagnosticSink;

/// Writes Text to Path through a temporary file renamed over it, so a reader never sees half a
/// file; reports `Path: error: cannot write file` and returns false on failure.
bool writeFileAtomically(const std::string &Path, const std::string &Text, DiagnosticSink &Diags);

} // namespace mpiete

#endif
