/* How fast a memory-bound block runs after a short pause of its own thread, by the kind of pause.
 */
/*
 * In the timing probe a rank's segment often starts right after the rank waited for the token;
 * in the real run the same segment starts right after an MPI call that hardly waited. This
 * program asks, without MPI and without the probe, whether the way a thread spends a short
 * pause changes how fast it computes right after. One thread, pinned to the first processor,
 * sweeps wavefront's blocks (test-programs/wavefront: the SOR update in 64-column blocks of a
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

enum { Cols = 2048, Block = 64, NBlocks = Cols / Block, NKinds = 4 };
static const char *KindName[NKinds] = {"none", "sleep", "pause", "arith"};

typedef struct {
  int Rows, Ny;
  double H2f;
  double *U;
} Strip;

#define U(s, i, j) ((s)->U[(size_t)(i) * (size_t)((s)->Ny + 2) + (size_t)(j)])

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (double)T.tv_sec + 1e-9 * (double)T.tv_nsec;
}

static __attribute__((noinline)) void relaxPoint(Strip *S, int I, int J) {
  double Nb = U(S, I - 1, J) + U(S, I + 1, J) + U(S, I, J - 1) + U(S, I, J + 1);
  U(S, I, J) = (1.0 - 1.2) * U(S, I, J) + 1.2 * 0.25 * (Nb + S->H2f);
}

/* Relaxes block B, adding the time of each quarter of its rows to Quarter[0..3]. */
static void relaxBlock(Strip *S, int B, double *Quarter) {
  const int J0 = 1 + B * Block, J1 = J0 + Block - 1;
  double T = now();
  for (int Q = 0; Q < 4; Q++) {
    for (int I = 1 + Q * S->Rows / 4; I <= (Q + 1) * S->Rows / 4; I++)
      for (int J = J0; J <= J1; J++)
        relaxPoint(S, I, J);
    const double T1 = now();
    Quarter[Q] += T1 - T;
    T = T1;
  }
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

static int byValue(const void *A, const void *B) {
  const double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
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

  Strip S = {Rows, Cols, 1000.0 / ((2.0 * Rows + 1) * (Cols + 1)), NULL};
  S.U = calloc((size_t)(Rows + 2) * (size_t)(Cols + 2), sizeof(double));
  const int PerKind = (Sweeps / NKinds) * NBlocks;
  double *Times[NKinds], Quarter[NKinds][4] = {{0}};
  int Count[NKinds] = {0};
  for (int K = 0; K < NKinds; K++)
    Times[K] = malloc((size_t)PerKind * sizeof(double));
  if (!S.U || !Times[NKinds - 1])
    return 1;
  for (int J = 0; J < Cols + 2; J++)
    U(&S, 0, J) = 1.0;

  for (int Sw = 0; Sw < (Sweeps / NKinds) * NKinds; Sw++) {
    const int Kind = Sw % NKinds;
    for (int B = 0; B < NBlocks; B++) {
      pauseFor(Kind, Gap);
      const double T0 = now();
      relaxBlock(&S, (Sw & 1) ? NBlocks - 1 - B : B, Quarter[Kind]);
      Times[Kind][Count[Kind]++] = now() - T0;
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
