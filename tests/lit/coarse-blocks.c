// By default a loop nest or branch made only of computation is part of the compute block
// around it: one hook pair per execution of the whole, however many iterations run inside.
// A loop that communicates, or one a goto leaves, still ends the blocks around it.
// RUN: %mpiete-instrument --coarse-blocks --variant=timing %s -- %mpi-cflags | FileCheck %s --match-full-lines
// RUN: %mpiete-instrument --coarse-blocks --variant=timing %s -- %mpi-cflags > %t.c && %mpicc-syntax %t.c
#include <mpi.h>

void sweep(double *a, int n, int *b) {
  a[0] = 1;
  for (int i = 0; i < n; ++i) {
    if (a[i] < 0)
      a[i] = 0;
    for (int j = 0; j < n; ++j)
      a[j] += i;
  }
  for (int i = 0; i < n; ++i) {
    a[i] *= 2;
    MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
}
// CHECK:      void sweep(double *a, int n, int *b) {
// CHECK-NEXT:   mpiete_tm_begin(MPIETE_B(0)); a[0] = 1;
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     if (a[i] < 0)
// CHECK-NEXT:       a[i] = 0;
// CHECK-NEXT:     for (int j = 0; j < n; ++j)
// CHECK-NEXT:       a[j] += i;
// CHECK-NEXT:   } mpiete_tm_end(MPIETE_B(0));
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     mpiete_tm_begin(MPIETE_B(1)); a[i] *= 2; mpiete_tm_end(MPIETE_B(1));
// CHECK-NEXT:     mpiete_send(MPIETE_B(2), b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
// CHECK-NEXT:   }
// CHECK-NEXT: }
