/* The communication of the two-file test: main.c's loops reach it through calls into this
 * file, so their MPI calls are visible only at run time. */
#include "steps.h"

#include <mpi.h>

double step_rare(double x, int t, int every) {
  int rank, size;
  double y = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &y, 1, MPI_DOUBLE, (rank + size - 1) % size,
               0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (t % every == every - 1)
    MPI_Allreduce(&y, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return work(y + sum, t);
}

double step(double x, int t) { return step_rare(x, t, 2); }

void send_to(int peer, int t) { MPI_Send(&t, 1, MPI_INT, peer, 1, MPI_COMM_WORLD); }

void recv_from(int peer, int t) {
  int got = -1;
  MPI_Recv(&got, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (got != t)
    MPI_Abort(MPI_COMM_WORLD, 2);
}

double work(double x, int t) {
  for (int k = 0; k < 2000; ++k)
    x = x * 0.999 + (double)(t % 7);
  return x;
}
