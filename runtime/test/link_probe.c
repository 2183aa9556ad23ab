/* A tiny hand-instrumented program, built by link_line.sh exactly as the wrapper links probes:
 * checks the installed-layout headers compile as strict C and the documented link flags work. */
#include "mpiete/instrument.h"

#include <stdio.h>

int main(int argc, char **argv) {
  mpiete_init(MPIETE_ID(7, 0), &argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef PROBE_TIMING
  mpiete_tm_begin(MPIETE_ID(7, 1));
  v = rank + 1;
  mpiete_tm_end(MPIETE_ID(7, 1));
#else
  mpiete_tr_block(MPIETE_ID(7, 1));
  v = rank + 1;
#endif
  int sum = 0;
  mpiete_allreduce(MPIETE_ID(7, 2), &v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("probe: %d ranks, sum %d\n", size, sum);
  mpiete_finalize(MPIETE_ID(7, 3));
  return 0;
}
