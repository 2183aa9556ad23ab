// Whole-or-nothing output files (support/include/mpiete/support/Files.h).
#include "mpiete/support/Files.h"

#include "mpiete/support/Diagnostics.h"

#include <cstdio>
#include <fstream>

namespace mpiete {

bool writeFileAtomically(const std::string &Path, const std::string &Text, DiagnosticSink &Diags) {
  std::string Tmp = Path + ".tmp";
  {
    std::ofstream OS(Tmp, std::ios::binary);
    OS << Text;
    if (!OS) {
      Diags.error({Path, 0, 0}, "cannot write file", "driver");
      return false;
    }
  }
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    Diags.error({Path, 0, 0}, "cannot write file", "driver");
    return false;
  }
  return true;
}

} // namespace mpiete
