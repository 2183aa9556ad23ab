// This machine's cache sizes for seed 001's steps: sysfs, else the C library's CPUID reading.
#include "mpiete/scaling/Caches.h"

#include <algorithm>
#include <fstream>
#include <unistd.h>

namespace mpiete::scaling {

namespace {
void sortUnique(std::vector<double> &V) {
  std::sort(V.begin(), V.end());
  V.erase(std::unique(V.begin(), V.end()), V.end());
}
} // namespace

std::vector<double> sysfsCacheSizes(const std::string &Dir) {
  std::vector<double> Out;
  for (int K = 0; K < 16; ++K) {
    const std::string Index = Dir + "/index" + std::to_string(K) + "/";
    std::ifstream Type(Index + "type"), Size(Index + "size");
    std::string T, S;
    if (!(Type >> T) || !(Size >> S))
      continue;
    if (T == "Instruction" || S.empty())
      continue;
    double Mult = 1;
    const char Unit = S.back();
    if (Unit == 'K' || Unit == 'M' || Unit == 'G') {
      Mult = Unit == 'K' ? 1024.0 : Unit == 'M' ? 1048576.0 : 1073741824.0;
      S.pop_back();
    }
    try {
      Out.push_back(std::stod(S) * Mult);
    } catch (...) {
    }
  }
  sortUnique(Out);
  return Out;
}

std::vector<double> libcCacheSizes() {
  std::vector<double> Out;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) &&                           \
    defined(_SC_LEVEL3_CACHE_SIZE)
  for (int Name : {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE}) {
    const long V = sysconf(Name);
    if (V > 0)
      Out.push_back(double(V));
  }
#endif
  sortUnique(Out);
  return Out;
}

std::vector<double> machineCacheSizes(const std::string &Dir, std::string &From) {
  std::vector<double> Out = sysfsCacheSizes(Dir);
  From = Dir;
  if (Out.empty()) {
    Out = libcCacheSizes();
    From = Out.empty() ? "" : "sysconf";
  }
  return Out;
}

} // namespace mpiete::scaling
