// The profiling interface is mpiete's own: a direct PMPI_ call is rejected.
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

int profiled(int *b) {
  int rc = PMPI_Send(b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  // CHECK: {{.*}}pmpi-direct.c:[[@LINE-1]]:12: error: direct call to profiling routine 'PMPI_Send' is not supported; call 'MPI_Send' instead [mpiete-unsupported]
  return rc + PMPI_Barrier(MPI_COMM_WORLD);
  // CHECK: {{.*}}pmpi-direct.c:[[@LINE-1]]:15: error: direct call to profiling routine 'PMPI_Barrier' is not supported; call 'MPI_Barrier' instead [mpiete-unsupported]
}
