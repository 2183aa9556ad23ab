// A rank's timing file (the reader takes a path).
#include "FuzzInput.h"
#include "mpiete/basedata/TimingFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Path = mpiete::fuzz::asFile(Data, Size, ".timing");
  mpiete::RankTiming T;
  if (mpiete::readRankTiming(Path, 0, T).empty())
    (void)mpiete::machineRankOf(T);
  return 0;
}
