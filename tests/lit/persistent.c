// Persistent requests are rewritten like the non-blocking starts: the inits, MPI_Start and
// MPI_Startall each get a site of one block; the completions are the usual waits.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | FileCheck %s
#include <mpi.h>

void halo(double *out, double *in, int n, int left, int right, int steps) {
  MPI_Request r[2];
  MPI_Send_init(out, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[0]);
  // CHECK: {{^ *}}mpiete_send_init(MPIETE_B(0), out, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Recv_init(in, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[1]);
  // CHECK: {{^ *}}mpiete_recv_init(MPIETE_B(1), in, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[1]);
  for (int s = 0; s < steps; ++s) {
    MPI_Startall(2, r);
    // CHECK: {{^ *}}mpiete_startall(MPIETE_B(2), 2, r);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    // CHECK: {{^ *}}mpiete_waitall(MPIETE_B(3), 2, r, MPI_STATUSES_IGNORE);
    MPI_Start(&r[0]);
    // CHECK: {{^ *}}mpiete_start(MPIETE_B(4), &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    // CHECK: {{^ *}}mpiete_wait(MPIETE_B(5), &r[0], MPI_STATUS_IGNORE);
  }
  MPI_Ssend_init(out, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[0]);
  // CHECK: {{^ *}}mpiete_ssend_init(MPIETE_B(6), out,
  MPI_Request_free(&r[0]);
  // CHECK: {{^ *}}mpiete_request_free(MPIETE_B(7), &r[0]);
}
