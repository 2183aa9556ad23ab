/* jacobi.c: grid set-up, Jacobi sweep and local statistics for the jacobi2d test program. */
#include <stdlib.h>
#include "jacobi.h"

#define TOP_VALUE 1.0
#define LEFT_VALUE 0.5

static void set_boundary(grid_t *g, double *f)
{
    int i, j;
    for (i = 0; i < g->nloc + 2; i++) {
        f[IDX(g, i, 0)] = LEFT_VALUE;
        f[IDX(g, i, g->n + 1)] = 0.0;
    }
    if (g->up == MPI_PROC_NULL)
        for (j = 1; j <= g->n; j++)
            f[IDX(g, 0, j)] = TOP_VALUE;
}

/* Row-strip decomposition of an n x n grid; returns -1 if a rank would own no row. */
int grid_init(grid_t *g, int n, MPI_Comm comm)
{
    size_t cells;
    size_t k;

    g->n = n;
    g->comm = comm;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    if (n < g->size)
        return -1;
    g->nloc = n / g->size + (g->rank < n % g->size ? 1 : 0);
    g->row0 = g->rank * (n / g->size) + (g->rank < n % g->size ? g->rank : n % g->size);
    g->up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
    g->down = g->rank < g->size - 1 ? g->rank + 1 : MPI_PROC_NULL;

    cells = (size_t)(g->nloc + 2) * (size_t)(n + 2);
    g->u = malloc(cells * sizeof(double));
    g->unew = malloc(cells * sizeof(double));
    if (!g->u || !g->unew)
        return -1;
    for (k = 0; k < cells; k++)
        g->u[k] = g->unew[k] = 0.0;
    set_boundary(g, g->u);
    set_boundary(g, g->unew);
    return 0;
}

void grid_free(grid_t *g)
{
    free(g->u);
    free(g->unew);
    g->u = g->unew = NULL;
}

/* One Jacobi sweep u -> unew, then swaps them; returns the local sum of squared changes. */
double jacobi_sweep(grid_t *g)
{
    double diff = 0.0, d, *t;
    const double *u = g->u;
    double *un = g->unew;
    int i, j;

    for (i = 1; i <= g->nloc; i++) {
        for (j = 1; j <= g->n; j++) {
            un[IDX(g, i, j)] = 0.25 * (u[IDX(g, i - 1, j)] + u[IDX(g, i + 1, j)] +
                                       u[IDX(g, i, j - 1)] + u[IDX(g, i, j + 1)]);
            d = un[IDX(g, i, j)] - u[IDX(g, i, j)];
            diff += d * d;
        }
    }
    t = g->u;
    g->u = g->unew;
    g->unew = t;
    return diff;
}

void grid_stats(const grid_t *g, double *sum, double *maxval)
{
    double s = 0.0, m = 0.0;
    int i, j;
    for (i = 1; i <= g->nloc; i++)
        for (j = 1; j <= g->n; j++) {
            s += g->u[IDX(g, i, j)];
            if (g->u[IDX(g, i, j)] > m)
                m = g->u[IDX(g, i, j)];
        }
    *sum = s;
    *maxval = m;
}
