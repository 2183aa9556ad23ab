// The trace variant's status file for probe-program's watchdog (mpiete/RankStatus.h): off
// (one predictable branch per MPI call) unless MPIETE_STATUS_DIR is set.
#ifndef MPIETE_RUNTIME_RANKSTATUS_H
#define MPIETE_RUNTIME_RANKSTATUS_H

#include "mpiete/RankStatus.h"
#include "mpiete/instrument.h"

namespace mpiete::status {

extern constinit RankStatus *Shared; // the mapping, null when off
extern constinit bool Decided;
void openFile();

/// The outermost MPI call at Site starts / returns (Rank: the process's rank, -1 if unknown).
inline void enter(mpiete_site_t Site) {
  if (!Decided) [[unlikely]]
    openFile();
  if (RankStatus *S = Shared) {
    __atomic_store_n(&S->Site, Site, __ATOMIC_RELAXED);
    __atomic_store_n(&S->State, static_cast<uint32_t>(InCall), __ATOMIC_RELAXED);
    __atomic_store_n(&S->Calls, S->Calls + 1, __ATOMIC_RELEASE);
  }
}
inline void leave(int Rank) {
  if (RankStatus *S = Shared) {
    __atomic_store_n(&S->Rank, Rank, __ATOMIC_RELAXED);
    __atomic_store_n(&S->State, static_cast<uint32_t>(Outside), __ATOMIC_RELAXED);
    __atomic_store_n(&S->Calls, S->Calls + 1, __ATOMIC_RELEASE);
  }
}

} // namespace mpiete::status

#endif // MPIETE_RUNTIME_RANKSTATUS_H
