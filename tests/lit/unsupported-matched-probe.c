// Matched probes, MPI_Ialltoallw and MPI_Ineighbor_alltoallw are rejected (the other
// neighbourhood collectives are rewritten: neighbor.c).
// (Non-blocking collectives are rewritten: icollectives.c; persistent point-to-point requests
// too: persistent.c.)
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

void start(MPI_Comm graph, double *b, int *c, MPI_Aint *d, MPI_Datatype *t, MPI_Request *r) {
  MPI_Message m;
  MPI_Mprobe(0, 0, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
  // CHECK: {{.*}}unsupported-matched-probe.c:[[@LINE-1]]:3: error: 'MPI_Mprobe' (matched probe) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_Mprobe (predictions then ignore it) [mpiete-unsupported]
  MPI_Ialltoallw(b, c, c, t, b, c, c, t, MPI_COMM_WORLD, &r[0]);
  // CHECK: {{.*}}unsupported-matched-probe.c:[[@LINE-1]]:3: error: 'MPI_Ialltoallw' (MPI_Ialltoallw) is not supported by mpiete
  MPI_Ineighbor_alltoallw(b, c, d, t, b, c, d, t, graph, &r[1]);
  // CHECK: {{.*}}unsupported-matched-probe.c:[[@LINE-1]]:3: error: 'MPI_Ineighbor_alltoallw' (neighbourhood collective with a datatype per neighbour) is not supported by mpiete
}
