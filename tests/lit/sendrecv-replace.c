// MPI_Sendrecv_replace: like Sendrecv, one site owning send start, recv start and waitall.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

void shift(int *buf, int n, int left, int right) {
  buf[0] += 1;
  MPI_Sendrecv_replace(buf, n, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  buf[0] -= 1;
}

// CHECK:      void shift(int *buf, int n, int left, int right) {
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(0)); buf[0] += 1;
// CHECK-NEXT:   mpiete_sendrecv_replace(MPIETE_B(1), buf, n, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(4)); buf[0] -= 1;
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: send-start
// MAP:        routine: MPI_Sendrecv_replace
// MAP-NEXT:   call: "MPI_Sendrecv_replace(buf, n, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)"
// MAP-NEXT: - id: [[U]]:2
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: recv-start
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: wait
// MAP-NEXT:   phase: waitall
// MAP:        routine: MPI_Sendrecv_replace
// MAP-NEXT:   call: "MPI_Sendrecv_replace(buf, n, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)"
// MAP-NEXT: - id: [[U]]:4
// MAP-NEXT:   kind: compute
// MAP:        lines: [10, 10]
// MAP-NOT:  - id:
