/* A rank computing longer than probe-program's --hang-timeout is no hang
   (e2e.wrapper.probe_faults): rank 0 spins for argv[1] seconds of wall time between two MPI
   calls while rank 1 waits in MPI_Recv for it, then both finish normally. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  int rank, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
    volatile double x = 0; /* compute, not sleep: the CPU is busy as in a real phase */
    while (now() < end)
      x += 1e-9;
    v = x > 0;
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return v == 1 ? 0 : 1;
}
