/* main.c: driver of the persist-halo test program (periodic 2D heat stencil over row strips,
 * halo rows exchanged with persistent requests: MPI_Startall, interior compute, MPI_Waitall in
 * every time step, as in CFD codes). */
/*
 * Usage:  mpirun -np N ./persist-halo [n] [steps]
 *   n      the grid is n x n, periodic in both directions, split into row strips
 *                                                           default 256   large 2048
 *   steps  time steps                                      default 200   large 380
 * The large size takes about 1.5 s at 2 ranks.
 *
 * Each step: fill the periodic ghost columns, MPI_Startall the 4 persistent halo requests of
 * the current field, compute the rows that need no ghost row, complete the exchange, compute
 * the first and last rows.  The two fields alternate, each with its own persistent requests.
 * Every POLL_EVERY-th step completes the exchange with an MPI_Testall polling loop that
 * computes one interior row per poll; every RING_EVERY-th step and the last reduce the largest
 * change round a ring of persistent MPI_Start/MPI_Wait pairs, then wait again on the inactive
 * halo requests (MPI_Wait and MPI_Waitall, which must return empty statuses).  At the end
 * every request is released with MPI_Request_free.
 *
 * Needs n >= number of ranks (otherwise prints a message and exits 1).  Every cell is
 * computed by the same operations at any rank count, so the result is identical at 1, 2, 3,
 * 4... ranks.  Only rank 0 prints, one line: "checksum: <integer>", a fixed-point weighted
 * sum of the final grid (integers, so independent of the summation order) plus the last
 * step's largest change.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "persist.h"

#define DIFFUSION 0.2          /* explicit heat step factor (stable below 0.25) */
#define MODULUS 1000000007LL   /* the checksum is taken modulo this prime */

