/* imbalance-balanced: the imbalance test program with each step's work split equally (every rank does the mean of the skewed units): the fixed variant of bench/whatif. */
/*
 * Usage:  mpirun -np N ./imbalance [steps] [work] [skew]
 *   steps  number of steps                                  default 20      large 40
 *   work   inner-loop iterations per work unit              default 100000  large 6000000
 *   skew   1: rank r does (r+1) units per step (linear)     default 1
 *          2: rank r does (r+1)^2 units per step (quadratic)
 *          0: balanced, every rank does 1 unit
 *
 * Set-up: rank 0 hands out seeds with MPI_Scatter and a data vector of
 * (r+1)*K values per rank with MPI_Scatterv.  Each step: local work, then
 * MPI_Barrier and MPI_Allreduce; every fifth step the ranks also combine
 * contributions with MPI_Reduce_scatter_block, which feeds back into the data.
 * At the end: MPI_Reduce_scatter (counts r+1), MPI_Allgatherv of variable
 * length lists and MPI_Gatherv of the data vectors to rank 0.
 * All results are modular integer sums/xors, so stdout is deterministic.
 * Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define K 8 /* data values per unit of rank weight */
#define RSB 4 /* block length for MPI_Reduce_scatter_block */

typedef unsigned long long u64;

static u64 xorshift(u64 x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static long units_for(int rank, int skew)
{
    switch (skew) {
    case 0:
        return 1;
    case 2:
        return (long)(rank + 1) * (rank + 1);
    default:
        return rank + 1;
    }
}

/* The imbalanced compute phase: units * work iterations of integer mixing. */
static u64 do_work(u64 seed, const u64 *data, int len, long units, long work)
{
    u64 x = seed | 1, acc = 0;
    long u, k;
    for (u = 0; u < units; u++) {
        for (k = 0; k < work; k++) {
            x = xorshift(x);
            acc += x ^ data[(k + u) % len];
        }
    }
    return acc;
}

static long balanced_iters(int size, int skew, long work)
{
    long total = 0;
    int r;
    for (r = 0; r < size; r++)
        total += units_for(r, skew);
    return total * work / size;
}

static u64 mix_list(const u64 *v, int n)
{
    u64 h = 1469598103934665603ULL;
    int k;
    for (k = 0; k < n; k++)
        h = (h ^ v[k]) * 1099511628211ULL;
    return h;
}

int main(int argc, char **argv)
{
    int rank, size, steps, skew, step, r, k, len, total_len, rc;
    long work;
    u64 seed, local, global, maxv, history_hash = 0, *seeds = NULL, *all_data = NULL;
    u64 *data, *contrib, block[RSB], *rs_send, *rs_recv, *lists, *agv;
    int *counts, *displs, *rs_counts, *tri_displs;
    double t0, t1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    steps = argc > 1 ? atoi(argv[1]) : 20;
    work = argc > 2 ? atol(argv[2]) : 100000;
    skew = argc > 3 ? atoi(argv[3]) : 1;
    if (steps < 1 || work < 1 || skew < 0 || skew > 2) {
        if (rank == 0)
            fprintf(stderr, "usage: imbalance [steps>=1] [work>=1] [skew 0|1|2]\n");
        MPI_Finalize();
        return 1;
    }

    counts = malloc(4 * (size_t)size * sizeof(int));
    if (!counts)
        MPI_Abort(MPI_COMM_WORLD, 1);
    displs = counts + size;
    rs_counts = counts + 2 * size;
    tri_displs = counts + 3 * size;
    total_len = 0;
    for (r = 0; r < size; r++) {
        counts[r] = (r + 1) * K;
        displs[r] = total_len;
        total_len += counts[r];
        rs_counts[r] = r + 1;
        tri_displs[r] = r * (r + 1) / 2;
    }
    len = counts[rank];
    data = malloc((size_t)len * sizeof(u64));
    contrib = malloc((size_t)size * RSB * sizeof(u64));
    rs_send = malloc((size_t)(size * (size + 1) / 2) * sizeof(u64));
    rs_recv = malloc((size_t)(rank + 1) * sizeof(u64));
    lists = malloc((size_t)(size * (size + 1) / 2) * sizeof(u64));
    agv = malloc((size_t)(rank + 1) * sizeof(u64));
    if (!data || !contrib || !rs_send || !rs_recv || !lists || !agv)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* Rank 0 prepares seeds and the skewed data distribution. */
    if (rank == 0) {
        seeds = malloc((size_t)size * sizeof(u64));
        all_data = malloc((size_t)total_len * sizeof(u64));
        if (!seeds || !all_data)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (r = 0; r < size; r++)
            seeds[r] = xorshift(0x1234567ULL + (u64)r * 0x9e3779b97f4a7c15ULL);
        for (k = 0; k < total_len; k++)
            all_data[k] = xorshift((u64)k + 77);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Scatter(seeds, 1, MPI_UNSIGNED_LONG_LONG, &seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    rc = MPI_Scatterv(all_data, counts, displs, MPI_UNSIGNED_LONG_LONG,
                      data, len, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);

    for (step = 0; step < steps; step++) {
        /* The fix: the skewed total (sum of units) split evenly, in iterations. */
        local = do_work(seed + (u64)step, data, len, 1, balanced_iters(size, skew, work));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&local, &global, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        history_hash = (history_hash ^ global) * 1099511628211ULL;
        if (step % 5 != 4)
            continue;
        /* every fifth step: exchange contributions, rank r gets block r of the sums */
        for (k = 0; k < size * RSB; k++)
            contrib[k] = xorshift(local + (u64)k);
        MPI_Reduce_scatter_block(contrib, block, RSB, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (k = 0; k < len; k++)
            data[k] ^= block[k % RSB];
    }

    /* Reduce_scatter with uneven counts: rank r receives r+1 summed values. */
    for (k = 0; k < size * (size + 1) / 2; k++)
        rs_send[k] = data[k % len] + (u64)k;
    MPI_Reduce_scatter(rs_send, rs_recv, rs_counts, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

    /* Allgatherv of variable length lists: rank r contributes r+1 values. */
    for (k = 0; k <= rank; k++)
        agv[k] = rs_recv[k] ^ data[k % len];
    MPI_Allgatherv(agv, rank + 1, MPI_UNSIGNED_LONG_LONG,
                   lists, rs_counts, tri_displs, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);

    MPI_Allreduce(&local, &maxv, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Gatherv(data, len, MPI_UNSIGNED_LONG_LONG, all_data, counts, displs, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("imbalance-balanced: ranks=%d steps=%d work=%ld skew=%d\n", size, steps, work, skew);
        printf("step history hash:  %llu\n", history_hash);
        printf("last step sum:      %llu\n", global);
        printf("last step max:      %llu\n", maxv);
        printf("allgatherv hash:    %llu\n", mix_list(lists, size * (size + 1) / 2));
        printf("gathered data hash: %llu\n", mix_list(all_data, total_len));
    }

    free(seeds);
    free(all_data);
    free(data);
    free(contrib);
    free(rs_send);
    free(rs_recv);
    free(lists);
    free(agv);
    free(counts);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "imbalance-balanced: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
