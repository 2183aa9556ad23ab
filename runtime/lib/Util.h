// Small pieces the runtime's files share: a grow-only scratch array and mkdir -p, both usable
// without exceptions and without allocating on the hot path.
#ifndef MPIETE_RUNTIME_UTIL_H
#define MPIETE_RUNTIME_UTIL_H

#include <cstddef>
#include <cstdlib>

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

} // namespace mpiete

#endif // MPIETE_RUNTIME_UTIL_H
