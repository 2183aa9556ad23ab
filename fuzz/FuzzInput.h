// Shared by the fuzz targets: a diagnostic sink that prints nothing, and the input as a file
// for the readers that only read paths.
#pragma once

#include "mpiete/support/Diagnostics.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace mpiete::fuzz {

inline std::ostringstream &nullStream() {
  static std::ostringstream S;
  S.str("");
  return S;
}

/// A per-process scratch file holding the input (readers that open a path).
inline std::string asFile(const uint8_t *Data, size_t Size, const char *Suffix) {
  // Removed when the process ends (a fuzzer run leaves no scratch file behind).
  static const struct Scratch {
    std::string Path;
    ~Scratch() { std::remove(Path.c_str()); }
  } File{"/tmp/mpiete-fuzz-" + std::to_string(getpid()) + std::string(Suffix)};
  const std::string &Path = File.Path;
  std::ofstream(Path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char *>(Data), std::streamsize(Size));
  return Path;
}

} // namespace mpiete::fuzz
