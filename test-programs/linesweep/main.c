/* linesweep: diffusion on an n x n grid, implicit along x (the kind of line solve an ADI or
 * line-relaxation code runs) and explicit along y. The grid is split over a d0 x d1 Cartesian grid of ranks
 * (MPI_Dims_create): the rows are dealt to the process rows and the columns to the process
 * columns, the first n mod d parts one longer, so with n not a multiple of d0 the process rows
 * solve different numbers of lines. Each step solves every local row's tridiagonal system by
 * the Thomas algorithm pipelined over the process columns (sweep.c), then an explicit step
 * along y with the boundary rows exchanged north and south (a row of the rank's columns, so
 * the message sizes differ between process columns too), then the ranks sum the grid for the
 * log.
 *
 * usage: linesweep [n [steps]]   (defaults 600 and 10)
 *
 * Rank 0 checks that the sum over the grid is conserved (the ends let nothing through) and
 * that no value left the initial range, and prints "verification: ... passed" or "FAILED";
 * with TP_TIMING set it prints its MPI_Init-to-MPI_Finalize time on stderr. */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, nproc, n = 600, steps = 10, s, i, j, dims[2] = {0, 0}, periods[2] = {0, 0};
    int coords[2];
    double a = 0.8, local[3], total[3], sum0 = 0.0, lo0 = 0.0, hi0 = 0.0, t0;
    grid g;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        steps = atoi(argv[2]);
    MPI_Dims_create(nproc, 2, dims);
    if (n < dims[0] || n < dims[1] || steps < 1) {
        if (rank == 0)
            printf("linesweep: unsupported n=%d steps=%d at %d ranks\n", n, steps, nproc);
        MPI_Finalize();
        return 0;
    }
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g.cart);
    MPI_Cart_coords(g.cart, rank, 2, coords);
    MPI_Cart_shift(g.cart, 1, 1, &g.west, &g.east);
    MPI_Cart_shift(g.cart, 0, 1, &g.north, &g.south);
    g.prow = coords[0];
    g.pcol = coords[1];
    g.n = n;
    g.nloc = share(n, dims[0], g.prow);
    g.row0 = first(n, dims[0], g.prow);
    g.mloc = share(n, dims[1], g.pcol);
    g.col0 = first(n, dims[1], g.pcol);
    g.u = malloc(sizeof(double) * (size_t)g.nloc * (size_t)g.mloc);
    g.cp = malloc(sizeof(double) * (size_t)g.nloc * (size_t)g.mloc);
    g.dp = malloc(sizeof(double) * (size_t)g.nloc * (size_t)g.mloc);
    g.ghost_n = malloc(sizeof(double) * (size_t)g.mloc);
    g.ghost_s = malloc(sizeof(double) * (size_t)g.mloc);
    if (!g.u || !g.cp || !g.dp || !g.ghost_n || !g.ghost_s) {
        fprintf(stderr, "linesweep: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* A hot square on a cold field, with a gentle slope along y. */
    for (i = 0; i < g.nloc; i++)
        for (j = 0; j < g.mloc; j++) {
            int gi = g.row0 + i, gj = g.col0 + j;
            int hot = gj > n / 3 && gj < n / 2 && gi > n / 4 && gi < 3 * n / 4;
            g.u[(size_t)i * g.mloc + j] = (hot ? 2.0 : 1.0) + (double)gi / (double)n;
        }
    if (rank == 0)
        printf("linesweep: %d x %d grid, %d steps, %d x %d ranks\n", n, n, steps, dims[0],
               dims[1]);

    for (s = 0; s <= steps; s++) {
        if (s > 0) {
            line_solve(&g, a);
            y_step(&g, 0.2);
        }
        local[0] = 0.0;
        local[1] = -HUGE_VAL;
        local[2] = -HUGE_VAL;
        for (i = 0; i < g.nloc * g.mloc; i++) {
            local[0] += g.u[i];
            if (g.u[i] > local[1])
                local[1] = g.u[i];
            if (-g.u[i] > local[2])
                local[2] = -g.u[i];
        }
        MPI_Allreduce(&local[0], &total[0], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&local[1], &total[1], 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (s == 0) {
            sum0 = total[0];
            hi0 = total[1];
            lo0 = -total[2];
        }
        if (rank == 0 && (s == 0 || s == steps))
            printf("step %d: sum %.10e max %.6f min %.6f\n", s, total[0], total[1], -total[2]);
    }
    if (rank == 0) {
        int ok = fabs(total[0] - sum0) <= 1e-10 * fabs(sum0) && total[1] <= hi0 + 1e-12 &&
                 -total[2] >= lo0 - 1e-12;
        printf("verification: line solves conserve the sum: %s\n", ok ? "passed" : "FAILED");
        if (getenv("TP_TIMING"))
            fprintf(stderr, "linesweep: elapsed %.6f s\n", MPI_Wtime() - t0);
    }
    free(g.u);
    free(g.cp);
    free(g.dp);
    free(g.ghost_n);
    free(g.ghost_s);
    MPI_Comm_free(&g.cart);
    MPI_Finalize();
    return 0;
}
