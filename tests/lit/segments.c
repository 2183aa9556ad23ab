// The default partition (segments): no compute blocks; a loop that contains MPI calls, directly
// or through a communicating procedure of the unit, gets mpiete_iter at the top of every
// iteration and mpiete_loop_exit after it; a loop of pure computation gets nothing.
// RUN: %mpiete-instrument %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --variant=timing %s -- %mpi-cflags | FileCheck --match-full-lines %s
// RUN: %mpiete-instrument --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

static void exchange(double *a, int n, int peer) {
  MPI_Sendrecv_replace(a, n, MPI_DOUBLE, peer, 0, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void step(double *a, int n, int peer, int steps) {
  for (int i = 0; i < n; ++i)
    a[i] *= 0.5;
  for (int t = 0; t < steps; ++t) {
    int skip = t % 3 == 0;
    if (skip)
      continue;
    for (int i = 0; i < n; ++i)
      a[i] += 1.0;
    exchange(a, n, peer);
  }
  while (steps-- > 0)
    MPI_Barrier(MPI_COMM_WORLD);
  if (n > 1)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) {
        MPI_Allreduce(MPI_IN_PLACE, a, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
}

// CHECK:      static void exchange(double *a, int n, int peer) {
// CHECK-NEXT:   mpiete_sendrecv_replace(MPIETE_B(0), a, n, MPI_DOUBLE, peer, 0, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: void step(double *a, int n, int peer, int steps) {
// CHECK-NEXT:   for (int i = 0; i < n; ++i)
// CHECK-NEXT:     a[i] *= 0.5;
// CHECK-NEXT:   { for (int t = 0; t < steps; ++t) { mpiete_iter(MPIETE_B(3)); {
// CHECK-NEXT:     int skip = t % 3 == 0;
// CHECK-NEXT:     if (skip)
// CHECK-NEXT:       continue;
// CHECK-NEXT:     for (int i = 0; i < n; ++i)
// CHECK-NEXT:       a[i] += 1.0;
// CHECK-NEXT:     exchange(a, n, peer);
// CHECK-NEXT:   }} mpiete_loop_exit(MPIETE_B(3)); }
// CHECK-NEXT:   { while (steps-- > 0)
// CHECK-NEXT:     { mpiete_iter(MPIETE_B(4)); mpiete_barrier(MPIETE_B(5), MPI_COMM_WORLD); } mpiete_loop_exit(MPIETE_B(4)); }
// CHECK-NEXT:   if (n > 1)
// CHECK-NEXT:     { for (int j = 0; j < 2; ++j)
// CHECK-NEXT:       { mpiete_iter(MPIETE_B(6)); { for (int k = 0; k < 2; ++k) { mpiete_iter(MPIETE_B(7)); {
// CHECK-NEXT:         mpiete_allreduce(MPIETE_B(8), MPI_IN_PLACE, a, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
// CHECK-NEXT:       }} mpiete_loop_exit(MPIETE_B(7)); } } mpiete_loop_exit(MPIETE_B(6)); }
// CHECK-NEXT: }

// MAP:      loops:
// MAP-NEXT:   - {loop: 0, kind: for, procedure: step, line: 17, parent: -1}
// MAP-NEXT:   - {loop: 1, kind: while, procedure: step, line: 25, parent: -1}
// MAP-NEXT:   - {loop: 2, kind: for, procedure: step, line: 28, parent: -1}
// MAP-NEXT:   - {loop: 3, kind: for, procedure: step, line: 29, parent: 2}
// MAP:        - id: [[U:[0-9a-f]+]]:3
// MAP-NEXT:     kind: loop
// MAP-NEXT:     file: {{.*}}segments.c
// MAP-NEXT:     lines: [17, 24]
// MAP-NEXT:     col: 3
// MAP-NEXT:     procedure: step
// MAP-NEXT:     loops: []
// MAP:        - id: [[U]]:7
// MAP-NEXT:     kind: loop
// MAP:          lines: [29, 31]
// MAP:          loops: [2]
// MAP-NOT:    kind: compute
