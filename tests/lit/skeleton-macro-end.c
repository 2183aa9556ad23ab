// The skeleton: a statement the slice does not need goes even when it begins or ends in a
// macro's expansion (`% PRIME`, a function-like macro around the whole statement): its text is
// whole invocations and file text. A statement that is only part of a macro's expansion stays,
// and the header counts only the statements whose text went (session 59: alltoallw-transpose's
// update loop, ending in `% PRIME`, was counted removed and kept).
// RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax -Wno-unused-variable %t.c
// RUN: %mpiete-instrument --skeleton-out=%t.skel.c %s -- %mpi-cflags
// RUN: FileCheck --check-prefix=LIST %s < %t.skel.c.removed
#include <mpi.h>

#define PRIME 1000003
#define SCALE(x) ((x) * 3 % PRIME)
#define TWICE(a, b) a = b + 1; a = a * 2

int main(int argc, char **argv)
{
    int rank, n = 64, i, x = 0, y = 0;
    long v[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < n; i++)
        v[i] = (v[i] * 7 + i) % PRIME;
    x = SCALE(rank);
    TWICE(y, x);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// CHECK:      int main(int argc, char **argv)
// CHECK-NEXT: {
// CHECK-NEXT:     int rank, n , i, x , y ;
// CHECK-NEXT:     long v[64];
// CHECK-NEXT:     mpiete_init({{.*}}, &argc, &argv);
// CHECK-NEXT:     MPI_Comm_rank(MPI_COMM_WORLD, &rank);
// CHECK-NEXT:     ;
// CHECK-EMPTY:
// CHECK-NEXT:     ;
// CHECK-NEXT:     TWICE(y, x);
// CHECK-NEXT:     mpiete_barrier({{.*}}, MPI_COMM_WORLD);

// The two statements of TWICE are not counted: 6 of 13 are the three initialisers, the loop
// with its body, and x's assignment.
// LIST:      # {{.*}}skeleton-macro-end.c: 6 of 13 statements removed; message data kept: no
// LIST:      {{.*}}skeleton-macro-end.c:22:5: main: for (i = 0; i < n; i++)
// LIST-NEXT: {{.*}}skeleton-macro-end.c:24:5: main: x = SCALE(rank);
// LIST-NOT:  TWICE
