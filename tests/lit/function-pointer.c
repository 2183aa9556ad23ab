// Taking the address of an MPI routine hides its calls from the instrumenter: an error at the
// reference, whether it initializes a variable, is assigned, or is passed as an argument.
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

typedef int (*barrier_fn)(MPI_Comm);
static int run(barrier_fn f) { return f(MPI_COMM_WORLD); }

int pointers(void) {
  barrier_fn f = MPI_Barrier;
  // CHECK: {{.*}}function-pointer.c:[[@LINE-1]]:18: error: MPI routine 'MPI_Barrier' is used as a function pointer; mpiete can only instrument direct calls [mpiete-function-pointer]
  f = &MPI_Barrier;
  // CHECK: {{.*}}function-pointer.c:[[@LINE-1]]:8: error: MPI routine 'MPI_Barrier' is used as a function pointer
  return run(MPI_Barrier) + f(MPI_COMM_WORLD);
  // CHECK: {{.*}}function-pointer.c:[[@LINE-1]]:14: error: MPI routine 'MPI_Barrier' is used as a function pointer
}
