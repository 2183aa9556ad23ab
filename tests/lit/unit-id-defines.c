// The unit id hashes the path as given and the -D/-U/-include options: the same file built with
// -DA and with -DB is two units (ids differ in every block), the same flags give the same ids
// again, and flags that do not select code (-O2, -I) leave the id alone.
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags -DA | grep -E '(unit|id):' > %t.a
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags -DB | grep -E '(unit|id):' > %t.b
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags -DA -O2 -I%S | grep -E '(unit|id):' > %t.a2
// RUN: diff %t.a %t.a2
// RUN: not diff %t.a %t.b
// RUN: cat %t.a %t.b | FileCheck %s
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags -DA | FileCheck --check-prefix=TEXT-A %s
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags -DB | FileCheck --check-prefix=TEXT-B %s
#include <mpi.h>

void variant(int *b) {
#ifdef A
  MPI_Send(b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
#else
  MPI_Barrier(MPI_COMM_WORLD);
#endif
}

// CHECK:      - unit: [[A:[0-9a-f]+]]
// CHECK-NEXT:   - id: [[A]]:0
// CHECK-NEXT:   - id: [[A]]:1
// CHECK-NEXT: - unit: [[B:[0-9a-f]+]]
// CHECK-NOT:  [[A]]
// CHECK-NEXT:   - id: [[B]]:0
// CHECK-NOT:  - id:

// TEXT-A: #define MPIETE_B(index) MPIETE_ID(0x[[A:[0-9a-f]+]]u, index)
// TEXT-A: mpiete_send(MPIETE_B(0), b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
// TEXT-B: #define MPIETE_B(index) MPIETE_ID(0x[[B:[0-9a-f]+]]u, index)
// TEXT-B: mpiete_barrier(MPIETE_B(0), MPI_COMM_WORLD);
