/* A header whose inline procedure communicates: mpiete instruments main files only. */
#include <mpi.h>
static inline void exchange(int *b) { MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); }
