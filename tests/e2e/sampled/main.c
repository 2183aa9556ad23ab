/* The sampled timing probe's test program: mpirun -np 2 sampled MODE [n] [steps]
 *   triangle  steps x (triangle(n), MPI_Allreduce): prints the rows that ran on rank 0
 *   short     the same with short_rows(n), whose rows are too short to sample
 *   steer     fill(n) and, when an entry is wrong (the skipped ones of a sampled run), an
 *             extra message from rank 0 to rank 1: the communication depends on the loop's data
 *   abort     the same, but a wrong entry makes the program call MPI_Abort
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

int main(int argc, char **argv) {
  int rank, size, step, steps, n, i, count;
  long long rows = 0;
  double s, total = 0.0;
  int *idx;
  const char *mode;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mode = argc > 1 ? argv[1] : "triangle";
  n = argc > 2 ? atoi(argv[2]) : 400;
  steps = argc > 3 ? atoi(argv[3]) : 3;
  if (strcmp(mode, "triangle") == 0 || strcmp(mode, "short") == 0) {
    for (step = 0; step < steps; step++) {
      s = mode[0] == 't' ? triangle(n, &rows) : short_rows(n, &rows);
      MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
      printf("rows %lld of %lld\n", rows, (long long)n * steps);
  } else {
    idx = calloc((size_t)n, sizeof *idx);
    if (idx == NULL)
      MPI_Abort(MPI_COMM_WORLD, 2);
    fill(n, idx);
    count = 0;
    for (i = 0; i < n; i++)
      count += idx[i] == i;
    if (count != n && strcmp(mode, "abort") == 0) {
      fprintf(stderr, "sampled: %d of %d entries wrong\n", n - count, n);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (count != n && size > 1) {
      if (rank == 0)
        MPI_Send(&count, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
      else if (rank == 1)
        MPI_Recv(&count, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      printf("entries right %d of %d\n", count, n);
    free(idx);
  }
  MPI_Finalize();
  return 0;
}
