// Small helpers the driver's subcommands share.
#include "CommandUtil.h"

#include <iostream>

namespace mpiete {

std::filesystem::path selfBinDir() {
  std::error_code EC;
  std::filesystem::path Self = std::filesystem::read_symlink("/proc/self/exe", EC);
  return EC ? std::filesystem::path(".") : Self.parent_path();
}

int commandError(std::string_view Message, int Status) {
  std::cerr << "mpiete: error: " << Message << '\n';
  return Status;
}

std::optional<uint64_t> parseByteCount(std::string_view Text) {
  size_t I = 0;
  uint64_t V = 0;
  while (I < Text.size() && Text[I] >= '0' && Text[I] <= '9') {
    if (V > (UINT64_MAX - 9) / 10)
      return std::nullopt;
    V = V * 10 + static_cast<uint64_t>(Text[I++] - '0');
  }
  if (I == 0)
    return std::nullopt;
  std::string_view Unit = Text.substr(I);
  uint64_t Scale = 1;
  if (Unit.empty() || Unit == "B")
    Scale = 1;
  else if (Unit == "k" || Unit == "K" || Unit == "KiB")
    Scale = 1ULL << 10;
  else if (Unit == "M" || Unit == "MiB")
    Scale = 1ULL << 20;
  else if (Unit == "G" || Unit == "GiB")
    Scale = 1ULL << 30;
  else
    return std::nullopt;
  if (V > UINT64_MAX / Scale)
    return std::nullopt;
  return V * Scale;
}

} // namespace mpiete
