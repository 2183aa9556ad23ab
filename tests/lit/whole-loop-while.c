// A while loop whose body is one compute block is timed whole; one with a break or an MPI
// call in its body is not, and its body's blocks run once per trip.
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags | tee %t.timing.c | FileCheck --match-full-lines --check-prefix=TIMING %s
// RUN: %mpicc-syntax %t.timing.c
// RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int spin(int *a, int n) {
  int k = 0;
  while (k < n) {
    a[k] = k;
    k++;
  }
  while (k > 0)
    k -= 2;
  while (1) {
    k++;
    if (k > n)
      break;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return k;
}

// CHECK:      int spin(int *a, int n) {
// CHECK-NEXT:   int k = 0;
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; while (k < n) { ++mpiete_n_;
// CHECK-NEXT:     a[k] = k;
// CHECK-NEXT:     k++;
// CHECK-NEXT:   } mpiete_tr_loop(MPIETE_B(0), mpiete_n_); }
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; while (k > 0)
// CHECK-NEXT:     { ++mpiete_n_; k -= 2; } mpiete_tr_loop(MPIETE_B(1), mpiete_n_); }
// CHECK-NEXT:   while (1) {
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(2)); k++;
// CHECK-NEXT:     if (k > n)
// CHECK-NEXT:       break;
// CHECK-NEXT:   }
// CHECK-NEXT:   mpiete_barrier(MPIETE_B(3), MPI_COMM_WORLD);

// TIMING:      { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(0)); while (k < n) { ++mpiete_n_;
// TIMING:      } mpiete_tm_loop_end(MPIETE_B(0), mpiete_n_); }
// TIMING-NEXT: { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(1)); while (k > 0)
// TIMING-NEXT:   { ++mpiete_n_; k -= 2; } mpiete_tm_loop_end(MPIETE_B(1), mpiete_n_); }
// TIMING-NEXT: while (1) {
// TIMING-NEXT:   mpiete_tm_begin(MPIETE_B(2)); k++; mpiete_tm_end(MPIETE_B(2));

// MAP:      - {loop: 0, kind: while, procedure: spin, line: 12, parent: -1}
// MAP-NEXT: - {loop: 1, kind: while, procedure: spin, line: 16, parent: -1}
// MAP-NEXT: - {loop: 2, kind: while, procedure: spin, line: 18, parent: -1}
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP:        lines: [12, 15]
// MAP:        timed: loop
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: compute
// MAP:        lines: [19, 19]
// MAP:        loops: [2]
// MAP-NEXT:   timed: block
