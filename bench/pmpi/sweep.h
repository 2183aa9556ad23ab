/* wavefront's block sweep, shared by partner.c and gap.c (bench/pmpi, on demand, no MPI).
 */
/*
 * The SOR update of test-programs/wavefront in 64-column blocks of a strip of Rows x 2048
 * points, the point update out of line as gcc -O2 leaves it there; a monotonic clock; a sort
 * order for the timings.
 */
#ifndef MPIETE_BENCH_PMPI_SWEEP_H
#define MPIETE_BENCH_PMPI_SWEEP_H

#include <stdlib.h>
#include <time.h>

enum { Cols = 2048, Block = 64, NBlocks = Cols / Block };

typedef struct {
  int Rows;
  double H2f;
  double *U; /* (Rows + 2) x (Cols + 2): ghost rows and fixed boundary columns */
} Strip;

#define U(s, i, j) ((s)->U[(size_t)(i) * (size_t)(Cols + 2) + (size_t)(j)])

static __attribute__((noinline)) void relaxPoint(Strip *S, int I, int J) {
  double Nb = U(S, I - 1, J) + U(S, I + 1, J) + U(S, I, J - 1) + U(S, I, J + 1);
  U(S, I, J) = (1.0 - 1.2) * U(S, I, J) + 1.2 * 0.25 * (Nb + S->H2f);
}

/* Relaxes rows I0 .. I1 of block B. */
static void relaxRows(Strip *S, int B, int I0, int I1) {
  const int J0 = 1 + B * Block, J1 = J0 + Block - 1;
  for (int I = I0; I <= I1; I++)
    for (int J = J0; J <= J1; J++)
      relaxPoint(S, I, J);
}

/* A strip of Rows rows, 1 on the top edge and 0 elsewhere; exits if out of memory. */
static void makeStrip(Strip *S, int Rows) {
  S->Rows = Rows;
  S->H2f = 1000.0 / ((double)(2 * Rows + 1) * (double)(Cols + 1));
  S->U = calloc((size_t)(Rows + 2) * (size_t)(Cols + 2), sizeof(double));
  if (!S->U)
    exit(1);
  for (int J = 0; J < Cols + 2; J++)
    U(S, 0, J) = 1.0;
}

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (double)T.tv_sec + 1e-9 * (double)T.tv_nsec;
}

static int byValue(const void *A, const void *B) {
  const double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

#endif
