// Segments: the timing probe's cap leaves a loop with `break` and goes on after it, so only a
// loop that ends where it stands gets the hook that can leave it (the mpiete_iter macro). A
// loop the program leaves by return (a master/worker's worker), goto or exit() gets the plain
// call `(mpiete_iter)(...)`: followed, never capped, and an instrumented `for (;;)` still
// cannot fall off the end of its function (no new -Wreturn-type warning).
// RUN: %mpiete-instrument --variant=timing %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax -Werror=return-type %t.c
#include <mpi.h>
#include <stdlib.h>

static int worker(void) {
  int msg, done = 0;
  MPI_Status st;
  for (;;) {
    MPI_Recv(&msg, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == 2)
      return done;
    MPI_Send(&msg, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    done++;
  }
}

static void steps(double *x, int n) {
  for (int t = 0; t < n; ++t) {
    MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (*x > 1e300)
      exit(1);
  }
  for (int t = 0; t < n; ++t) {
    MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (*x > 1e300)
      break;
  }
}

int main(int argc, char **argv) {
  double x = 1;
  MPI_Init(&argc, &argv);
  steps(&x, 4);
  int r = worker();
  MPI_Finalize();
  return r;
}

// CHECK:      static int worker(void) {
// CHECK:        { for (;;) { (mpiete_iter)(MPIETE_B([[W:[0-9]+]])); {
// CHECK:            return done;
// CHECK:        }} mpiete_loop_exit(MPIETE_B([[W]])); }
// CHECK:      static void steps(double *x, int n) {
// CHECK-NEXT:   { for (int t = 0; t < n; ++t) { (mpiete_iter)(MPIETE_B([[E:[0-9]+]])); {
// CHECK:            exit(1);
// CHECK-NEXT:   }} mpiete_loop_exit(MPIETE_B([[E]])); }
// CHECK-NEXT:   { for (int t = 0; t < n; ++t) { mpiete_iter(MPIETE_B([[B:[0-9]+]])); {
// CHECK:            break;
// CHECK-NEXT:   }} mpiete_loop_exit(MPIETE_B([[B]])); }
