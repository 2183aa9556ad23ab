// The skeleton: an MPI handle is a value, not a pointer the program writes through. Open MPI's
// MPI_Comm and MPI_Request are pointers to structs mpi.h leaves incomplete; kept in one struct
// beside the data arrays (persist-halo, nbc-cg, neighbor-halo), they used to share the arrays'
// memory class, so every write to the arrays was "read" by each MPI call given the struct's
// communicator, and the computation stayed. The loop that fills the halo's data goes; the
// loop that sets the peers and the count stays (MPICH's handles are integers: the same).
// RUN: %mpiete-instrument --skeleton-out=%t.skel.c %s -- %mpi-cflags
// RUN: FileCheck --check-prefix=LIST %s < %t.skel.c.removed
// RUN: %mpicc-syntax -Wno-unused-variable %t.skel.c
#include <mpi.h>
#include <stdlib.h>

typedef struct {
    int n, up, down;
    MPI_Comm comm;
    double *u;
    MPI_Request req[2];
} grid_t;

static void exchange(grid_t *g)
{
    MPI_Irecv(g->u, 1, MPI_DOUBLE, g->up, 1, g->comm, &g->req[0]);
    MPI_Isend(g->u + g->n - 1, 1, MPI_DOUBLE, g->down, 1, g->comm, &g->req[1]);
    MPI_Waitall(2, g->req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    grid_t g;
    int rank, size, step, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
    MPI_Comm_rank(g.comm, &rank);
    MPI_Comm_size(g.comm, &size);
    g.n = 1000;
    g.up = (rank + size - 1) % size;
    g.down = (rank + 1) % size;
    g.u = calloc((size_t)g.n, sizeof(double));
    for (step = 0; step < 100; step++) {
        exchange(&g);
        for (i = 1; i < g.n; i++)
            g.u[i] = 0.5 * (g.u[i] + g.u[i - 1]);
    }
    MPI_Comm_free(&g.comm);
    free(g.u);
    MPI_Finalize();
    return 0;
}

// LIST:      # {{.*}}skeleton-mpi-handle.c: {{[0-9]+}} of {{[0-9]+}} statements removed; message data kept: no
// LIST:      {{.*}}skeleton-mpi-handle.c:41:9: main: for (i = 1; i < g.n; i++)
// LIST-NOT:  g.up =
