// A compute block that fills a single-statement slot (if / else / loop body / case without
// braces) gets braces around its hook and statement; the slot stays one statement.
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags | tee %t.timing.c | FileCheck --match-full-lines --check-prefix=TIMING %s
// RUN: %mpicc-syntax %t.timing.c
#include <mpi.h>

int slots(int *b, int n, int mode) {
  int x = 0;
  if (mode == 0)
    x = n * 2;
  else if (mode == 1)
    MPI_Send(b, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
  else
    x = -n;
  if (x) x++; else MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i)
    if (b[i] > 0)
      MPI_Send(b, i, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else
      b[i] = 0;
  while (x < n)
    if (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) x += 2;
  switch (mode)
  case 3: x = 3;
  return x;
}

// CHECK:      int slots(int *b, int n, int mode) {
// CHECK-NEXT:   int x = 0;
// CHECK-NEXT:   if (mode == 0)
// CHECK-NEXT:     { mpiete_tr_block(MPIETE_B(0)); x = n * 2; }
// CHECK-NEXT:   else if (mode == 1)
// CHECK-NEXT:     mpiete_send(MPIETE_B(1), b, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
// CHECK-NEXT:   else
// CHECK-NEXT:     { mpiete_tr_block(MPIETE_B(3)); x = -n; }
// CHECK-NEXT:   if (x) { mpiete_tr_block(MPIETE_B(4)); x++; } else mpiete_barrier(MPIETE_B(5), MPI_COMM_WORLD);
// CHECK-NEXT:   for (int i = 0; i < n; ++i)
// CHECK-NEXT:     if (b[i] > 0)
// CHECK-NEXT:       mpiete_send(MPIETE_B(6), b, i, MPI_INT, 1, 0, MPI_COMM_WORLD);
// CHECK-NEXT:     else
// CHECK-NEXT:       { mpiete_tr_block(MPIETE_B(8)); b[i] = 0; }
// CHECK-NEXT:   while (x < n)
// CHECK-NEXT:     if (mpiete_barrier(MPIETE_B(9), MPI_COMM_WORLD) == MPI_SUCCESS) { mpiete_tr_block(MPIETE_B(10)); x += 2; }
// CHECK-NEXT:   switch (mode)
// CHECK-NEXT:   case 3: { mpiete_tr_block(MPIETE_B(11)); x = 3; }
// CHECK-NEXT:   return x;
// CHECK-NEXT: }

// TIMING:      if (mode == 0)
// TIMING-NEXT:   { mpiete_tm_begin(MPIETE_B(0)); x = n * 2; mpiete_tm_end(MPIETE_B(0)); }
// TIMING:      if (x) { mpiete_tm_begin(MPIETE_B(4)); x++; mpiete_tm_end(MPIETE_B(4)); } else mpiete_barrier(MPIETE_B(5), MPI_COMM_WORLD);
// TIMING:      case 3: { mpiete_tm_begin(MPIETE_B(11)); x = 3; mpiete_tm_end(MPIETE_B(11)); }
