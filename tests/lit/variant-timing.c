// The timing variant brackets each compute block with begin/end hooks and a whole loop with
// begin and a loop end that divides by the trip count; MPI calls are renamed exactly as in the
// trace variant, and the block ids of both variants are the same.
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --trace-out=%t.trace.c --timing-out=%t.timing.c --blocks-out=%t.yaml %s -- %mpi-cflags
// RUN: diff %t.c %t.timing.c
// RUN: FileCheck --match-full-lines --check-prefix=TRACE %s < %t.trace.c
// RUN: %mpicc-syntax %t.trace.c
// RUN: FileCheck --check-prefix=MAP %s < %t.yaml
#include <mpi.h>

double timed(double *a, int n, int peer) {
  double s = 0;
  s = a[0] * 2;
  a[1] = s;
  for (int i = 0; i < n; ++i)
    s += a[i];
  if (s > 1)
    s = 1;
  MPI_Send(a, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
  return s;
}

// CHECK:      #include "mpiete/instrument.h" /* mpiete timing probe of {{.*}}variant-timing.c */
// CHECK:      double timed(double *a, int n, int peer) {
// CHECK-NEXT:   double s = 0;
// CHECK-NEXT:   mpiete_tm_begin(MPIETE_B(0)); s = a[0] * 2;
// CHECK-NEXT:   a[1] = s; mpiete_tm_end(MPIETE_B(0));
// CHECK-NEXT:   { unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(1)); for (int i = 0; i < n; ++i)
// CHECK-NEXT:     { ++mpiete_n_; s += a[i]; } mpiete_tm_loop_end(MPIETE_B(1), mpiete_n_); }
// CHECK-NEXT:   if (s > 1)
// CHECK-NEXT:     { mpiete_tm_begin(MPIETE_B(2)); s = 1; mpiete_tm_end(MPIETE_B(2)); }
// CHECK-NEXT:   mpiete_send(MPIETE_B(3), a, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
// CHECK-NEXT:   return s;
// CHECK-NEXT: }

// TRACE:      #include "mpiete/instrument.h" /* mpiete trace probe of {{.*}}variant-timing.c */
// TRACE-NEXT: #define MPIETE_B(index) MPIETE_ID(0x[[UNIT:[0-9a-f]+]]u, index)
// TRACE:      double timed(double *a, int n, int peer) {
// TRACE-NEXT:   double s = 0;
// TRACE-NEXT:   mpiete_tr_block(MPIETE_B(0)); s = a[0] * 2;
// TRACE-NEXT:   a[1] = s;
// TRACE-NEXT:   { unsigned long long mpiete_n_ = 0; for (int i = 0; i < n; ++i)
// TRACE-NEXT:     { ++mpiete_n_; s += a[i]; } mpiete_tr_loop(MPIETE_B(1), mpiete_n_); }
// TRACE-NEXT:   if (s > 1)
// TRACE-NEXT:     { mpiete_tr_block(MPIETE_B(2)); s = 1; }
// TRACE-NEXT:   mpiete_send(MPIETE_B(3), a, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);

// MAP:      - id: {{[0-9a-f]+}}:0
// MAP-NEXT:   kind: compute
// MAP:        timed: block
// MAP:      - id: {{[0-9a-f]+}}:1
// MAP-NEXT:   kind: compute
// MAP:        timed: loop
// MAP:      - id: {{[0-9a-f]+}}:2
// MAP-NEXT:   kind: compute
// MAP:        timed: block
