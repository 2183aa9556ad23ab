/* sweep.c: the pipelined tridiagonal line solve of linesweep (see sweep.h). */
#include "sweep.h"

#include <stdlib.h>

int share(int n, int np, int p)
{
    return n / np + (p < n % np ? 1 : 0);
}

int first(int n, int np, int p)
{
    return p * (n / np) + (p < n % np ? p : n % np);
}

/* The matrix of column j of a global row of n: -a, 1 + 2a, -a, the ends 1 + a. */
static double diag(int j, int n, double a)
{
    return (j == 0 || j == n - 1) ? 1.0 + a : 1.0 + 2.0 * a;
}

void line_solve(grid *g, double a)
{
    int i, j;
    double in[2], out[2], x;
    MPI_Status st;

    /* Forward elimination, row after row: each row's modified coefficients of the last column
     * go east while the west neighbour already works on the next row. */
    for (i = 0; i < g->nloc; i++) {
        const double *u = g->u + (size_t)i * g->mloc;
        double *cp = g->cp + (size_t)i * g->mloc, *dp = g->dp + (size_t)i * g->mloc;
        double cprev = 0.0, dprev = 0.0, m;

        in[0] = in[1] = 0.0;
        MPI_Recv(in, 2, MPI_DOUBLE, g->west, 4, g->cart, &st);
        if (g->west != MPI_PROC_NULL) {
            cprev = in[0];
            dprev = in[1];
        }
        for (j = 0; j < g->mloc; j++) {
            int gj = g->col0 + j;
            double lo = gj == 0 ? 0.0 : -a, up = gj == g->n - 1 ? 0.0 : -a;
            m = diag(gj, g->n, a) - lo * cprev;
            cp[j] = up / m;
            dp[j] = (u[j] - lo * dprev) / m;
            cprev = cp[j];
            dprev = dp[j];
        }
        out[0] = cprev;
        out[1] = dprev;
        MPI_Send(out, 2, MPI_DOUBLE, g->east, 4, g->cart);
    }
    /* Back substitution, row after row: the first unknown goes west. */
    for (i = 0; i < g->nloc; i++) {
        double *u = g->u + (size_t)i * g->mloc;
        const double *cp = g->cp + (size_t)i * g->mloc, *dp = g->dp + (size_t)i * g->mloc;

        x = 0.0;
        MPI_Recv(&x, 1, MPI_DOUBLE, g->east, 5, g->cart, &st);
        for (j = g->mloc - 1; j >= 0; j--) {
            x = dp[j] - cp[j] * x;
            u[j] = x;
        }
        MPI_Send(&x, 1, MPI_DOUBLE, g->west, 5, g->cart);
    }
}

void y_step(grid *g, double b)
{
    int i, j, m = g->mloc;
    double *u = g->u, *prev = g->cp; /* cp holds the previous row's old values */
    MPI_Status st;

    /* The first row goes north, the south neighbour's first row comes in; then the other way.
     * At the grid's ends the ghost is the row itself (no flux). */
    MPI_Sendrecv(u, m, MPI_DOUBLE, g->north, 6, g->ghost_s, m, MPI_DOUBLE, g->south, 6, g->cart,
                 &st);
    MPI_Sendrecv(u + (size_t)(g->nloc - 1) * m, m, MPI_DOUBLE, g->south, 7, g->ghost_n, m,
                 MPI_DOUBLE, g->north, 7, g->cart, &st);
    if (g->north == MPI_PROC_NULL)
        for (j = 0; j < m; j++)
            g->ghost_n[j] = u[j];
    if (g->south == MPI_PROC_NULL)
        for (j = 0; j < m; j++)
            g->ghost_s[j] = u[(size_t)(g->nloc - 1) * m + j];
    for (j = 0; j < m; j++)
        prev[j] = g->ghost_n[j];
    for (i = 0; i < g->nloc; i++) {
        double *row = u + (size_t)i * m;
        const double *next = i + 1 < g->nloc ? row + m : g->ghost_s;
        for (j = 0; j < m; j++) {
            double old = row[j];
            row[j] = old + b * (prev[j] - 2.0 * old + next[j]);
            prev[j] = old;
        }
    }
}
