/* How fast one processor computes depending on what the other one does (bench/overhead --partner).
 */
/*
 * The timing probe runs one rank at a time: while a rank computes, the other ranks' processors
 * wait (an idle-priority thread spinning without PAUSE, MPIETE_WAIT=busy, the default since
 * session 55; with PAUSE, MPIETE_WAIT=spin; or halted, MPIETE_WAIT=sleep). In the real run
 * both ranks compute at once. This program asks whether that alone changes a rank's compute
 * speed on this machine, without MPI and without the probe:
 * thread A, on the first processor, sweeps wavefront's blocks (test-programs/wavefront: the
 * same SOR update in 64-column blocks of a 1024-row strip, the point update out of line as gcc
 * -O2 leaves it there) and times every block; thread B, on the second processor, does one of
 *   idle     blocks in sem_wait (its processor halts, as a sleeping rank's)
 *   pause    spins on a flag with PAUSE (the probe's spinner until session 54)
 *   spin     spins on a flag without PAUSE (Open MPI's polling loop has none; the probe's since)
 *   compute  sweeps a strip of its own with the same code (the real run's partner)
 * The condition changes every sweep, in rotation, so that a drift of the machine (other
 * processes, the host) spreads over all four alike. Prints, per condition, the blocks' median
 * and 10th percentile and the median's ratio to "compute"'s.
 *
 *   cc -O2 -pthread -o partner partner.c && ./partner [sweeps=200] [cpuA=0] [cpuB=1]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sweep.h"

enum { Rows = 1024, NConds = 4 };
static const char *CondName[NConds] = {"idle", "pause", "spin", "compute"};

static void relaxBlock(Strip *S, int B) { relaxRows(S, B, 1, Rows); }

static void pin(int Cpu) {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(Cpu, &Set);
  if (pthread_setaffinity_np(pthread_self(), sizeof Set, &Set) != 0) {
    fprintf(stderr, "partner: cannot pin to processor %d\n", Cpu);
    exit(1);
  }
}

static atomic_int Cond = -1; /* what B does now; -2: exit */
static sem_t Go;
static int CpuB = 1;

static void *partner(void *Arg) {
  (void)Arg;
  pin(CpuB);
  Strip S;
  makeStrip(&S, Rows);
  for (;;) {
    sem_wait(&Go);
    const int C = atomic_load(&Cond);
    if (C == -2)
      return NULL;
    if (C == 0)
      continue; /* idle: back into sem_wait until the next condition */
    int B = 0;
    while (atomic_load_explicit(&Cond, memory_order_relaxed) == C) {
      if (C == 1)
        __builtin_ia32_pause();
      else if (C == 3)
        relaxBlock(&S, B++ % NBlocks);
    }
  }
}

int main(int Argc, char **Argv) {
  const int Sweeps = Argc > 1 ? atoi(Argv[1]) : 200;
  const int CpuA = Argc > 2 ? atoi(Argv[2]) : 0;
  CpuB = Argc > 3 ? atoi(Argv[3]) : 1;
  pin(CpuA);
  sem_init(&Go, 0, 0);
  pthread_t T;
  pthread_create(&T, NULL, partner, NULL);
  Strip S;
  makeStrip(&S, Rows);
  const int PerCond = (Sweeps / NConds + 1) * NBlocks;
  double *Times[NConds];
  int N[NConds] = {0};
  for (int C = 0; C < NConds; ++C)
    Times[C] = malloc(sizeof(double) * (size_t)PerCond);
  for (int Sw = 0; Sw < Sweeps; ++Sw) {
    const int C = Sw % NConds;
    atomic_store(&Cond, C);
    sem_post(&Go);
    for (int B = 0; B < NBlocks; ++B) {
      const double T0 = now();
      relaxBlock(&S, B);
      if (Sw >= NConds) /* the first round warms up */
        Times[C][N[C]++] = now() - T0;
    }
    atomic_store(&Cond, -1); /* B leaves its loop and waits for the next condition */
  }
  atomic_store(&Cond, -2);
  sem_post(&Go);
  pthread_join(T, NULL);
  double Med[NConds];
  for (int C = 0; C < NConds; ++C) {
    qsort(Times[C], (size_t)N[C], sizeof(double), byValue);
    Med[C] = Times[C][N[C] / 2];
  }
  for (int C = 0; C < NConds; ++C)
    printf("partner %-8s blocks %6d median %.6f ms p10 %.6f ms median/compute %.3f\n", CondName[C],
           N[C], 1e3 * Med[C], 1e3 * Times[C][N[C] / 10], Med[C] / Med[NConds - 1]);
  return 0;
}
