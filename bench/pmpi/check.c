/* Known compute for checking pmpiclock.c: rank r spins STEPS x (r+1) x MS ms between MPI calls. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return (double)Ts.tv_sec + 1e-9 * (double)Ts.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const int Steps = argc > 1 ? atoi(argv[1]) : 10;
  const double Spin = (argc > 2 ? atof(argv[2]) : 20.0) * 1e-3 * (Rank + 1);
  double Busy = 0, X = 1;
  for (int S = 0; S < Steps; ++S) {
    const double T0 = now();
    while (now() - T0 < Spin)
      X = X * 1.0000001 + 1e-9;
    Busy += now() - T0;
    double Sum;
    MPI_Allreduce(&X, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  fprintf(stderr, "check: rank %d spun %.9f s\n", Rank, Busy);
  MPI_Finalize();
  return X < 0;
}
