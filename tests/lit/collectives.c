// Every collective the runtime implements becomes a call into it, with one block per site.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

void all(double *s, double *r, int *counts, int *displs, MPI_Comm c) {
  MPI_Barrier(c);
  MPI_Bcast(s, 4, MPI_DOUBLE, 0, c);
  MPI_Reduce(s, r, 4, MPI_DOUBLE, MPI_SUM, 0, c);
  MPI_Allreduce(MPI_IN_PLACE, r, 4, MPI_DOUBLE, MPI_MAX, c);
  MPI_Gather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, c);
  MPI_Gatherv(s, 1, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, 0, c);
  MPI_Scatter(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, c);
  MPI_Scatterv(s, counts, displs, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, c);
  MPI_Allgather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, c);
  MPI_Allgatherv(s, 1, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
  MPI_Alltoall(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, c);
  MPI_Alltoallv(s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
  MPI_Reduce_scatter(s, r, counts, MPI_DOUBLE, MPI_SUM, c);
  MPI_Reduce_scatter_block(s, r, 1, MPI_DOUBLE, MPI_SUM, c);
  MPI_Scan(s, r, 1, MPI_DOUBLE, MPI_SUM, c);
  MPI_Exscan(s, r, 1, MPI_DOUBLE, MPI_SUM, c);
}

// CHECK:      void all(double *s, double *r, int *counts, int *displs, MPI_Comm c) {
// CHECK-NEXT:   mpiete_barrier(MPIETE_B(0), c);
// CHECK-NEXT:   mpiete_bcast(MPIETE_B(1), s, 4, MPI_DOUBLE, 0, c);
// CHECK-NEXT:   mpiete_reduce(MPIETE_B(2), s, r, 4, MPI_DOUBLE, MPI_SUM, 0, c);
// CHECK-NEXT:   mpiete_allreduce(MPIETE_B(3), MPI_IN_PLACE, r, 4, MPI_DOUBLE, MPI_MAX, c);
// CHECK-NEXT:   mpiete_gather(MPIETE_B(4), s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, c);
// CHECK-NEXT:   mpiete_gatherv(MPIETE_B(5), s, 1, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, 0, c);
// CHECK-NEXT:   mpiete_scatter(MPIETE_B(6), s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, c);
// CHECK-NEXT:   mpiete_scatterv(MPIETE_B(7), s, counts, displs, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, c);
// CHECK-NEXT:   mpiete_allgather(MPIETE_B(8), s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, c);
// CHECK-NEXT:   mpiete_allgatherv(MPIETE_B(9), s, 1, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
// CHECK-NEXT:   mpiete_alltoall(MPIETE_B(10), s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, c);
// CHECK-NEXT:   mpiete_alltoallv(MPIETE_B(11), s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
// CHECK-NEXT:   mpiete_reduce_scatter(MPIETE_B(12), s, r, counts, MPI_DOUBLE, MPI_SUM, c);
// CHECK-NEXT:   mpiete_reduce_scatter_block(MPIETE_B(13), s, r, 1, MPI_DOUBLE, MPI_SUM, c);
// CHECK-NEXT:   mpiete_scan(MPIETE_B(14), s, r, 1, MPI_DOUBLE, MPI_SUM, c);
// CHECK-NEXT:   mpiete_exscan(MPIETE_B(15), s, r, 1, MPI_DOUBLE, MPI_SUM, c);
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: collective
// MAP-NOT:    phase:
// MAP:        lines: [8, 8]
// MAP:        routine: MPI_Barrier
// MAP-NEXT:   call: "MPI_Barrier(c)"
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Bcast
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Reduce
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Allreduce
// MAP-NEXT:   call: "MPI_Allreduce(MPI_IN_PLACE, r, 4, MPI_DOUBLE, MPI_MAX, c)"
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Gather
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Gatherv
// MAP:      - id: [[U]]:6
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Scatter
// MAP:      - id: [[U]]:7
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Scatterv
// MAP:      - id: [[U]]:8
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Allgather
// MAP:      - id: [[U]]:9
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Allgatherv
// MAP:      - id: [[U]]:10
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Alltoall
// MAP:      - id: [[U]]:11
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Alltoallv
// MAP:      - id: [[U]]:12
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Reduce_scatter
// MAP:      - id: [[U]]:13
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Reduce_scatter_block
// MAP:      - id: [[U]]:14
// MAP-NEXT:   kind: collective
// MAP:        routine: MPI_Scan
// MAP:      - id: [[U]]:15
// MAP-NEXT:   kind: collective
// MAP:        lines: [23, 23]
// MAP:        routine: MPI_Exscan
// MAP-NOT:  - id:
