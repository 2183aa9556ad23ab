// A do-while loop whose body is one compute block is timed whole; the hook follows its ';'.
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags | tee %t.timing.c | FileCheck --match-full-lines --check-prefix=TIMING %s
// RUN: %mpicc-syntax %t.timing.c
// RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int converge(double *x, double eps) {
  double d;
  int iters = 0;
  do {
    d = *x / 2;
    *x -= d;
  } while (d > eps);
  do iters++; while (iters < 10);
  do {
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    d /= 2;
  } while (d > eps);
  return iters;
}

// CHECK:      int converge(double *x, double eps) {
// CHECK-NEXT:   double d;
// CHECK-NEXT:   int iters = 0;
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; do { ++mpiete_n_;
// CHECK-NEXT:     d = *x / 2;
// CHECK-NEXT:     *x -= d;
// CHECK-NEXT:   } while (d > eps); mpiete_tr_loop(MPIETE_B(0), mpiete_n_); }
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; do { ++mpiete_n_; iters++; } while (iters < 10); mpiete_tr_loop(MPIETE_B(1), mpiete_n_); }
// CHECK-NEXT:   do {
// CHECK-NEXT:     mpiete_allreduce(MPIETE_B(2), MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(3)); d /= 2;
// CHECK-NEXT:   } while (d > eps);

// TIMING:      { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(0)); do { ++mpiete_n_;
// TIMING:      } while (d > eps); mpiete_tm_loop_end(MPIETE_B(0), mpiete_n_); }
// TIMING-NEXT: { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(1)); do { ++mpiete_n_; iters++; } while (iters < 10); mpiete_tm_loop_end(MPIETE_B(1), mpiete_n_); }
// TIMING-NEXT: do {
// TIMING-NEXT:   mpiete_allreduce(MPIETE_B(2), MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
// TIMING-NEXT:   mpiete_tm_begin(MPIETE_B(3)); d /= 2; mpiete_tm_end(MPIETE_B(3));

// MAP:      - {loop: 0, kind: do, procedure: converge, line: 12, parent: -1}
// MAP-NEXT: - {loop: 1, kind: do, procedure: converge, line: 16, parent: -1}
// MAP-NEXT: - {loop: 2, kind: do, procedure: converge, line: 17, parent: -1}
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP:        lines: [12, 15]
// MAP:        timed: loop
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: compute
// MAP:        lines: [16, 16]
// MAP:        timed: loop
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: collective
// MAP:        loops: [2]
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: compute
// MAP:        loops: [2]
// MAP-NEXT:   timed: block
