// MPI calls keep their place in any expression: assignments, initializers, conditions, loop
// headers, conditional operators, return values.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int expressions(int *b, int n, int sync) {
  int rc, flag = 0;
  MPI_Request r;
  rc = MPI_Send(b, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
  if (MPI_Recv(b, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return 1;
  if ((rc = MPI_Isend(b, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &r)) != MPI_SUCCESS)
    return rc;
  while (MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
    n++;
  rc = sync ? MPI_Ssend(b, n, MPI_INT, 1, 0, MPI_COMM_WORLD) : MPI_Send(b, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
  int again = MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Finalize() + again + rc;
}

// CHECK:      int expressions(int *b, int n, int sync) {
// CHECK-NEXT:   int rc, flag = 0;
// CHECK-NEXT:   MPI_Request r;
// CHECK-NEXT:   rc = mpiete_send(MPIETE_B(0), b, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
// CHECK-NEXT:   if (mpiete_recv(MPIETE_B(2), b, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
// CHECK-NEXT:     return 1;
// CHECK-NEXT:   if ((rc = mpiete_isend(MPIETE_B(4), b, n, MPI_INT, 1, 0, MPI_COMM_WORLD, &r)) != MPI_SUCCESS)
// CHECK-NEXT:     return rc;
// CHECK-NEXT:   while (mpiete_test(MPIETE_B(5), &r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
// CHECK-NEXT:     { mpiete_tr_block(MPIETE_B(6)); n++; }
// CHECK-NEXT:   rc = sync ? mpiete_ssend(MPIETE_B(7), b, n, MPI_INT, 1, 0, MPI_COMM_WORLD) : mpiete_send(MPIETE_B(9), b, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
// CHECK-NEXT:   int again = mpiete_barrier(MPIETE_B(11), MPI_COMM_WORLD);
// CHECK-NEXT:   return mpiete_finalize(MPIETE_B(12)) + again + rc;
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP:        call: "MPI_Send(b, n, MPI_INT, 1, 0, MPI_COMM_WORLD)"
// MAP:      - id: [[U]]:7
// MAP-NEXT:   kind: comm
// MAP:        routine: MPI_Ssend
// MAP:      - id: [[U]]:9
// MAP-NEXT:   kind: comm
// MAP:        routine: MPI_Send
// MAP:      - id: [[U]]:12
// MAP-NEXT:   kind: finalize
// MAP:        call: "MPI_Finalize()"
// MAP-NOT:  - id:
