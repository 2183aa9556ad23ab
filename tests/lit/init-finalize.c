// MPI_Init, MPI_Init_thread and MPI_Finalize get init and finalize blocks; a call without
// arguments gets the site id alone.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int main(int argc, char **argv) {
  int provided;
  if (argc > 1)
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  else
    MPI_Init(&argc, &argv);
  MPI_Finalize( );
  return 0;
}

// CHECK:      int main(int argc, char **argv) {
// CHECK-NEXT:   int provided;
// CHECK-NEXT:   if (argc > 1)
// CHECK-NEXT:     mpiete_init_thread(MPIETE_B(0), &argc, &argv, MPI_THREAD_FUNNELED, &provided);
// CHECK-NEXT:   else
// CHECK-NEXT:     mpiete_init(MPIETE_B(1), &argc, &argv);
// CHECK-NEXT:   mpiete_finalize(MPIETE_B(2) );
// CHECK-NEXT:   return 0;
// CHECK-NEXT: }

// MAP:      procedures: [main]
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: init
// MAP:        routine: MPI_Init_thread
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: init
// MAP:        routine: MPI_Init
// MAP-NEXT:   call: "MPI_Init(&argc, &argv)"
// MAP-NEXT: - id: [[U]]:2
// MAP-NEXT:   kind: finalize
// MAP-NEXT:   file: {{.*}}init-finalize.c
// MAP-NEXT:   lines: [14, 14]
// MAP-NEXT:   col: 3
// MAP-NEXT:   procedure: main
// MAP-NEXT:   loops: []
// MAP-NEXT:   routine: MPI_Finalize
// MAP-NEXT:   call: "MPI_Finalize( )"
// MAP-NOT:  - id:
