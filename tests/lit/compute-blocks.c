// Compute blocks are maximal runs of straight-line statements between MPI calls, branches,
// loops, labels and jumps; runs of declarations alone are no block, and leading declarations
// stay outside the block. Procedures that do not communicate are not partitioned.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>
#include <stdlib.h>

static double square(double v) { return v * v; }
double external_work(double v);

double blocks(double *a, int n) {
  double s = 0;
  int k;
  s = square(a[0]);
  s += external_work(s);
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  k = n / 2;
again:
  a[k] = s;
  if (k > 0) {
    k--;
    goto again;
  }
  switch (n) {
  case 1:
    s = 1;
    break;
  case 2:
    MPI_Barrier(MPI_COMM_WORLD);
    s = 2;
    break;
  default:
    s = 3;
  }
  if (s < 0)
    exit(1);
  return s;
}

// CHECK:      static double square(double v) { return v * v; }
// CHECK-NEXT: double external_work(double v);
// CHECK-EMPTY:
// CHECK-NEXT: double blocks(double *a, int n) {
// CHECK-NEXT:   double s = 0;
// CHECK-NEXT:   int k;
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(0)); s = square(a[0]);
// CHECK-NEXT:   s += external_work(s);
// CHECK-NEXT:   mpiete_allreduce(MPIETE_B(1), MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(2)); k = n / 2;
// CHECK-NEXT: again:
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(3)); a[k] = s;
// CHECK-NEXT:   if (k > 0) {
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(4)); k--;
// CHECK-NEXT:     goto again;
// CHECK-NEXT:   }
// CHECK-NEXT:   switch (n) {
// CHECK-NEXT:   case 1:
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(5)); s = 1;
// CHECK-NEXT:     break;
// CHECK-NEXT:   case 2:
// CHECK-NEXT:     mpiete_barrier(MPIETE_B(6), MPI_COMM_WORLD);
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(7)); s = 2;
// CHECK-NEXT:     break;
// CHECK-NEXT:   default:
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(8)); s = 3;
// CHECK-NEXT:   }
// CHECK-NEXT:   if (s < 0)
// CHECK-NEXT:     exit(1);
// CHECK-NEXT:   return s;
// CHECK-NEXT: }

// MAP:      procedures: [blocks]
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}compute-blocks.c
// MAP-NEXT:   lines: [16, 17]
// MAP-NEXT:   col: 3
// MAP-NEXT:   procedure: blocks
// MAP-NEXT:   loops: []
// MAP-NEXT:   timed: block
// MAP-NEXT:   opaque_calls: [external_work]
// MAP-NEXT: - id: [[U]]:1
// MAP-NEXT:   kind: collective
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}compute-blocks.c
// MAP-NEXT:   lines: [19, 19]
// MAP-NOT:    opaque_calls
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}compute-blocks.c
// MAP-NEXT:   lines: [21, 21]
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}compute-blocks.c
// MAP-NEXT:   lines: [23, 23]
// MAP:      - id: [[U]]:8
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}compute-blocks.c
// MAP-NEXT:   lines: [35, 35]
// MAP-NOT:  - id:
