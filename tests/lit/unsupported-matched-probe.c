// Matched probes, distributed graph topologies and MPI_Comm_idup are rejected. (Non-blocking
// collectives are rewritten: icollectives.c; the neighbourhood collectives and the w-variants
// too: neighbor.c; persistent point-to-point requests too: persistent.c.)
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

void start(MPI_Comm *graph, int *c, MPI_Request *r) {
  MPI_Message m;
  MPI_Mprobe(0, 0, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
  // CHECK: {{.*}}unsupported-matched-probe.c:[[@LINE-1]]:3: error: 'MPI_Mprobe' (matched probe) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_Mprobe (predictions then ignore it) [mpiete-unsupported]
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, c, MPI_UNWEIGHTED, 1, c, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, graph);
  // CHECK: {{.*}}unsupported-matched-probe.c:[[@LINE-2]]:3: error: 'MPI_Dist_graph_create_adjacent' (distributed graph topology) is not supported by mpiete
  MPI_Comm_idup(MPI_COMM_WORLD, graph, &r[0]);
  // CHECK: {{.*}}unsupported-matched-probe.c:[[@LINE-1]]:3: error: 'MPI_Comm_idup' (routine not supported) is not supported by mpiete
}
