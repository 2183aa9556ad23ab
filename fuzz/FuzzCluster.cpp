// cluster.yaml.
#include "FuzzInput.h"
#include "mpiete/basedata/ClusterFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
  mpiete::ClusterSpec S;
  mpiete::parseClusterSpec("cluster.yaml", Text, S, Diags);
  return 0;
}
