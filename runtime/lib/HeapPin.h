// The timing variant keeps the top of the C heap occupied at MPI calls, as a real MPI
// library's own allocations do (docs/probes.md, "The heap").
#ifndef MPIETE_RUNTIME_HEAPPIN_H
#define MPIETE_RUNTIME_HEAPPIN_H

#include <cstdint>

namespace mpiete::heap {

/// Turns pinning on (MPIETE_HEAP=kept, the default) or leaves it off (native, or a C library
/// other than glibc); called by the thread that initialises MPI.
void enable();

/// "kept" or "native" once enable() ran, for the timing file's header; null before.
const char *mode();

extern bool Enabled;
void pinIfGrown();

/// At an MPI call's entry, outside the segment's time: if the program's heap grew since the
/// last pin, a page of break above it (one sbrk system call; otherwise a load and a compare).
inline void atMpiCall() {
  if (Enabled) [[unlikely]]
    pinIfGrown();
}

/// How many times the heap was pinned (the timing file's `# heap-pins` comment).
uint64_t pins();

} // namespace mpiete::heap

#endif // MPIETE_RUNTIME_HEAPPIN_H
