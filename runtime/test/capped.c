/* The timing probe's capped loops (runtime/lib/TimingCap.cpp), by hand as an instrumented
 * time-step loop calls the ABI: per step a sendrecv around a ring, an allreduce every second
 * step (a period of two), and argv[2] "growing": step t makes t barriers (no period, never
 * capped). Run with MPIETE_CAP=2 and a fresh MPIETE_CAP_BOARD: every rank must leave the
 * periodic loop after the same iteration (the warm-up and 17 measured: MinMeasured, 16, and
 * then the end of a period, as the loop's last step ends one), and run the growing one whole. */
#include "mpiete/instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U 0x00abc124u
#define SITE(i) MPIETE_ID(U, i)

int main(int argc, char **argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 100;
  const int growing = argc > 2 && strcmp(argv[2], "growing") == 0;
  int rank, size, ran = 0, fails = 0;
  mpiete_init(SITE(1), &argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double x = rank, sum = 0;
  for (int t = 0; t < steps; ++t) {
    mpiete_iter(SITE(100));
    ++ran;
    double y = 0;
    mpiete_sendrecv(SITE(10), &x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &y, 1, MPI_DOUBLE,
                    (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (growing)
      for (int k = 0; k < t; ++k)
        mpiete_barrier(SITE(30), MPI_COMM_WORLD);
    else if (t % 2 == 1)
      mpiete_allreduce(SITE(20), &y, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  mpiete_loop_exit(SITE(100));
  /* Every rank left the loop after the same iteration, or this would not match. */
  int most = 0, least = 0;
  mpiete_allreduce(SITE(40), &ran, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  mpiete_allreduce(SITE(41), &ran, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const int want = growing ? steps : 18;
  if (most != least || ran != want) {
    fprintf(stderr, "FAIL rank %d: ran %d iterations (ranks %d to %d), expected %d\n", rank, ran,
            least, most, want);
    fails = 1;
  }
  mpiete_finalize(SITE(2));
  if (fails == 0 && rank == 0)
    printf("capped: %d of %d iterations ran on every rank\n", ran, steps);
  return fails;
}
