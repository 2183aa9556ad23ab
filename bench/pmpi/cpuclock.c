/* LD_PRELOAD shim for bench/overhead --clock cpu: CLOCK_MONOTONIC read as the thread CPU clock. */
/*
 * Loaded into the timing probe's ranks only (mpiete probe-compute ... -x LD_PRELOAD=...), it
 * turns machine.yaml's segment times into the CPU time each rank's thread spent in the segment,
 * so that they can be compared with the original's CPU time outside MPI (pmpiclock.c) on a
 * machine other processes load: time a rank waits for a processor then counts on neither side.
 * The runtime reads the clock through libc's clock_gettime (runtime/lib/Util.h, nowNs), which
 * this definition interposes; the CPU clock is a system call (about 0.3-1 us more per read).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

int clock_gettime(clockid_t Id, struct timespec *Ts) {
  static int (*Real)(clockid_t, struct timespec *);
  if (Real == NULL)
    Real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  return Real(Id == CLOCK_MONOTONIC ? CLOCK_THREAD_CPUTIME_ID : Id, Ts);
}
