// --pass-through leaves an unsupported call as written, with a warning; the block map lists it.
// Without the option the same file is an error.
// RUN: %mpiete-instrument --coarse-blocks --pass-through=MPI_Win_fence --pass-through=MPI_Comm_idup %s -- %mpi-cflags 2>%t.err | tee %t.c | FileCheck --match-full-lines %s
// RUN: FileCheck --check-prefix=WARN --implicit-check-not=error %s < %t.err
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --pass-through-all --blocks %s -- %mpi-cflags 2>&1 | FileCheck --check-prefix=MAP %s
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: not %mpiete-instrument --coarse-blocks --pass-through=MPI_Win_fence %s -- %mpi-cflags 2>&1 | FileCheck --check-prefix=ONE --implicit-check-not="error: 'MPI_Win_fence'" %s
#include <mpi.h>

void fenced(MPI_Win win, MPI_Request *r) {
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_fence(0, win);
  // WARN: {{.*}}pass-through.c:[[@LINE-1]]:3: warning: 'MPI_Win_fence' (one-sided communication) is passed through uninstrumented; predictions ignore its cost [mpiete-pass-through]
  // ERR: {{.*}}pass-through.c:[[@LINE-2]]:3: error: 'MPI_Win_fence' (one-sided communication) is not supported by mpiete
  // ONE: {{.*}}pass-through.c:[[@LINE-3]]:3: warning: 'MPI_Win_fence' (one-sided communication) is passed through
  MPI_Comm dup;
  MPI_Comm_idup(MPI_COMM_WORLD, &dup, r);
  // WARN: {{.*}}pass-through.c:[[@LINE-1]]:3: warning: 'MPI_Comm_idup' (routine not supported) is passed through uninstrumented; predictions ignore its cost [mpiete-pass-through]
  // ERR: {{.*}}pass-through.c:[[@LINE-2]]:3: error: 'MPI_Comm_idup' (routine not supported) is not supported by mpiete
  // ONE: {{.*}}pass-through.c:[[@LINE-3]]:3: error: 'MPI_Comm_idup' (routine not supported) is not supported by mpiete
  MPI_Wait(r, MPI_STATUS_IGNORE);
}

// CHECK:      void fenced(MPI_Win win, MPI_Request *r) {
// CHECK-NEXT:   mpiete_barrier(MPIETE_B(0), MPI_COMM_WORLD);
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(1)); MPI_Win_fence(0, win);
// CHECK:        MPI_Comm_idup(MPI_COMM_WORLD, &dup, r);
// CHECK:        mpiete_wait(MPIETE_B(2), r, MPI_STATUS_IGNORE);
// CHECK-NEXT: }

// MAP:      warning: 'MPI_Win_fence'
// MAP:      warning: 'MPI_Comm_idup'
// MAP:      passed_through:
// MAP-NEXT:   - MPI_Win_fence
// MAP-NEXT:   - MPI_Comm_idup
