// The wrapper's command line: NUL-separated arguments through parseWrapperCommand (both
// languages) and the option table, then the argument lists derived from it.
#include "mpiete/frontend/CompilerOptions.h"
#include "mpiete/tools/CompilerWrapper.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::vector<std::string> Args(1);
  for (size_t I = 0; I < Size && Args.size() < 256; ++I) {
    if (Data[I] == 0)
      Args.emplace_back();
    else
      Args.back() += char(Data[I]);
  }
  (void)mpiete::parseCompilerArgs(Args);
  (void)mpiete::unitDefines(Args);
  (void)mpiete::parsingArgs(Args);
  (void)mpiete::flangAnalysisFlags(Args);
  for (auto Lang : {mpiete::WrapperLanguage::C, mpiete::WrapperLanguage::Fortran}) {
    mpiete::WrapperCommand Cmd = mpiete::parseWrapperCommand(Args, Lang);
    (void)mpiete::variantCompileFlags(Cmd);
    (void)mpiete::instrumenterFlags(Cmd);
    (void)Cmd.output();
    for (size_t S : Cmd.Sources)
      (void)mpiete::objectFor(Cmd, Cmd.Native.at(S));
  }
  return 0;
}
