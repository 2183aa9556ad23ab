// Small helpers the driver's subcommands share: where mpiete is installed, error lines, sizes.
#ifndef MPIETE_TOOLS_LIB_COMMANDUTIL_H
#define MPIETE_TOOLS_LIB_COMMANDUTIL_H

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mpiete {

/// The directory of the running executable (<prefix>/bin), or "." if unknown.
std::filesystem::path selfBinDir();

/// Prints `mpiete: error: Message` (the driver's diagnostics have no source location).
int commandError(std::string_view Message, int Status = 1);

/// Parses a byte count: digits with an optional binary unit (k, K, KiB, M, MiB, G, GiB).
std::optional<uint64_t> parseByteCount(std::string_view Text);

} // namespace mpiete

#endif
