// blocks.yaml (the reader takes a path); a map that reads is fingerprinted too.
#include "FuzzInput.h"
#include "mpiete/basedata/BlockMap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Path = mpiete::fuzz::asFile(Data, Size, ".blocks.yaml");
  mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
  mpiete::BlockMap M;
  if (mpiete::readBlockMap(Path, M, Diags))
    (void)M.fingerprint();
  return 0;
}
