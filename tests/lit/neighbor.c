// The neighbourhood collectives of a Cartesian communicator are rewritten like the other
// collectives: one block each (kind collective), the non-blocking ones with the request last
// (MPI_Ineighbor_alltoallw stays an error: unsupported-matched-probe.c).
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | FileCheck %s
#include <mpi.h>

void halo(MPI_Comm cart, double *s, double *r, int *c, int *d, MPI_Request *q) {
  MPI_Neighbor_alltoall(s, 4, MPI_DOUBLE, r, 4, MPI_DOUBLE, cart);
  // CHECK: {{^ *}}mpiete_neighbor_alltoall(MPIETE_B(0), s, 4, MPI_DOUBLE, r, 4, MPI_DOUBLE, cart);
  MPI_Neighbor_allgather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, cart);
  // CHECK: {{^ *}}mpiete_neighbor_allgather(MPIETE_B(1), s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, cart);
  MPI_Neighbor_alltoallv(s, c, d, MPI_DOUBLE, r, c, d, MPI_DOUBLE, cart);
  // CHECK: {{^ *}}mpiete_neighbor_alltoallv(MPIETE_B(2), s, c, d, MPI_DOUBLE, r, c, d, MPI_DOUBLE, cart);
  MPI_Neighbor_allgatherv(s, 1, MPI_DOUBLE, r, c, d, MPI_DOUBLE, cart);
  // CHECK: {{^ *}}mpiete_neighbor_allgatherv(MPIETE_B(3), s, 1, MPI_DOUBLE, r, c, d, MPI_DOUBLE, cart);
  MPI_Ineighbor_alltoall(s, 4, MPI_DOUBLE, r, 4, MPI_DOUBLE, cart, &q[0]);
  // CHECK: {{^ *}}mpiete_ineighbor_alltoall(MPIETE_B(4), s, 4, MPI_DOUBLE, r, 4, MPI_DOUBLE, cart, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
}
