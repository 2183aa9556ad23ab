// MPI_Sendrecv calls the runtime (send start, recv start, Waitall): one site, three blocks.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

void exchange(double *out, double *in, int n, int left, int right) {
  MPI_Status st;
  MPI_Sendrecv(out, n, MPI_DOUBLE, right, 7, in, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &st);
  MPI_Sendrecv(out, n, MPI_DOUBLE, left, 8,
               in, n, MPI_DOUBLE, right, 8,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// CHECK:      void exchange(double *out, double *in, int n, int left, int right) {
// CHECK-NEXT:   MPI_Status st;
// CHECK-NEXT:   mpiete_sendrecv(MPIETE_B(0), out, n, MPI_DOUBLE, right, 7, in, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &st);
// CHECK-NEXT:   mpiete_sendrecv(MPIETE_B(3), out, n, MPI_DOUBLE, left, 8,
// CHECK-NEXT:                in, n, MPI_DOUBLE, right, 8,
// CHECK-NEXT:                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: send-start
// MAP-NEXT:   file: {{.*}}sendrecv.c
// MAP-NEXT:   lines: [9, 9]
// MAP:        routine: MPI_Sendrecv
// MAP-NEXT:   call: "MPI_Sendrecv(out, n, MPI_DOUBLE, right, 7, in, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &st)"
// MAP-NEXT: - id: [[U]]:1
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: recv-start
// MAP:        routine: MPI_Sendrecv
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: wait
// MAP-NEXT:   phase: waitall
// MAP:        routine: MPI_Sendrecv
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: send-start
// MAP-NEXT:   file: {{.*}}sendrecv.c
// MAP-NEXT:   lines: [10, 12]
// MAP:        call: "MPI_Sendrecv(out, n, MPI_DOUBLE, left, 8, in, n, MPI_DOUBLE, right, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)"
// MAP-NEXT: - id: [[U]]:4
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: recv-start
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: wait
// MAP-NEXT:   phase: waitall
// MAP-NOT:  - id:
