/* neighbor-halo: a 2-D heat equation on a plate split over a Cartesian grid of ranks (periodic
 * along x, fixed walls along y), whose halo exchanges are MPI-3 neighbourhood collectives.
 * Usage: neighbor-halo [N [STEPS]] (defaults 512 200). Prints the plate's total heat and a
 * checksum of corner values every 50 steps and at the end. Set TP_TIMING=1 for rank 0's time
 * from MPI_Init to MPI_Finalize on stderr (the benchmarks' elapsed line). */
#include <stdio.h>
#include <stdlib.h>
#include "halo.h"

static int split(int n, int parts, int me) { return n / parts + (me < n % parts ? 1 : 0); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512, steps = argc > 2 ? atoi(argv[2]) : 200;
    int rank, size, periods[2] = {1, 0}, step, i, j;
    grid_t g;
    double t0;
    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g.dims[0] = g.dims[1] = 0;
    MPI_Dims_create(size, 2, g.dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, g.dims, periods, 0, &g.cart);
    MPI_Comm_rank(g.cart, &rank);
    MPI_Cart_coords(g.cart, rank, 2, g.coords);
    g.nx = split(n, g.dims[0], g.coords[0]);
    g.ny = split(n, g.dims[1], g.coords[1]);
    g.face = g.nx > g.ny ? g.nx : g.ny;
    g.u = calloc((size_t)(g.nx + 2) * (size_t)(g.ny + 2), sizeof(double));
    g.v = calloc((size_t)(g.nx + 2) * (size_t)(g.ny + 2), sizeof(double));
    g.send = calloc(4 * (size_t)g.face, sizeof(double));
    g.recv = calloc(4 * (size_t)g.face, sizeof(double));
    if (!g.u || !g.v || !g.send || !g.recv) {
        fprintf(stderr, "neighbor-halo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* A hot stripe across x, a warm wall at y = 0 (the ghost row of the lowest ranks). */
    for (i = 1; i <= g.nx; i++)
        for (j = 1; j <= g.ny; j++) {
            int r = n % g.dims[1], c = g.coords[1];
            int gy = c * (n / g.dims[1]) + (c < r ? c : r) + j;
            AT(&g, g.u, i, j) = gy > n / 3 && gy < n / 2 ? 100.0 : 0.0;
        }
    if (g.coords[1] == 0)
        for (i = 0; i <= g.nx + 1; i++)
            AT(&g, g.u, i, 0) = 50.0;
    for (step = 1; step <= steps; step++) {
        double *t;
        exchange(&g, step % 4);
        for (i = 1; i <= g.nx; i++)
            for (j = 1; j <= g.ny; j++)
                AT(&g, g.v, i, j) = AT(&g, g.u, i, j) +
                    0.2 * (AT(&g, g.u, i - 1, j) + AT(&g, g.u, i + 1, j) + AT(&g, g.u, i, j - 1) +
                           AT(&g, g.u, i, j + 1) - 4.0 * AT(&g, g.u, i, j));
        for (i = 0; i <= g.nx + 1; i++) { /* the walls' ghost rows stay */
            AT(&g, g.v, i, 0) = AT(&g, g.u, i, 0);
            AT(&g, g.v, i, g.ny + 1) = AT(&g, g.u, i, g.ny + 1);
        }
        t = g.u; g.u = g.v; g.v = t;
        if (step % 50 == 0 || step == steps) {
            double local = 0, total = 0, corners = corner_sum(&g), all = 0;
            for (i = 1; i <= g.nx; i++)
                for (j = 1; j <= g.ny; j++)
                    local += AT(&g, g.u, i, j);
            MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, g.cart);
            MPI_Reduce(&corners, &all, 1, MPI_DOUBLE, MPI_SUM, 0, g.cart);
            if (rank == 0)
                printf("step %d heat %.10e corners %.10e\n", step, total, all);
        }
    }
    free(g.u); free(g.v); free(g.send); free(g.recv);
    MPI_Comm_free(&g.cart);
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "neighbor-halo: elapsed %.6f s\n", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
