// machine.yaml (all ranks, and a subset of them).
#include "FuzzInput.h"
#include "mpiete/basedata/MachineFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  mpiete::DiagnosticSink Diags(mpiete::fuzz::nullStream());
  mpiete::MachineFile M;
  mpiete::parseMachineFile("machine.yaml", Text, M, Diags);
  std::vector<int> Only{1};
  mpiete::parseMachineFile("machine.yaml", Text, M, Diags, &Only);
  return 0;
}
