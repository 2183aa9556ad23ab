// The per-process status file the trace runtime keeps current at every MPI call when
// MPIETE_STATUS_DIR is set, read by `mpiete probe-program --hang-timeout` to tell a job that
// stopped making progress and where each rank waits (docs/robustness.md, issue 14 finding 8).
// Header-only, no dependencies beyond <cstdint>: the runtime writes it through a shared
// mapping, the driver reads the file, both on the same host.
#ifndef MPIETE_RANKSTATUS_H
#define MPIETE_RANKSTATUS_H

#include <cstdint>

namespace mpiete::status {

/// The file is `status.<pid>` in MPIETE_STATUS_DIR (named by process: the rank is known only
/// once MPI_Init returned), exactly sizeof(RankStatus) bytes.
inline constexpr char FilePrefix[] = "status.";
inline constexpr uint64_t Magic = 0x3154535445495050; // "PPIETST1" little-endian

enum State : uint32_t {
  Outside = 0, ///< running its own code since Site returned
  InCall = 1,  ///< inside the outermost MPI call at Site
};

struct RankStatus {
  uint64_t Magic;
  int64_t Pid;
  int32_t Rank;   ///< -1 until MPI_Init returned
  uint32_t State; ///< a State
  uint64_t Site;  ///< the block id of the current (InCall) or last MPI call; 0 before any
  uint64_t Calls; ///< MPI entries and exits so far: the driver's measure of progress
};

} // namespace mpiete::status

#endif // MPIETE_RANKSTATUS_H
