/* main.c: driver of the nbc-cg test program (pipelined conjugate gradients on the 2D Poisson
 * matrix, rows split over the ranks, with MPI-3 non-blocking collectives as overlapped solvers
 * use them: MPI_Ibcast, MPI_Iallreduce, MPI_Ireduce, MPI_Iallgather, MPI_Ibarrier). */
/*
 * Usage:  mpirun -np N ./nbc-cg [n] [iterations]
 *   n           the grid is n x n (n * n unknowns, zero boundary), split into row strips
 *                                                           default 512   large 1024
 *   iterations  CG iterations, a fixed count (no convergence test)
 *                                                           default 100   large 200
 * The default takes about 0.2 s at 2 ranks, the large size about 1.5 s.
 *
 * Rank 0 reads the arguments and sends them with MPI_Ibcast (then MPI_Wait).  Solves A x = b,
 * A the 5-point matrix (4 on the diagonal, -1 for the neighbours), b a fixed pattern in
 * [-1, 1), from x = 0, by pipelined CG (solver.c): every iteration starts MPI_Iallreduce of
 * two dot products packed in one array, overlaps it with the halo exchange of w
 * (MPI_Irecv/MPI_Isend with the neighbours, MPI_PROC_NULL at the ends) and the interior rows
 * of the matrix-vector product, completes the reduction and the four point-to-point requests
 * with one MPI_Waitall, then reduces the largest |r| and |w| with MPI_Iallreduce (MPI_MAX)
 * completed by MPI_Wait after the update of x.  Every 10th iteration an MPI_Ireduce sends a
 * per-rank count (owned cells with |r| >= 0.01) to rank 0, completed by MPI_Wait a few
 * statements later.  At the end an MPI_Iallgather of every rank's row count (completed by
 * MPI_Waitall of one request) checks the decomposition, and an MPI_Ibarrier (MPI_Wait)
 * precedes the output.  With -DTEST_EVERY=k (Makefile) every k-th iteration polls the
 * reduction with MPI_Test instead, computing rows of A w between polls.
 *
 * Needs n >= number of ranks (otherwise prints a message and exits 1).  The dot products are
 * computed exactly (terms rounded to a power-of-two quantum, summed as integers, see
 * solver.c), and everything else cell by cell, so every iterate is bitwise the same at 1, 2,
 * 3, 4... ranks.  Only rank 0 prints, one line: "checksum: <integer>", a fixed-point weighted
 * sum of x (integers, so independent of the summation order) plus hashes of the residual
 * history and of the counts.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "nbc.h"

void die(const char *file, int line)
{
    fprintf(stderr, "nbc-cg: MPI error at %s:%d\n", file, line);
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

/* Right-hand side at global cell (r, c): a fixed pattern in [-1, 1). */
static double rhs(long long r, long long c)
{
    return (double)((r * 37 + c * 91 + (r * c) % 53) % 1000) / 500.0 - 1.0;
}

/* Row strips of the n x n grid, the first n % size ranks one row more; eight vectors with
 * (zero) ghost rows. */
static int cg_init(cg_t *g, int n, MPI_Comm comm)
{
    double **v[8];
    size_t cells, k;
    int i, j, m;

    g->n = n;
    g->comm = comm;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    g->nloc = n / g->size + (g->rank < n % g->size ? 1 : 0);
    g->row0 = g->rank * (n / g->size) + (g->rank < n % g->size ? g->rank : n % g->size);
    g->up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
    g->down = g->rank < g->size - 1 ? g->rank + 1 : MPI_PROC_NULL;
    g->gmax[0] = g->gmax[1] = 0.0;
    g->hist = g->stat = g->restarts = g->polls = 0;

    v[0] = &g->b; v[1] = &g->x; v[2] = &g->r; v[3] = &g->w;
    v[4] = &g->p; v[5] = &g->s; v[6] = &g->z; v[7] = &g->q;
    cells = (size_t)(g->nloc + 2) * (size_t)n;
    for (m = 0; m < 8; m++) {
        *v[m] = malloc(cells * sizeof(double));
        if (!*v[m])
            return -1;
        for (k = 0; k < cells; k++)
            (*v[m])[k] = 0.0;
    }
    for (i = 1; i <= g->nloc; i++)
        for (j = 0; j < n; j++)
            g->b[IDX(g, i, j)] = rhs(g->row0 + i - 1, j);
    return 0;
}

static void cg_free(cg_t *g)
{
    free(g->b); free(g->x); free(g->r); free(g->w);
    free(g->p); free(g->s); free(g->z); free(g->q);
}

/* This rank's share of the checksum: sum of round(x * 1e6) weighted by the global position,
 * modulo MODULUS (integers: the same in any order and decomposition). */
static long long local_checksum(const cg_t *g)
{
    long long sum = 0, r, c, v;
    int i, j;
    for (i = 1; i <= g->nloc; i++) {
        r = g->row0 + i - 1;
        for (j = 0; j < g->n; j++) {
            c = j;
            v = (long long)floor(g->x[IDX(g, i, j)] * 1e6 + 0.5) % MODULUS;
            if (v < 0)
                v += MODULUS;
            sum = (sum + v * (1 + (r * 131 + c * 71) % 1000)) % MODULUS;
        }
    }
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size, k, *rows, first;
    long params[2];
    long long local, total = 0, sum;
    double t0, t1;
    MPI_Request req;
    cg_t g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    if (rank == 0) {
        params[0] = parse_arg(argc, argv, 1, 512);
        params[1] = parse_arg(argc, argv, 2, 100);
    }
    CHECK(MPI_Ibcast(params, 2, MPI_LONG, 0, MPI_COMM_WORLD, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (params[0] < 1 || params[0] > 46000 || params[1] < 1 || params[1] > 100000000) {
        if (rank == 0)
            fprintf(stderr, "usage: nbc-cg [n>=1] [iterations>=1]\n");
        MPI_Finalize();
        return 1;
    }
    if (params[0] < size) {
        if (rank == 0)
            printf("nbc-cg: unsupported: grid size n=%ld is smaller than the %d ranks\n",
                   params[0], size);
        MPI_Finalize();
        return 1;
    }

    if (cg_init(&g, (int)params[0], MPI_COMM_WORLD) != 0)
        die(__FILE__, __LINE__);
    cg_setup(&g);
    cg_run(&g, (int)params[1]);

    /* Every rank's row count, gathered to all: the strips must tile the grid in rank order. */
    rows = malloc((size_t)size * sizeof(int));
    if (!rows)
        die(__FILE__, __LINE__);
    CHECK(MPI_Iallgather(&g.nloc, 1, MPI_INT, rows, 1, MPI_INT, g.comm, &req));
    CHECK(MPI_Waitall(1, &req, MPI_STATUSES_IGNORE));
    for (k = 0, first = 0; k < size; k++) {
        if (k == rank && first != g.row0) {
            fprintf(stderr, "nbc-cg: rank %d: gathered row counts do not match\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        first += rows[k];
    }
    if (first != g.n) {
        fprintf(stderr, "nbc-cg: rank %d: gathered row counts do not add up\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(rows);

    local = local_checksum(&g);
    CHECK(MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, g.comm));

    CHECK(MPI_Ibarrier(g.comm, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == 0) {
        sum = (total % MODULUS + g.hist + g.stat % MODULUS + g.restarts) % MODULUS;
        printf("checksum: %lld\n", sum);
    }

    cg_free(&g);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "nbc-cg: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
