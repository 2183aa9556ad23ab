// One-sided communication is rejected with the call and its location, and the option that
// passes it through.
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

void put(double *local, double *remote, int n, MPI_Comm c) {
  MPI_Win win;
  MPI_Win_create(remote, n * sizeof(double), sizeof(double), MPI_INFO_NULL, c, &win);
  // CHECK: {{.*}}unsupported-onesided.c:[[@LINE-1]]:3: error: 'MPI_Win_create' (one-sided communication) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_Win_create (predictions then ignore it) [mpiete-unsupported]
  MPI_Win_fence(0, win);
  // CHECK: {{.*}}unsupported-onesided.c:[[@LINE-1]]:3: error: 'MPI_Win_fence' (one-sided communication) is not supported by mpiete
  MPI_Put(local, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, win);
  // CHECK: {{.*}}unsupported-onesided.c:[[@LINE-1]]:3: error: 'MPI_Put' (one-sided communication) is not supported by mpiete
  MPI_Get(local, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, win);
  // CHECK: {{.*}}unsupported-onesided.c:[[@LINE-1]]:3: error: 'MPI_Get' (one-sided communication) is not supported by mpiete
  MPI_Accumulate(local, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, MPI_SUM, win);
  // CHECK: {{.*}}unsupported-onesided.c:[[@LINE-1]]:3: error: 'MPI_Accumulate' (one-sided communication) is not supported by mpiete
  MPI_Win_free(&win);
  // CHECK: {{.*}}unsupported-onesided.c:[[@LINE-1]]:3: error: 'MPI_Win_free' (one-sided communication) is not supported by mpiete
}
