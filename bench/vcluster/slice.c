/* vcslice: runs a command, or spins, with a short scheduler slice (EEVDF custom slice, Linux
 * 6.12 and later) so that two tasks sharing one CPU alternate every SLICE_US microseconds.
 *   vcslice SLICE_US COMMAND ARGS...   sets the slice (inherited by children) and execs
 *   vcslice SLICE_US --hog             a hog: sleeps until SIGUSR1, spins until SIGUSR2, ...
 * A slow host of `up --cpu share` is its ranks and one hog on one CPU: the hog takes the
 * CPU time a slower machine would not have, in slices of 100 us instead of the CFS quota's
 * stops of several milliseconds (docs/vcluster.md). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct SchedAttr { /* the kernel's struct sched_attr (glibc has no wrapper) */
  unsigned Size, Policy;
  unsigned long long Flags;
  int Nice;
  unsigned Priority;
  unsigned long long Runtime, Deadline, Period;
  unsigned UtilMin, UtilMax;
};

static volatile sig_atomic_t On;
static void turnOn(int Sig) {
  (void)Sig;
  On = 1;
}
static void turnOff(int Sig) {
  (void)Sig;
  On = 0;
}

/* Sleeps (not stopped: a stopped process in a process group that loses its parent gets
 * SIGHUP and SIGCONT from the kernel) until turned on, spins until turned off. */
static void hog(void) {
  sigset_t Both, Old;
  sigemptyset(&Both);
  sigaddset(&Both, SIGUSR1);
  sigaddset(&Both, SIGUSR2);
  signal(SIGHUP, SIG_IGN);
  signal(SIGUSR1, turnOn);
  signal(SIGUSR2, turnOff);
  sigprocmask(SIG_BLOCK, &Both, &Old);
  for (;;) {
    while (!On)
      sigsuspend(&Old);
    sigprocmask(SIG_SETMASK, &Old, NULL);
    while (On)
      ;
    sigprocmask(SIG_BLOCK, &Both, NULL);
  }
}

int main(int Argc, char **Argv) {
  if (Argc < 3) {
    fprintf(stderr, "usage: vcslice SLICE_US (COMMAND ARGS... | --hog)\n");
    return 2;
  }
  struct SchedAttr A;
  memset(&A, 0, sizeof A);
  A.Size = sizeof A;
  A.Policy = 0; /* SCHED_OTHER: sched_runtime is the task's slice */
  A.Runtime = (unsigned long long)(atof(Argv[1]) * 1000);
  if (syscall(SYS_sched_setattr, 0, &A, 0) != 0) {
    perror("vcslice: sched_setattr (a custom slice needs Linux 6.12 or later)");
    return 1;
  }
  if (strcmp(Argv[2], "--hog") == 0)
    hog();
  execvp(Argv[2], Argv + 2);
  perror("vcslice: exec");
  return 127;
}
