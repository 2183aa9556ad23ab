// The skeleton: what main does after its MPI_Finalize call decides no MPI call (the standard
// forbids them there), so its exit status (the program's own check of results, reduced to
// rank 0) is no criterion, and the computation behind it goes. Where a goto may come into
// those statements (a label after the call), the return stays with all it reads.
// RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax -Wno-unused-variable %t.c
// RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-cflags -DWITH_LABEL | FileCheck --match-full-lines --check-prefix=LABEL %s
#include <mpi.h>

static double work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += 1.0 / (i + 1);
    return s;
}

int main(int argc, char **argv)
{
    int rank, bad, total_bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bad = work(1000000) < 1.0;
    MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
#ifdef WITH_LABEL
    if (rank < 0)
        goto done;
#endif
    MPI_Finalize();
#ifdef WITH_LABEL
done:
#endif
    return total_bad == 0 ? 0 : 1;
}

// CHECK:      int main(int argc, char **argv)
// CHECK-NEXT: {
// CHECK-NEXT:     int rank, bad, total_bad ;
// CHECK-NEXT:     mpiete_init({{.*}}, &argc, &argv);
// CHECK-NEXT:     MPI_Comm_rank(MPI_COMM_WORLD, &rank);
// CHECK-NEXT:     ;
// CHECK-NEXT:     mpiete_reduce({{.*}}, &bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
// CHECK-NEXT: #ifdef WITH_LABEL
// CHECK-NEXT:     if (rank < 0)
// CHECK-NEXT:         goto done;
// CHECK-NEXT: #endif
// CHECK-NEXT:     mpiete_finalize({{.*}});
// CHECK-NEXT: #ifdef WITH_LABEL
// CHECK-NEXT: done:
// CHECK-NEXT: #endif
// CHECK-NEXT:     ;
// CHECK-NEXT: }

// LABEL:          bad = work(1000000) < 1.0;
// LABEL:          return total_bad == 0 ? 0 : 1;
