// The comm probe's text output; what reads is fitted as probe-comm would.
#include "FuzzInput.h"
#include "mpiete/basedata/CommProbe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  mpiete::CommProbeOutput Out;
  if (mpiete::parseCommProbeOutput(Text, Out).empty())
    (void)mpiete::fitLogGps(Out);
  return 0;
}
