/* bench/dirty-pingpong: is a message slower when its buffer was just written (ring's case,
 * docs/accuracy.md)? Build: mpicc -O2 pp.c -o pp; run: mpirun -np 2 --bind-to core ./pp 16384 3000
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) {
  double x = *(double *)a, y = *(double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi(argv[1]) : 16384, reps = argc > 2 ? atoi(argv[2]) : 2000;
  unsigned *buf = malloc(n);
  volatile unsigned sink = 0;
  memset(buf, 1, n);
  double *t = malloc(sizeof(double) * reps);
  for (int mode = 0; mode < 3; ++mode) {
    for (int r = -100; r < reps; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (rank == 0) {
        if (mode >= 1)
          for (int j = 0; j < n / 4; ++j)
            buf[j] += j; /* write before send */
        MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (mode == 2) {
          unsigned s = 0;
          for (int j = 0; j < n / 4; ++j)
            s += buf[j];
          sink += s;
        }
      } else {
        MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (mode == 2) {
          unsigned s = 0;
          for (int j = 0; j < n / 4; ++j)
            s += buf[j];
          sink += s;
        }
        if (mode >= 1)
          for (int j = 0; j < n / 4; ++j)
            buf[j] += j;
        MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
      double dt = MPI_Wtime() - t0;
      if (r >= 0)
        t[r] = dt;
    }
    if (rank == 0) {
      qsort(t, reps, sizeof(double), cmp);
      printf("mode %s n=%d: one-way min %.2f us median %.2f us (round trip incl. touch)\n",
             mode == 0   ? "clean"
             : mode == 1 ? "write-before-send"
                         : "write+read",
             n, t[0] / 2 * 1e6, t[reps / 2] / 2 * 1e6);
    }
  }
  /* the touch cost alone */
  if (rank == 0) {
    double best = 1e9;
    for (int r = 0; r < 2000; ++r) {
      double t0 = MPI_Wtime();
      for (int j = 0; j < n / 4; ++j)
        buf[j] += j;
      double dt = MPI_Wtime() - t0;
      if (dt < best)
        best = dt;
    }
    printf("write pass alone: %.2f us\n", best * 1e6);
  }
  MPI_Finalize();
  return 0;
}
