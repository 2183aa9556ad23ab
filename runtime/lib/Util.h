// Small pieces the runtime's files share: a grow-only scratch array, mkdir -p, the monotonic
// clock in nanoseconds and a message's byte count, all usable without exceptions and without
// allocating on the hot path.
#ifndef MPIETE_RUNTIME_UTIL_H
#define MPIETE_RUNTIME_UTIL_H

#include "mpiete/instrument.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>

namespace mpiete {

/// Prints `mpiete: rank N: error: ...` and aborts the job (Recorder::fail); declared here so
/// the template below needs no more than this header.
[[noreturn]] void failOutOfMemory(const char *What, size_t Entries);

/// A grow-only array reused across calls (the runtime is single-threaded), so the completion
/// routines allocate only when a call needs more entries than any before it. Constant-
/// initialised, so it can live in a `constinit` global.
template <class T> class Scratch {
public:
  T *get(int N) {
    if (N > 0 && static_cast<size_t>(N) > Capacity) {
      const size_t NewCapacity = static_cast<size_t>(N) * 2;
      T *P = static_cast<T *>(std::realloc(Items, NewCapacity * sizeof(T)));
      if (P == nullptr)
        failOutOfMemory("scratch entries", NewCapacity);
      Items = P;
      Capacity = NewCapacity;
    }
    return Items;
  }

private:
  T *Items = nullptr;
  size_t Capacity = 0;
};

/// mkdir -p: creates Path and its missing parents. Returns false with errno set on failure.
bool makeDirs(const char *Path);

/// CLOCK_MONOTONIC in nanoseconds.
inline uint64_t nowNs() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return static_cast<uint64_t>(Ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(Ts.tv_nsec);
}

/// The bytes of Count elements of Type (0 for a non-positive count or an unusable type).
inline uint64_t bytesOf(long long Count, MPI_Datatype Type) {
  int Size = 0;
  if (Count <= 0 || PMPI_Type_size(Type, &Size) != MPI_SUCCESS || Size < 0)
    return 0;
  return static_cast<uint64_t>(Count) * static_cast<uint64_t>(Size);
}

} // namespace mpiete

#endif // MPIETE_RUNTIME_UTIL_H
