// MPI_Recv calls the runtime's recv (Irecv + Wait): the status argument, an array element or
// MPI_STATUS_IGNORE, stays as written.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int recvs(int *buf, int n, MPI_Status *statuses) {
  MPI_Status st;
  int count;
  MPI_Recv(buf, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, &statuses[1]);
  MPI_Recv(buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return count;
}

// CHECK:      int recvs(int *buf, int n, MPI_Status *statuses) {
// CHECK-NEXT:   MPI_Status st;
// CHECK-NEXT:   int count;
// CHECK-NEXT:   mpiete_recv(MPIETE_B(0), buf, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(2)); MPI_Get_count(&st, MPI_INT, &count);
// CHECK-NEXT:   mpiete_recv(MPIETE_B(3), buf, count, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, &statuses[1]);
// CHECK-NEXT:   mpiete_recv(MPIETE_B(5), buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
// CHECK-NEXT:   return count;
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: start
// MAP-NEXT:   file: {{.*}}split-recv-status.c
// MAP-NEXT:   lines: [11, 11]
// MAP:        routine: MPI_Recv
// MAP-NEXT:   call: "MPI_Recv(buf, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st)"
// MAP-NEXT: - id: [[U]]:1
// MAP-NEXT:   kind: wait
// MAP-NEXT:   phase: wait
// MAP:        routine: MPI_Recv
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: compute
// MAP-NOT:    phase:
// MAP:        lines: [12, 12]
// MAP:        timed: block
// MAP-NEXT: - id: [[U]]:3
// MAP-NEXT:   kind: comm
// MAP:        call: "MPI_Recv(buf, count, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, &statuses[1])"
// MAP-NEXT: - id: [[U]]:4
// MAP-NEXT:   kind: wait
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: comm
// MAP:        call: "MPI_Recv(buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)"
// MAP-NEXT: - id: [[U]]:6
// MAP-NEXT:   kind: wait
// MAP-NOT:  - id:
