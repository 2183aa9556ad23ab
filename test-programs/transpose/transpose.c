/* transpose: FFT-like distributed matrix transposes with MPI_Alltoall/MPI_Alltoallv on MPI_Comm_split sub-communicators. */
/*
 * Usage:  mpirun -np N ./transpose [n] [planes] [reps]
 *   n       each plane is an n x n matrix of 32-bit integers        default 64    large 1024
 *   planes  number of independent planes                           default 4     large 12
 *   reps    forward+backward transpose repetitions per plane       default 4     large 8
 *
 * The ranks form a pr x pc process grid (pr = largest divisor of the rank
 * count with pr*pr <= size; so 1x1, 1x2, 1x3, 2x2, ...).  Each process row is
 * an MPI_Comm_split sub-communicator and owns the planes p with p % pr == row.
 * Within a row the plane is distributed by matrix rows; one repetition is:
 * forward transpose (MPI_Alltoall, padded equal blocks), a scan along the
 * rows of the transposed matrix, backward transpose (MPI_Alltoallv, exact
 * counts) and a scan along the original rows.  MPI_Allgather of local sums
 * checks that every transpose preserves the plane sum.  The final checksum
 * (MPI_Reduce, modular integer sum) is the same at every rank count.
 * Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

typedef struct {
    MPI_Comm comm;  /* the process-row communicator */
    int me, P;      /* rank and size in comm */
    int n, mb;      /* matrix side, padded block side ceil(n/P) */
    int *cnt, *start;
} rowgroup_t;

static unsigned hash3(unsigned a, unsigned b, unsigned c)
{
    unsigned h = a * 0x9e3779b1u ^ b * 0x85ebca77u ^ c * 0xc2b2ae3du;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

/* Mixing scan along each row of a rows x n block (stands in for a 1D FFT). */
static void scan_rows(unsigned *m, int rows, int n, unsigned salt)
{
    int r, k;
    for (r = 0; r < rows; r++) {
        unsigned *row = m + (size_t)r * n;
        for (k = 1; k < n; k++)
            row[k] = (row[k] + row[k - 1] * 1664525u + salt) ^ (unsigned)k;
    }
}

static u64 local_sum(const unsigned *m, size_t len)
{
    u64 s = 0;
    size_t k;
    for (k = 0; k < len; k++)
        s += m[k];
    return s;
}

/* Sum over the row group of every member's local sum, via MPI_Allgather. */
static u64 group_sum(rowgroup_t *g, u64 mine, u64 *gathered)
{
    u64 s = 0;
    int k, rc;

    rc = MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, gathered, 1, MPI_UNSIGNED_LONG_LONG, g->comm);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (k = 0; k < g->P; k++)
        s += gathered[k];
    return s;
}

/* m (cnt[me] x n, my matrix rows) -> t (cnt[me] x n, my rows of the transpose). */
static void forward_transpose(rowgroup_t *g, const unsigned *m, unsigned *t, unsigned *sbuf, unsigned *rbuf)
{
    int mb = g->mb, n = g->n, d, s, i, jj, rc;
    size_t bs = (size_t)mb * mb;

    memset(sbuf, 0, bs * g->P * sizeof(unsigned));
    for (d = 0; d < g->P; d++)
        for (i = 0; i < g->cnt[g->me]; i++)
            for (jj = 0; jj < g->cnt[d]; jj++)
                sbuf[d * bs + (size_t)i * mb + jj] = m[(size_t)i * n + g->start[d] + jj];
    rc = MPI_Alltoall(sbuf, mb * mb, MPI_UNSIGNED, rbuf, mb * mb, MPI_UNSIGNED, g->comm);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (s = 0; s < g->P; s++)
        for (i = 0; i < g->cnt[s]; i++)
            for (jj = 0; jj < g->cnt[g->me]; jj++)
                t[(size_t)jj * n + g->start[s] + i] = rbuf[s * bs + (size_t)i * mb + jj];
}

/* t (my rows of the transpose) -> m (my matrix rows), exact counts with MPI_Alltoallv. */
static void backward_transpose(rowgroup_t *g, const unsigned *t, unsigned *m, unsigned *sbuf, unsigned *rbuf)
{
    int P = g->P, me = g->me, n = g->n, k, r, i;
    int *scounts = malloc(4 * (size_t)P * sizeof(int));
    int *sdispls = scounts + P, *rcounts = scounts + 2 * P, *rdispls = scounts + 3 * P;

    if (!scounts)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (k = 0; k < P; k++) {
        scounts[k] = g->cnt[me] * g->cnt[k];
        rcounts[k] = g->cnt[k] * g->cnt[me];
        sdispls[k] = k == 0 ? 0 : sdispls[k - 1] + scounts[k - 1];
        rdispls[k] = k == 0 ? 0 : rdispls[k - 1] + rcounts[k - 1];
    }
    for (k = 0; k < P; k++)
        for (r = 0; r < g->cnt[me]; r++)
            for (i = 0; i < g->cnt[k]; i++)
                sbuf[sdispls[k] + r * g->cnt[k] + i] = t[(size_t)r * n + g->start[k] + i];
    if (MPI_Alltoallv(sbuf, scounts, sdispls, MPI_UNSIGNED,
                      rbuf, rcounts, rdispls, MPI_UNSIGNED, g->comm) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (k = 0; k < P; k++)
        for (r = 0; r < g->cnt[k]; r++)
            for (i = 0; i < g->cnt[me]; i++)
                m[(size_t)i * n + g->start[k] + r] = rbuf[rdispls[k] + r * g->cnt[me] + i];
    free(scounts);
}

int main(int argc, char **argv)
{
    int rank, size, pr, pc, row, col, n, planes, reps, p, rep, i, j, k, rc;
    int bad = 0, total_bad = 0, my_planes = 0;
    u64 check = 0, total = 0, before, after, *gathered;
    unsigned *m, *t, *sbuf, *rbuf;
    double t0, t1;
    MPI_Comm lib;
    rowgroup_t g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    n = argc > 1 ? atoi(argv[1]) : 64;
    planes = argc > 2 ? atoi(argv[2]) : 4;
    reps = argc > 3 ? atoi(argv[3]) : 4;
    if (n < 1 || n > 20000 || planes < 1 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: transpose [1<=n<=20000] [planes>=1] [reps>=1]\n");
        MPI_Finalize();
        return 1;
    }

    /* process grid */
    for (pr = 1, k = 1; k * k <= size; k++)
        if (size % k == 0)
            pr = k;
    pc = size / pr;
    row = rank / pc;
    col = rank % pc;

    /* a private duplicate of MPI_COMM_WORLD, split into process rows */
    MPI_Comm_dup(MPI_COMM_WORLD, &lib);
    rc = MPI_Comm_split(lib, row, col, &g.comm);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Comm_rank(g.comm, &g.me);
    MPI_Comm_size(g.comm, &g.P);
    g.n = n;
    g.mb = (n + g.P - 1) / g.P;
    g.cnt = malloc(2 * (size_t)g.P * sizeof(int));
    g.start = g.cnt + g.P;
    gathered = malloc((size_t)g.P * sizeof(u64));
    for (k = 0; k < g.P; k++) {
        g.cnt[k] = n / g.P + (k < n % g.P ? 1 : 0);
        g.start[k] = k * (n / g.P) + (k < n % g.P ? k : n % g.P);
    }
    m = malloc((size_t)g.mb * n * sizeof(unsigned));
    t = malloc((size_t)g.mb * n * sizeof(unsigned));
    sbuf = malloc((size_t)g.mb * g.mb * g.P * sizeof(unsigned));
    rbuf = malloc((size_t)g.mb * g.mb * g.P * sizeof(unsigned));
    if (!g.cnt || !gathered || !m || !t || !sbuf || !rbuf) {
        fprintf(stderr, "transpose: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    for (p = 0; p < planes; p++) {
        if (p % pr != row)
            continue; /* another process row owns this plane */
        my_planes++;
        for (i = 0; i < g.cnt[g.me]; i++)
            for (j = 0; j < n; j++)
                m[(size_t)i * n + j] = hash3((unsigned)p, (unsigned)(g.start[g.me] + i), (unsigned)j);

        for (rep = 0; rep < reps; rep++) {
            before = group_sum(&g, local_sum(m, (size_t)g.cnt[g.me] * n), gathered);
            forward_transpose(&g, m, t, sbuf, rbuf);
            after = group_sum(&g, local_sum(t, (size_t)g.cnt[g.me] * n), gathered);
            if (before != after)
                bad++;
            scan_rows(t, g.cnt[g.me], n, (unsigned)(2 * rep + 1));
            backward_transpose(&g, t, m, sbuf, rbuf);
            scan_rows(m, g.cnt[g.me], n, (unsigned)(2 * rep + 2));
        }

        /* position-weighted checksum of the final plane */
        for (i = 0; i < g.cnt[g.me]; i++)
            for (j = 0; j < n; j++)
                check += (u64)m[(size_t)i * n + j] *
                         ((u64)p * n * n + (u64)(g.start[g.me] + i) * n + (u64)j + 1);
    }

    rc = MPI_Reduce(&check, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    rc |= MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);

    if (rank == 0) {
        printf("transpose: ranks=%d n=%d planes=%d reps=%d\n", size, n, planes, reps);
        printf("checksum: %llu\n", total);
        printf("transpose sum checks: %s\n", total_bad == 0 ? "ok" : "FAILED");
    }

    free(m);
    free(t);
    free(sbuf);
    free(rbuf);
    free(gathered);
    free(g.cnt);
    MPI_Comm_free(&g.comm);
    MPI_Comm_free(&lib);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "transpose: elapsed %.6f s (grid %dx%d, rank 0 owns %d planes)\n",
                t1 - t0, pr, pc, my_planes);
    MPI_Finalize();
    return total_bad == 0 ? 0 : 1;
}
