// A call to a procedure of this unit that communicates (directly or through another) splits
// blocks like an MPI call: the caller's loop body is then not one compute block. A procedure
// that does not communicate is part of its caller's block and is not partitioned.
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

static void halo(double *u, int n);

static double relax(double *u, int n) {
  double r = 0;
  for (int i = 1; i < n - 1; ++i)
    r += u[i - 1] + u[i + 1] - 2 * u[i];
  return r;
}

static void step(double *u, int n) { halo(u, n); }

void solve(double *u, int n, int iters) {
  double r = 0;
  for (int it = 0; it < iters; ++it)
    r += relax(u, n);
  for (int it = 0; it < iters; ++it) {
    r += relax(u, n);
    step(u, n);
  }
  u[0] = r;
}

static void halo(double *u, int n) {
  MPI_Sendrecv_replace(u, n, MPI_DOUBLE, 0, 0, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// CHECK:      static double relax(double *u, int n) {
// CHECK-NEXT:   double r = 0;
// CHECK-NEXT:   for (int i = 1; i < n - 1; ++i)
// CHECK-NEXT:     r += u[i - 1] + u[i + 1] - 2 * u[i];
// CHECK-NEXT:   return r;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: static void step(double *u, int n) { halo(u, n); }
// CHECK-EMPTY:
// CHECK-NEXT: void solve(double *u, int n, int iters) {
// CHECK-NEXT:   double r = 0;
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; for (int it = 0; it < iters; ++it)
// CHECK-NEXT:     { ++mpiete_n_; r += relax(u, n); } mpiete_tr_loop(MPIETE_B(0), mpiete_n_); }
// CHECK-NEXT:   for (int it = 0; it < iters; ++it) {
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(1)); r += relax(u, n);
// CHECK-NEXT:     step(u, n);
// CHECK-NEXT:   }
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(2)); u[0] = r;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: static void halo(double *u, int n) {
// CHECK-NEXT:   mpiete_sendrecv_replace(MPIETE_B(3), u, n, MPI_DOUBLE, 0, 0, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
// CHECK-NEXT: }

// MAP:      procedures: [step, solve, halo]
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP:        procedure: solve
// MAP:        timed: loop
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: compute
// MAP:        lines: [25, 25]
// MAP:        loops: [1]
// MAP-NEXT:   timed: block
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: comm
// MAP:        procedure: halo