void die(const char *file, int line)
{
    fprintf(stderr, "persist-halo: MPI error at %s:%d\n", file, line);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static long parse_arg(int argc, char **argv, int i, long def)
{
    char *end;
    long v;
    if (argc <= i)
        return def;
    v = strtol(argv[i], &end, 10);
    if (*end != '\0')
        return -1;
    return v;
}

/* Initial value of global cell (r, c): a fixed pattern in [0, 1). */
static double initial(long long r, long long c)
{
    return (double)((r * 37 + c * 91 + (r * c) % 53) % 1000) / 1000.0;
}

/* Row strips of the n x n grid, the first n % size ranks one row more; both fields. */
static int grid_init(grid_t *g, int n, MPI_Comm comm)
{
    size_t cells, k;
    int i, j;

    g->n = n;
    g->comm = comm;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    g->nloc = n / g->size + (g->rank < n % g->size ? 1 : 0);
    g->row0 = g->rank * (n / g->size) + (g->rank < n % g->size ? g->rank : n % g->size);
    CHECK(MPI_Cart_shift(comm, 0, 1, &g->up, &g->down));

    cells = (size_t)(g->nloc + 2) * (size_t)(n + 2);
    g->f[0] = malloc(cells * sizeof(double));
    g->f[1] = malloc(cells * sizeof(double));
    if (!g->f[0] || !g->f[1])
        return -1;
    for (k = 0; k < cells; k++)
        g->f[0][k] = g->f[1][k] = 0.0;
    for (i = 1; i <= g->nloc; i++)
        for (j = 1; j <= n; j++)
            g->f[0][IDX(g, i, j)] = initial(g->row0 + i - 1, j - 1);
    return 0;
}

/* Periodic in the columns: ghost columns 0 and n+1 of the owned rows. */
static void fill_ghost_columns(grid_t *g, double *u)
{
    int i;
    for (i = 1; i <= g->nloc; i++) {
        u[IDX(g, i, 0)] = u[IDX(g, i, g->n)];
        u[IDX(g, i, g->n + 1)] = u[IDX(g, i, 1)];
    }
}

/* One explicit heat step u -> v on rows i0..i1; returns the largest change there. */
static double sweep_rows(grid_t *g, const double *u, double *v, int i0, int i1)
{
    double change = 0.0, d;
    int i, j;
    for (i = i0; i <= i1; i++) {
        for (j = 1; j <= g->n; j++) {
            size_t c = IDX(g, i, j);
            v[c] = u[c] + DIFFUSION * (((u[IDX(g, i - 1, j)] + u[IDX(g, i + 1, j)]) +
                                        (u[c - 1] + u[c + 1])) - 4.0 * u[c]);
            d = fabs(v[c] - u[c]);
            if (d > change)
                change = d;
        }
    }
    return change;
}

/* One time step from field `cur` into the other; returns this rank's largest change. */
static double time_step(grid_t *g, int cur, int poll)
{
    double *u = g->f[cur], *v = g->f[1 - cur], change, d;
    int next;

    fill_ghost_columns(g, u);
    halo_start(g, cur);
    if (poll) {
        /* Poll the exchange, computing one interior row between polls. */
        change = 0.0;
        next = 2;
        while (!halo_test(g, cur)) {
            if (next <= g->nloc - 1) {
                d = sweep_rows(g, u, v, next, next);
                change = d > change ? d : change;
                next++;
            }
        }
        d = sweep_rows(g, u, v, next, g->nloc - 1);
        change = d > change ? d : change;
    } else {
        change = sweep_rows(g, u, v, 2, g->nloc - 1);
        halo_wait(g, cur);
    }
    d = sweep_rows(g, u, v, 1, 1);
    change = d > change ? d : change;
    if (g->nloc > 1) {
        d = sweep_rows(g, u, v, g->nloc, g->nloc);
        change = d > change ? d : change;
    }
    return change;
}

/* This rank's share of the checksum: sum of floor(value * 1e6) weighted by the global
 * position, modulo MODULUS (integers: the same in any order and decomposition). */
static long long local_checksum(const grid_t *g, const double *u)
{
    long long sum = 0, r, c;
    int i, j;
    for (i = 1; i <= g->nloc; i++) {
        r = g->row0 + i - 1;
        for (j = 1; j <= g->n; j++) {
            c = j - 1;
            sum += (long long)floor(u[IDX(g, i, j)] * 1e6) * (1 + (r * 131 + c * 71) % 1000);
        }
        sum %= MODULUS;
    }
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size, dims[1], periods[1], step;
    long n, steps;
    long long local, total = 0;
    double change, gmax = 0.0, t0, t1;
    MPI_Comm cart;
    grid_t g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    n = parse_arg(argc, argv, 1, 256);
    steps = parse_arg(argc, argv, 2, 200);
    if (n < 1 || n > 46000 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: persist-halo [n>=1] [steps>=1]\n");
        MPI_Finalize();
        return 1;
    }
    if (n < size) {
        if (rank == 0)
            printf("persist-halo: unsupported: grid size n=%ld is smaller than the %d ranks\n",
                   n, size);
        MPI_Finalize();
        return 1;
    }

    dims[0] = size;
    periods[0] = 1;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    if (grid_init(&g, (int)n, cart) != 0)
        die(__FILE__, __LINE__);
    halo_init(&g);

    MPI_Barrier(cart);

    for (step = 1; step <= steps; step++) {
        change = time_step(&g, (step - 1) & 1, POLL_EVERY > 0 && step % POLL_EVERY == 0);
        if (step % RING_EVERY == 0 || step == steps) {
            gmax = ring_max(&g, change);
            halo_check_inactive(&g, (step - 1) & 1);
        }
    }
    /* Both fields' requests are inactive now (one may never have been started). */
    halo_check_inactive(&g, 0);
    halo_check_inactive(&g, 1);

    local = local_checksum(&g, g.f[steps & 1]);
    CHECK(MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, cart));
    if (rank == 0)
        printf("checksum: %lld\n", (total % MODULUS + (long long)floor(gmax * 1e9)) % MODULUS);

    halo_free(&g);
    free(g.f[0]);
    free(g.f[1]);
    MPI_Comm_free(&cart);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "persist-halo: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
