/* A deliberate deadlock for probe-program's watchdog (e2e.wrapper.probe_faults): both ranks
   receive first, head to head; rank 2 and up, if any, wait at the barrier. */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank < 2) {
    MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* rank 0 and 1 */
    MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* every other rank */
  MPI_Finalize();
  return v;
}
