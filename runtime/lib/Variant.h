// What differs between the two runtime variants. The shared objects call these; exactly one
// per-variant file (Trace.cpp or Timing.cpp) defines them in each library.
#ifndef MPIETE_RUNTIME_VARIANT_H
#define MPIETE_RUNTIME_VARIANT_H

#include "mpiete/instrument.h"

#include <cstdio>

namespace mpiete::variant {

extern const char Name[];   // "trace" or "timing": the output header line
extern const char Suffix[]; // "counts" or "timing": the output file's extension
extern const bool HasTime;  // block and loop lines end with the total nanoseconds

/// An MPI entry point at Site starts / returns (the timing variant pauses the running compute
/// block and times segments; the trace variant marks call boundaries). Outermost: not nested
/// in another MPI entry point of this process.
void mpiEnter(mpiete_site_t Site, bool Outermost);
void mpiExit(mpiete_site_t Site, bool Outermost);

/// Optional: more `# ...` lines after the output file's header (the timing variant's
/// provenance and timer overhead). Weak, so a variant without any leaves it null.
void writeHeaderExtra(std::FILE *F) __attribute__((weak));
/// Optional: lines after the block lines (the timing variant's segments).
void writeTrailer(std::FILE *F) __attribute__((weak));

} // namespace mpiete::variant

namespace mpiete {

/// MPI entry points running now (nested: an interposed call made from inside another).
inline constinit int MpiDepth = 0;

/// Brackets the body of every MPI entry point; Site is its call site (an interposed call's
/// pseudo site for code mpiete-cc did not build).
class MpiScope {
public:
  explicit MpiScope(mpiete_site_t Site) : Site(Site), Outermost(MpiDepth++ == 0) {
    variant::mpiEnter(Site, Outermost);
  }
  ~MpiScope() {
    --MpiDepth;
    variant::mpiExit(Site, Outermost);
  }
  MpiScope(const MpiScope &) = delete;
  MpiScope &operator=(const MpiScope &) = delete;

private:
  mpiete_site_t Site;
  bool Outermost;
};

} // namespace mpiete

#endif // MPIETE_RUNTIME_VARIANT_H
