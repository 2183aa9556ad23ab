// Non-blocking collectives are rejected; so are matched probes. (Persistent point-to-point
// requests are rewritten: persistent.c.)
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

void start(double *b, int n, MPI_Request *r) {
  MPI_Ibcast(b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
  // CHECK: {{.*}}unsupported-icollective.c:[[@LINE-1]]:3: error: 'MPI_Ibcast' (non-blocking collective) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_Ibcast (predictions then ignore it) [mpiete-unsupported]
  MPI_Iallreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]);
  // CHECK: {{.*}}unsupported-icollective.c:[[@LINE-1]]:3: error: 'MPI_Iallreduce' (non-blocking collective) is not supported by mpiete
  MPI_Ibarrier(MPI_COMM_WORLD, &r[2]);
  // CHECK: {{.*}}unsupported-icollective.c:[[@LINE-1]]:3: error: 'MPI_Ibarrier' (non-blocking collective) is not supported by mpiete
  MPI_Message m;
  MPI_Mprobe(0, 0, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
  // CHECK: {{.*}}unsupported-icollective.c:[[@LINE-1]]:3: error: 'MPI_Mprobe' (matched probe) is not supported by mpiete
}
