// A loop that communicates is not timed whole: its body's compute runs are blocks of their own,
// inside the loop (the block map lists the enclosing loops, outer first).
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

void ring(double *buf, int n, int steps, int left, int right) {
  for (int step = 0; step < steps; ++step) {
    for (int i = 0; i < n; ++i)
      buf[i] *= 0.5;
    MPI_Sendrecv_replace(buf, n, MPI_DOUBLE, right, step, left, step, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    buf[0] += step;
  }
  while (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
    steps--;
}

// CHECK:      void ring(double *buf, int n, int steps, int left, int right) {
// CHECK-NEXT:   for (int step = 0; step < steps; ++step) {
// CHECK-NEXT:     { unsigned long long mpiete_n_ = 0; for (int i = 0; i < n; ++i)
// CHECK-NEXT:       { ++mpiete_n_; buf[i] *= 0.5; } mpiete_tr_loop(MPIETE_B(0), mpiete_n_); }
// CHECK-NEXT:     mpiete_sendrecv_replace(MPIETE_B(1), buf, n, MPI_DOUBLE, right, step, left, step, MPI_COMM_WORLD,
// CHECK-NEXT:                          MPI_STATUS_IGNORE);
// CHECK-NEXT:     mpiete_tr_block(MPIETE_B(4)); buf[0] += step;
// CHECK-NEXT:   }
// CHECK-NEXT:   while (mpiete_barrier(MPIETE_B(5), MPI_COMM_WORLD) != MPI_SUCCESS)
// CHECK-NEXT:     { mpiete_tr_block(MPIETE_B(6)); steps--; }
// CHECK-NEXT: }

// MAP:      loops:
// MAP-NEXT:   - {loop: 0, kind: for, procedure: ring, line: 9, parent: -1}
// MAP-NEXT:   - {loop: 1, kind: for, procedure: ring, line: 10, parent: 0}
// MAP-NEXT:   - {loop: 2, kind: while, procedure: ring, line: 16, parent: -1}
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP:        loops: [0, 1]
// MAP-NEXT:   timed: loop
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: send-start
// MAP-NEXT:   file: {{.*}}loop-with-mpi.c
// MAP-NEXT:   lines: [12, 13]
// MAP:        loops: [0]
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: compute
// MAP:        loops: [0]
// MAP-NEXT:   timed: block
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: collective
// MAP:        loops: []
// MAP:      - id: [[U]]:6
// MAP-NEXT:   kind: compute
// MAP:        loops: [2]
// MAP-NEXT:   timed: block
