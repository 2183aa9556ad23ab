// The neighbourhood collectives of a Cartesian communicator and the w-variants (a datatype per
// peer) are rewritten like the other collectives: one block each (kind collective), the
// non-blocking ones with the request last.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | FileCheck %s
#include <mpi.h>

void halo(MPI_Comm cart, double *s, double *r, int *c, int *d, MPI_Aint *a, MPI_Datatype *t,
          MPI_Request *q) {
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
  MPI_Neighbor_alltoallw(s, c, a, t, r, c, a, t, cart);
  // CHECK: {{^ *}}mpiete_neighbor_alltoallw(MPIETE_B(6), s, c, a, t, r, c, a, t, cart);
  MPI_Alltoallw(s, c, d, t, r, c, d, t, MPI_COMM_WORLD);
  // CHECK: {{^ *}}mpiete_alltoallw(MPIETE_B(7), s, c, d, t, r, c, d, t, MPI_COMM_WORLD);
  MPI_Ialltoallw(MPI_IN_PLACE, 0, 0, 0, r, c, d, t, MPI_COMM_WORLD, &q[1]);
  // CHECK: {{^ *}}mpiete_ialltoallw(MPIETE_B(8), MPI_IN_PLACE, 0, 0, 0, r, c, d, t, MPI_COMM_WORLD, &q[1]);
  MPI_Ineighbor_alltoallw(s, c, a, t, r, c, a, t, cart, &q[2]);
  // CHECK: {{^ *}}mpiete_ineighbor_alltoallw(MPIETE_B(9), s, c, a, t, r, c, a, t, cart, &q[2]);
  MPI_Waitall(2, &q[1], MPI_STATUSES_IGNORE);
}
