// A for loop whose body is exactly one compute block is one block, timed whole: a trip counter
// goes into its body and the loop hook after it. Bodies with or without braces, nested loops
// (the innermost is whole), empty bodies.
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags | tee %t.timing.c | FileCheck --match-full-lines --check-prefix=TIMING %s
// RUN: %mpicc-syntax %t.timing.c
// RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

double loops(double *a, int n) {
  double s = 0;
  int i, j;
  for (i = 0; i < n; ++i) {
    double t = a[i];
    s += t * t;
  }
  for (i = 0; i < n; ++i)
    s += a[i];
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j)
      s += a[i] * a[j];
  for (i = 0; i < n && a[i] != 0; ++i)
    ;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

// CHECK:      double loops(double *a, int n) {
// CHECK-NEXT:   double s = 0;
// CHECK-NEXT:   int i, j;
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; for (i = 0; i < n; ++i) { ++mpiete_n_;
// CHECK-NEXT:     double t = a[i];
// CHECK-NEXT:     s += t * t;
// CHECK-NEXT:   } mpiete_tr_loop(MPIETE_B(0), mpiete_n_); }
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; for (i = 0; i < n; ++i)
// CHECK-NEXT:     { ++mpiete_n_; s += a[i]; } mpiete_tr_loop(MPIETE_B(1), mpiete_n_); }
// CHECK-NEXT:   for (i = 0; i < n; ++i)
// CHECK-NEXT:     { unsigned long long mpiete_n_ = 0; for (j = 0; j < n; ++j)
// CHECK-NEXT:       { ++mpiete_n_; s += a[i] * a[j]; } mpiete_tr_loop(MPIETE_B(2), mpiete_n_); }
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; for (i = 0; i < n && a[i] != 0; ++i)
// CHECK-NEXT:     { ++mpiete_n_; ; } mpiete_tr_loop(MPIETE_B(3), mpiete_n_); }
// CHECK-NEXT:   mpiete_allreduce(MPIETE_B(4), MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
// CHECK-NEXT:   return s;
// CHECK-NEXT: }

// TIMING:      double loops(double *a, int n) {
// TIMING-NEXT:   double s = 0;
// TIMING-NEXT:   int i, j;
// TIMING-NEXT:   { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(0)); for (i = 0; i < n; ++i) { ++mpiete_n_;
// TIMING-NEXT:     double t = a[i];
// TIMING-NEXT:     s += t * t;
// TIMING-NEXT:   } mpiete_tm_loop_end(MPIETE_B(0), mpiete_n_); }
// TIMING-NEXT:   { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(1)); for (i = 0; i < n; ++i)
// TIMING-NEXT:     { ++mpiete_n_; s += a[i]; } mpiete_tm_loop_end(MPIETE_B(1), mpiete_n_); }
// TIMING-NEXT:   for (i = 0; i < n; ++i)
// TIMING-NEXT:     { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(2)); for (j = 0; j < n; ++j)
// TIMING-NEXT:       { ++mpiete_n_; s += a[i] * a[j]; } mpiete_tm_loop_end(MPIETE_B(2), mpiete_n_); }

// MAP:      loops:
// MAP-NEXT:   - {loop: 0, kind: for, procedure: loops, line: 14, parent: -1}
// MAP-NEXT:   - {loop: 1, kind: for, procedure: loops, line: 18, parent: -1}
// MAP-NEXT:   - {loop: 2, kind: for, procedure: loops, line: 20, parent: -1}
// MAP-NEXT:   - {loop: 3, kind: for, procedure: loops, line: 21, parent: 2}
// MAP-NEXT:   - {loop: 4, kind: for, procedure: loops, line: 23, parent: -1}
// MAP-NEXT: blocks:
// MAP-NEXT:   - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:     kind: compute
// MAP-NEXT:     file: {{.*}}whole-loop-for.c
// MAP-NEXT:     lines: [14, 17]
// MAP-NEXT:     col: 3
// MAP-NEXT:     procedure: loops
// MAP-NEXT:     loops: [0]
// MAP-NEXT:     timed: loop
// MAP-NEXT:   - id: [[U]]:1
// MAP-NEXT:     kind: compute
// MAP-NEXT:     file: {{.*}}whole-loop-for.c
// MAP-NEXT:     lines: [18, 19]
// MAP:          loops: [1]
// MAP-NEXT:     timed: loop
// MAP-NEXT:   - id: [[U]]:2
// MAP-NEXT:     kind: compute
// MAP-NEXT:     file: {{.*}}whole-loop-for.c
// MAP-NEXT:     lines: [21, 22]
// MAP-NEXT:     col: 5
// MAP-NEXT:     procedure: loops
// MAP-NEXT:     loops: [2, 3]
// MAP-NEXT:     timed: loop
// MAP-NEXT:   - id: [[U]]:3
// MAP-NEXT:     kind: compute
// MAP-NEXT:     file: {{.*}}whole-loop-for.c
// MAP-NEXT:     lines: [23, 24]
// MAP:          loops: [4]
// MAP-NEXT:     timed: loop
// MAP-NEXT:   - id: [[U]]:4
// MAP-NEXT:     kind: collective
