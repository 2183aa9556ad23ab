// What differs between the two runtime variants. The shared objects call these; exactly one
// per-variant file (Trace.cpp or Timing.cpp) defines them in each library.
#ifndef MPIETE_RUNTIME_VARIANT_H
#define MPIETE_RUNTIME_VARIANT_H

#include <cstdio>

namespace mpiete::variant {

extern const char Name[];   // "trace" or "timing": the output header line
extern const char Suffix[]; // "counts" or "timing": the output file's extension
extern const bool HasTime;  // block and loop lines end with the total nanoseconds

/// An MPI entry point starts / returns (the timing variant pauses the running compute block).
void mpiEnter();
void mpiExit();

/// Optional: more `# ...` lines after the output file's header (the timing variant's
/// provenance and timer overhead). Weak, so a variant without any leaves it null.
void writeHeaderExtra(std::FILE *F) __attribute__((weak));

} // namespace mpiete::variant

namespace mpiete {

/// Brackets the body of every MPI entry point.
class MpiScope {
public:
  MpiScope() { variant::mpiEnter(); }
  ~MpiScope() { variant::mpiExit(); }
  MpiScope(const MpiScope &) = delete;
  MpiScope &operator=(const MpiScope &) = delete;
};

} // namespace mpiete

#endif // MPIETE_RUNTIME_VARIANT_H
