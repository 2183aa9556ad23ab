// The skeleton: a procedure's result, and an argument of a procedure the unit slices, are
// needed only where a kept statement uses them (session 61). ring_max()'s maximum goes into
// gmax, which nothing kept reads: its return gives 0, and it is passed 0 for the change, so
// step(), which only computes the change, goes with its loop. count_rows()'s result is a
// message count: it stays. A struct's fields are apart: writing g.sum does not write g.peer,
// which the sends read (persist-halo's ring buffers beside its neighbours).
// RUN: %mpiete-instrument --skeleton-out=%t.skel.c %s -- %mpi-cflags
// RUN: FileCheck --check-prefix=LIST %s < %t.skel.c.removed
// RUN: FileCheck --check-prefix=SKEL %s < %t.skel.c
// RUN: %mpicc-syntax -Wno-unused-variable -Wno-unused-but-set-variable %t.skel.c
#include <mpi.h>
#include <math.h>
#include <stdio.h>

struct grid {
    int peer, n;
    double sum;
};

static double ring_max(double local, MPI_Comm comm)
{
    double best = local, in = 0;
    MPI_Sendrecv(&local, 1, MPI_DOUBLE, 0, 1, &in, 1, MPI_DOUBLE, 0, 1, comm, MPI_STATUS_IGNORE);
    if (in > best)
        best = in;
    return best;
}

static double step(double *u, int n)
{
    double change = 0;
    int i;
    for (i = 1; i < n; i++) {
        double v = 0.5 * (u[i] + u[i - 1]);
        change = fmax(change, fabs(v - u[i]));
        u[i] = v;
    }
    return change;
}

static int count_rows(int n, int rank)
{
    int rows = n / 2;
    if (rank < n % 2)
        rows++;
    return rows;
}

int main(int argc, char **argv)
{
    double u[100], gmax = 0, change;
    struct grid g;
    int rank, it, rows, k;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    g.peer = rank;
    g.n = 100;
    for (k = 0; k < 100; k++)
        u[k] = k;
    rows = count_rows(g.n, rank);
    for (it = 0; it < 10; it++) {
        MPI_Sendrecv_replace(u, rows, MPI_DOUBLE, g.peer, 0, g.peer, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        change = step(u, g.n);
        gmax = ring_max(change, MPI_COMM_WORLD);
        g.sum += gmax;
    }
    if (rank == 0)
        printf("%g %g\n", gmax, g.sum);
    MPI_Finalize();
    return 0;
}

// LIST: # {{.*}}skeleton-value-flows.c: {{[0-9]+}} of {{[0-9]+}} statements removed; message data kept: no
// LIST-DAG: skeleton-value-flows.c:{{[0-9]+}}:{{[0-9]+}}: ring_max: best = local
// LIST-DAG: skeleton-value-flows.c:{{[0-9]+}}:{{[0-9]+}}: ring_max: if (in > best)
// LIST-DAG: skeleton-value-flows.c:{{[0-9]+}}:{{[0-9]+}}: main: change = step(u, g.n);
// LIST-DAG: skeleton-value-flows.c:{{[0-9]+}}:{{[0-9]+}}: main: g.sum += gmax;
// LIST-DAG: skeleton-value-flows.c:{{[0-9]+}}:{{[0-9]+}}: ring_max: value not needed, 0: best
// LIST-DAG: skeleton-value-flows.c:{{[0-9]+}}:{{[0-9]+}}: main: value not needed, 0: change
// LIST-NOT: count_rows
// LIST-NOT: g.peer =

// SKEL: static int count_rows(int n, int rank)
// SKEL: return rows;
// SKEL: return 0;
// SKEL: gmax = ring_max(0, MPI_COMM_WORLD);
