// Why and how: docs/probes.md, "The heap".
//
// glibc gives the top of its main heap back to the kernel (systrim) when enough of it is free,
// but only while the program break is where glibc last put it: its own check for foreign sbrk
// calls. A real MPI library allocates at its calls (request free lists, fragments, grown on
// demand and never given back), and such an allocation lands above the program's buffers and
// keeps the top occupied. The token machine allocates nothing on the C heap, so here a page
// of break above the heap, taken at an MPI call whenever the heap grew since the last one,
// plays that part: glibc then no longer trims below it, and when it grows the heap again it
// continues above the page (its non-contiguous path: the old top becomes a free chunk). Only
// the break moves; glibc's thresholds, and so where the program's large blocks live (mapped or
// on the heap), stay the real run's.
//
// sbrk is not thread-safe: it is only called from the thread that initialised MPI, the thread
// glibc's main arena (the one heap that uses the break) serves; other threads get arenas of
// their own.
#include "HeapPin.h"

#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

namespace mpiete::heap {

constinit bool Enabled = false;

namespace {
constinit const void *Pinned = nullptr; // the break after the last pin
constinit uint64_t Pins = 0;
constinit long Page = 4096;
constinit const char *Mode = nullptr;
pthread_t InitThread;
} // namespace

void enable() {
  Mode = "native";
#if defined(__GLIBC__)
  const char *Want = std::getenv("MPIETE_HEAP");
  if (Want != nullptr && std::strcmp(Want, "native") == 0)
    return;
  InitThread = pthread_self();
  if (const long P = sysconf(_SC_PAGESIZE); P > 0)
    Page = P;
  Pinned = sbrk(0);
  Enabled = Pinned != reinterpret_cast<void *>(-1);
  if (Enabled)
    Mode = "kept";
#endif
}

const char *mode() { return Mode; }

void pinIfGrown() {
  const void *Now = sbrk(0); // glibc: the cached break, no system call
  if (Now == Pinned || !pthread_equal(pthread_self(), InitThread))
    return;
  if (sbrk(Page) == reinterpret_cast<void *>(-1)) {
    Enabled = false; // no more break to take: leave the heap as glibc runs it
    return;
  }
  Pinned = sbrk(0);
  ++Pins;
}

uint64_t pins() { return Pins; }

} // namespace mpiete::heap
