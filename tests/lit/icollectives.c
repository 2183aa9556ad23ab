// Non-blocking collectives are rewritten like the blocking ones, with the request last: one
// block each (kind collective); the completions are the usual waits and tests.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | FileCheck %s
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

void overlap(double *x, double *sum, int *all, int n, MPI_Request *r) {
  MPI_Iallreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  // CHECK: {{^ *}}mpiete_iallreduce(MPIETE_B(0), MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
  // CHECK: {{^ *}}mpiete_ibcast(MPIETE_B(1), x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  // CHECK: {{^ *}}mpiete_waitall(MPIETE_B(2), 2, r, MPI_STATUSES_IGNORE);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  // CHECK: {{^ *}}mpiete_ibarrier(MPIETE_B(3), MPI_COMM_WORLD, &r[0]);
  int done = 0;
  while (!done)
    MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);
  // CHECK: mpiete_test(MPIETE_B(4), &r[0], &done, MPI_STATUS_IGNORE);
  MPI_Ialltoall(all, 1, MPI_INT, all + n, 1, MPI_INT, MPI_COMM_WORLD, &r[0]);
  // CHECK: {{^ *}}mpiete_ialltoall(MPIETE_B(5), all,
  MPI_Iexscan(all, all + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
  // CHECK: {{^ *}}mpiete_iexscan(MPIETE_B(6), all,
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
}

// MAP:      routine: MPI_Iallreduce
// MAP:      routine: MPI_Ibcast
// MAP:      routine: MPI_Ibarrier
