// MPI-IO is rejected with the call and its location.
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

void save(const double *v, int n) {
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, "out.bin", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                    MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return;
  // CHECK: {{.*}}unsupported-mpiio.c:[[@LINE-3]]:7: error: 'MPI_File_open' (MPI-IO) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_File_open (predictions then ignore it) [mpiete-unsupported]
  MPI_File_write_all(fh, v, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
  // CHECK: {{.*}}unsupported-mpiio.c:[[@LINE-1]]:3: error: 'MPI_File_write_all' (MPI-IO) is not supported by mpiete
  MPI_File_close(&fh);
  // CHECK: {{.*}}unsupported-mpiio.c:[[@LINE-1]]:3: error: 'MPI_File_close' (MPI-IO) is not supported by mpiete
}
