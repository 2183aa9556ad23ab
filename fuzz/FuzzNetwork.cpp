// network.yaml: both readers (the LogGPS parameters with the table, the pairs' bandwidth).
#include "FuzzInput.h"
#include "mpiete/basedata/NetworkFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
  mpiete::NetworkFile F;
  mpiete::parseNetworkFile("network.yaml", Text, F, Diags,
                           mpiete::NetworkLogGps | mpiete::NetworkTable);
  mpiete::NetworkPairs P;
  mpiete::parseNetworkPairs("network.yaml", Text, P, Diags);
  return 0;
}
