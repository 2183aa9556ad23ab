// A unit that makes no MPI call mpiete rewrites (MPI_Comm_rank only asks) is built natively:
// given --native-out, mpiete-instrument writes that note and no variant or block map.
// RUN: rm -rf %t && mkdir %t
// RUN: %mpiete-instrument --trace-out=%t/v.trace.c --timing-out=%t/v.timing.c --blocks-out=%t/v.blocks.yaml --native-out=%t/v.native %s -- %mpi-cflags
// RUN: cat %t/v.native | FileCheck %s
// RUN: not ls %t/v.trace.c
// RUN: not ls %t/v.timing.c
// RUN: not ls %t/v.blocks.yaml
// CHECK: native: no MPI calls
#include <mpi.h>

int rank_of_world(void) {
  int r = 0;
  for (int i = 0; i < 1; ++i)
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
