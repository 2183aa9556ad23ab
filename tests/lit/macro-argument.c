// An MPI call written as a macro argument is renamed where it is written; a macro that expands
// its argument twice still gives one site. A statement made by a macro is not edited inside.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>
#include <stdio.h>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    int rc_ = (call);                                                                         \
    if (rc_ != MPI_SUCCESS) {                                                                 \
      fprintf(stderr, "MPI error %d\n", rc_);                                                 \
      return rc_;                                                                             \
    }                                                                                         \
  } while (0)
#define TWICE(x) ((x) + (x))
#define SCALE(v, f) v *= f

int checked(double *b, int n) {
  CHECK(MPI_Send(b, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD));
  CHECK(MPI_Recv(b, n, MPI_DOUBLE, 1, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  SCALE(b[0], 2.0);
  return TWICE(MPI_Barrier(MPI_COMM_WORLD));
}

// CHECK:      int checked(double *b, int n) {
// CHECK-NEXT:   CHECK(mpiete_send(MPIETE_B(0), b, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD));
// CHECK-NEXT:   CHECK(mpiete_recv(MPIETE_B(2), b, n, MPI_DOUBLE, 1, 0,
// CHECK-NEXT:                  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(4)); SCALE(b[0], 2.0);
// CHECK-NEXT:   return TWICE(mpiete_barrier(MPIETE_B(5), MPI_COMM_WORLD));
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: comm
// MAP:        lines: [21, 21]
// MAP-NEXT:   col: 9
// MAP:        call: "MPI_Send(b, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD)"
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: comm
// MAP:        lines: [22, 23]
// MAP:        call: "MPI_Recv(b, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)"
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: compute
// MAP:        lines: [24, 24]
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: collective
// MAP:        call: "MPI_Barrier(MPI_COMM_WORLD)"
// MAP-NOT:  - id:
