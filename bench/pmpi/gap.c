/* How fast a memory-bound block runs after a short pause of its own thread, by the kind of pause.
 */
/*
 * In the timing probe a rank's segment often starts right after the rank waited for the token;
 * in the real run the same segment starts right after an MPI call that hardly waited. This
 * program asks, without MPI and without the probe, whether the way a thread spends a short
 * pause changes how fast it computes right after. One thread, pinned to the first processor,
 * sweeps wavefront's blocks (sweep.h: test-programs/wavefront's SOR update in 64-column blocks of a
 * strip, the point update out of line) and times every block; before each block it pauses
 * for GAP ms in one of four ways:
 *   none    no pause (blocks back to back)
 *   sleep   nanosleep(GAP): the thread blocks, the processor idles
 *   pause   a loop of PAUSE and clock reads in the same thread, no system call
 *   arith   a loop of arithmetic on a stack variable (no PAUSE, no memory traffic to speak of)
 * The kind changes every sweep, in rotation, so that a drift of the machine spreads over all
 * four. Prints, per kind, the blocks' 10th percentile, median and sum, and the time per
 * quarter of a block (a slow start would show in the first quarter only).
 *
 *   cc -O2 -o gap gap.c && ./gap [rows=1024] [sweeps=240] [gap_ms=0.7]
 *
 * docs/token-passing.md, "How a rank waits", has what it measured and what it did not explain.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sweep.h"

enum { NKinds = 4 };
static const char *KindName[NKinds] = {"none", "sleep", "pause", "arith"};

/* Relaxes block B, adding the time of each quarter of its rows to Quarter[0..3]; returns the
 * block's time. */
static double relaxBlock(Strip *S, int B, double *Quarter) {
  const double Start = now();
  double T = Start;
  for (int Q = 0; Q < 4; Q++) {
    relaxRows(S, B, 1 + Q * S->Rows / 4, (Q + 1) * S->Rows / 4);
    const double T1 = now();
    Quarter[Q] += T1 - T;
    T = T1;
  }
  return T - Start;
}

static void pauseFor(int Kind, double Seconds) {
  if (Kind == 1) {
    struct timespec Ts = {0, (long)(Seconds * 1e9)};
    nanosleep(&Ts, NULL);
  } else if (Kind == 2) {
    const double End = now() + Seconds;
    while (now() < End)
      __builtin_ia32_pause();
  } else if (Kind == 3) {
    volatile long Z = 0;
    const double End = now() + Seconds;
    while (now() < End)
      for (int K = 0; K < 64; K++)
        Z = Z + 1;
  }
}

int main(int Argc, char **Argv) {
  const int Rows = Argc > 1 ? atoi(Argv[1]) : 1024;
  const int Sweeps = Argc > 2 ? atoi(Argv[2]) : 240;
  const double Gap = (Argc > 3 ? atof(Argv[3]) : 0.7) * 1e-3;
  if (Rows < 4 || Sweeps < NKinds) {
    fprintf(stderr, "usage: gap [rows>=4] [sweeps>=4] [gap_ms]\n");
    return 1;
  }
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(0, &Set);
  sched_setaffinity(0, sizeof Set, &Set);

  Strip S;
  makeStrip(&S, Rows);
  const int PerKind = (Sweeps / NKinds) * NBlocks;
  double *Times[NKinds], Quarter[NKinds][4] = {{0}};
  int Count[NKinds] = {0};
  for (int K = 0; K < NKinds; K++)
    if (!(Times[K] = malloc((size_t)PerKind * sizeof(double))))
      return 1;

  for (int Sw = 0; Sw < (Sweeps / NKinds) * NKinds; Sw++) {
    const int Kind = Sw % NKinds;
    for (int B = 0; B < NBlocks; B++) {
      pauseFor(Kind, Gap);
      Times[Kind][Count[Kind]++] = relaxBlock(&S, (Sw & 1) ? NBlocks - 1 - B : B, Quarter[Kind]);
    }
  }
  printf("rows %d, %d sweeps, pause %.3f ms before each block\n", Rows, Sweeps, Gap * 1e3);
  for (int K = 0; K < NKinds; K++) {
    const int N = Count[K];
    double Sum = 0;
    for (int I = 0; I < N; I++)
      Sum += Times[K][I];
    qsort(Times[K], (size_t)N, sizeof(double), byValue);
    printf("%-6s block p10 %.4f ms, median %.4f ms, sum %.3f s; quarters %.4f %.4f %.4f %.4f ms\n",
           KindName[K], 1e3 * Times[K][N / 10], 1e3 * Times[K][N / 2], Sum, 1e3 * Quarter[K][0] / N,
           1e3 * Quarter[K][1] / N, 1e3 * Quarter[K][2] / N, 1e3 * Quarter[K][3] / N);
  }
  return 0;
}
