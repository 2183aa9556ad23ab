/* The capped timing probe's two-file test (tests/e2e/capped_probe.py): every loop here calls
 * steps.c, so mpiete-cc gives it the opaque loop hooks, and the timing probe decides at run
 * time whether it makes MPI calls.
 * Usage: mpirun -np N ./twofile MODE STEPS
 *   loop     every rank runs one loop of STEPS steps (sendrecv, allreduce every second step)
 *   some     rank 0 sends STEPS messages to rank 1 in one loop, rank 1 receives them in another
 *   compute  a loop of computation only (steps.c's work), then one allreduce
 *   check    as loop, then, after MPI_Finalize, fails (exit 1) unless all STEPS steps ran
 *   abort    as loop, then stops before MPI_Finalize (exit 3) unless all STEPS steps ran
 *   rare     every rank runs one loop of STEPS steps (sendrecv, allreduce every 40th step)
 *   rarer    the same with an allreduce every 250th step
 *   rare-last  as rare, with an allreduce at the last step too
 *   single   every rank runs one loop of STEPS steps (sendrecv and allreduce every step, then
 *            200 times steps.c's work: about a millisecond, well above the clock's noise)
 * Prints "ran N of STEPS" on rank 0. */
#include "steps.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, size, t, ran = 0, status = 0;
  double x = 1.0, sum = 0;
  const char *mode;
  int steps;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mode = argc > 1 ? argv[1] : "loop";
  steps = argc > 2 ? atoi(argv[2]) : 100;
  if (strcmp(mode, "loop") == 0 || strcmp(mode, "check") == 0 || strcmp(mode, "abort") == 0) {
    for (t = 0; t < steps; t++) {
      x = step(x, t);
      ran++;
    }
    if (strcmp(mode, "check") == 0 && ran != steps)
      status = 1;
    if (strcmp(mode, "abort") == 0 && ran != steps) {
      if (rank == 0)
        printf("ran %d of %d\n", ran, steps);
      fflush(stdout);
      exit(3);
    }
  } else if (strncmp(mode, "rare", 4) == 0) {
    const int every = strcmp(mode, "rarer") == 0 ? 250 : 40;
    const int last = strcmp(mode, "rare-last") == 0;
    for (t = 0; t < steps; t++) {
      x = step_rare(x, t, last && t == steps - 1 ? 1 : every);
      ran++;
    }
  } else if (strcmp(mode, "single") == 0) {
    for (t = 0; t < steps; t++) {
      x = step_rare(x, t, 1);
      for (int k = 0; k < 200; ++k)
        x = work(x, t);
      ran++;
    }
  } else if (strcmp(mode, "some") == 0) {
    if (rank == 0)
      for (t = 0; t < steps; t++) {
        send_to(1, t);
        ran++;
      }
    else if (rank == 1)
      for (t = 0; t < steps; t++) {
        recv_from(0, t);
        ran++;
      }
  } else {
    for (t = 0; t < steps; t++) {
      x = work(x, t);
      ran++;
    }
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("ran %d of %d\n", ran, steps);
  MPI_Finalize();
  return status;
}
