// An MPI call written inside a macro's body (not in its arguments) cannot be rewritten at the
// call site: an error names the call, the macro and the place the macro is used.
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include <mpi.h>

#define SEND_ONE(b) MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)
#define CALL(routine, b) routine(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)
#define SYNC() do { MPI_Barrier(MPI_COMM_WORLD); } while (0)

void hidden(int *b) {
  SEND_ONE(b);
  // CHECK: {{.*}}macro-body.c:[[@LINE-1]]:3: error: call to 'MPI_Send' is hidden inside the body of macro 'SEND_ONE'; mpiete can only rewrite MPI calls written in the source or in macro arguments [mpiete-macro]
  CALL(MPI_Send, b);
  // CHECK: {{.*}}macro-body.c:[[@LINE-1]]:3: error: call to 'MPI_Send' is assembled by a macro; mpiete cannot rewrite it [mpiete-macro]
  SYNC();
  // CHECK: {{.*}}macro-body.c:[[@LINE-1]]:3: error: call to 'MPI_Barrier' is hidden inside the body of macro 'SYNC'; {{.*}} [mpiete-macro]
}
