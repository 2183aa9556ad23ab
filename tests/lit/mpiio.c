// MPI-IO runs as the program wrote it, with a located warning per call and no option needed
// (the probes run the collective routines with every member at once: runtime/lib/Interpose.cpp);
// the non-blocking routines stay errors (their requests would reach the runtime's waits).
// RUN: %mpiete-instrument --variant=timing %s -- %mpi-cflags 2>%t.err | tee %t.c | FileCheck --match-full-lines %s
// RUN: FileCheck --check-prefix=WARN --implicit-check-not=error %s < %t.err
// RUN: %mpicc-syntax %t.c
// RUN: not %mpiete-instrument --variant=timing %s -- %mpi-cflags -DNONBLOCKING 2>&1 | FileCheck --check-prefix=NB %s
#include <mpi.h>

void save(const double *v, int n) {
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, "out.bin", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                    MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    return;
  // WARN: {{.*}}mpiio.c:[[@LINE-3]]:7: warning: 'MPI_File_open' (MPI-IO) runs uninstrumented; predictions do not model file I/O (collective file calls are left out, the others count as computation) [mpiete-io]
  MPI_File_write_all(fh, v, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
  // WARN: {{.*}}mpiio.c:[[@LINE-1]]:3: warning: 'MPI_File_write_all' (MPI-IO) runs uninstrumented
  MPI_Barrier(MPI_COMM_WORLD);
#ifdef NONBLOCKING
  MPI_Request r;
  MPI_File_iwrite(fh, v, n, MPI_DOUBLE, &r);
  // NB: {{.*}}mpiio.c:[[@LINE-1]]:3: error: 'MPI_File_iwrite' (MPI-IO) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_File_iwrite
  MPI_Wait(&r, MPI_STATUS_IGNORE);
#endif
  MPI_File_close(&fh);
  // WARN: {{.*}}mpiio.c:[[@LINE-1]]:3: warning: 'MPI_File_close' (MPI-IO) runs uninstrumented
}

// CHECK:      void save(const double *v, int n) {
// CHECK-NEXT:   MPI_File fh;
// CHECK-NEXT:   if (MPI_File_open(MPI_COMM_WORLD, "out.bin", MPI_MODE_CREATE | MPI_MODE_WRONLY,
// CHECK-NEXT:                     MPI_INFO_NULL, &fh) != MPI_SUCCESS)
// CHECK-NEXT:     return;
// CHECK:        MPI_File_write_all(fh, v, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
// CHECK:        mpiete_barrier(MPIETE_B(0), MPI_COMM_WORLD);
// CHECK:        MPI_File_close(&fh);
// CHECK:      }
