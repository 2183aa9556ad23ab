/* ep: embarrassingly parallel Gaussian-pair counting (NPB-EP style, written from scratch) with Bcast/Reduce/Gather/Scan/Exscan. */
/*
 * Usage:  mpirun -np N ./ep [m] [seed]
 *   m     2^m candidate pairs in total           default 16   large 27
 *   seed  generator seed (any non-negative int)  default 271828183
 *
 * Rank 0 parses the arguments and broadcasts them (MPI_Bcast); an invalid
 * argument is reported by rank 0 and every rank exits with status 1.  Pairs
 * are split as evenly as possible; each rank finds its first pair with
 * MPI_Exscan and checks the range with MPI_Scan.  Uniform numbers come from a
 * counter-based generator (splitmix64 of the pair index), so the result does
 * not depend on the rank count.  The Marsaglia polar method turns accepted
 * pairs into Gaussian pairs, which are counted in square annuli
 * l = floor(max(|X|,|Y|)) like NPB EP.  Counts and sums are reduced to rank 0
 * (MPI_Reduce), per-rank acceptance counts are gathered (MPI_Gather).
 * Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NBINS 10
#define BATCH 4096

typedef unsigned long long u64;

typedef struct {
    long long counts[NBINS];
    long long accepted;
    double sx, sy;
} tally_t;

static u64 splitmix64(u64 x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Uniform double in [0, 1) from stream position k. */
static double uniform(u64 seed, u64 k)
{
    return (double)(splitmix64(seed * 0x100000001b3ULL + k) >> 11) * (1.0 / 9007199254740992.0);
}

/* Processes pairs [first, first + count) into the tally. */
static void process_batch(u64 seed, long long first, long long count, tally_t *t)
{
    long long k;
    double x, y, r2, f, gx, gy, ax, ay;
    int l;

    for (k = first; k < first + count; k++) {
        x = 2.0 * uniform(seed, 2 * (u64)k) - 1.0;
        y = 2.0 * uniform(seed, 2 * (u64)k + 1) - 1.0;
        r2 = x * x + y * y;
        if (r2 > 1.0 || r2 == 0.0)
            continue; /* rejected */
        f = sqrt(-2.0 * log(r2) / r2);
        gx = x * f;
        gy = y * f;
        ax = fabs(gx);
        ay = fabs(gy);
        l = (int)(ax > ay ? ax : ay);
        if (l >= NBINS)
            l = NBINS - 1;
        t->counts[l]++;
        t->accepted++;
        t->sx += gx;
        t->sy += gy;
    }
}

/* Rank 0 only: reads and checks the arguments; returns 0 if valid. */
static int read_params(int argc, char **argv, long long params[2])
{
    params[0] = argc > 1 ? atoll(argv[1]) : 16;
    params[1] = argc > 2 ? atoll(argv[2]) : 271828183;
    if (params[0] < 1 || params[0] > 40) {
        fprintf(stderr, "ep: m must be between 1 and 40 (got %lld)\n", params[0]);
        return -1;
    }
    if (params[1] < 0) {
        fprintf(stderr, "ep: seed must be non-negative\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, b, r, range_ok, all_ok;
    long long params[3] = {0, 0, 0};
    long long npairs, mine, first = 0, end = 0, done, len, gathered_total;
    long long *per_rank = NULL;
    double sums[2], gsums[2], t0, t1;
    long long gcounts[NBINS + 1], lcounts[NBINS + 1];
    tally_t t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    if (rank == 0)
        params[2] = read_params(argc, argv, params) == 0 ? 1 : 0;
    MPI_Bcast(params, 3, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (!params[2]) {
        MPI_Finalize();
        return 1;
    }

    MPI_Barrier(MPI_COMM_WORLD);

    npairs = 1LL << params[0];
    mine = npairs / size + (rank < npairs % size ? 1 : 0);
    MPI_Exscan(&mine, &first, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        first = 0; /* MPI_Exscan leaves rank 0's result undefined */
    MPI_Scan(&mine, &end, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    range_ok = end - mine == first && (rank != size - 1 || end == npairs);

    t.accepted = 0;
    t.sx = t.sy = 0.0;
    for (b = 0; b < NBINS; b++)
        t.counts[b] = 0;
    done = 0;
    while (done < mine) {
        len = mine - done < BATCH ? mine - done : BATCH;
        process_batch((u64)params[1], first + done, len, &t);
        done += len;
    }

    for (b = 0; b < NBINS; b++)
        lcounts[b] = t.counts[b];
    lcounts[NBINS] = t.accepted;
    sums[0] = t.sx;
    sums[1] = t.sy;
    MPI_Reduce(lcounts, gcounts, NBINS + 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(sums, gsums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&range_ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        per_rank = malloc((size_t)size * sizeof(long long));
        if (!per_rank)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&t.accepted, 1, MPI_LONG_LONG, per_rank, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        gathered_total = 0;
        for (r = 0; r < size; r++)
            gathered_total += per_rank[r];
        printf("ep: ranks=%d m=%lld pairs=%lld seed=%lld\n", size, params[0], npairs, params[1]);
        printf("accepted pairs: %lld\n", gcounts[NBINS]);
        printf("sum x: %.6g\n", gsums[0]);
        printf("sum y: %.6g\n", gsums[1]);
        for (b = 0; b < NBINS; b++)
            printf("  annulus %d: %lld\n", b, gcounts[b]);
        for (r = 0; r < size; r++)
            printf("  rank %d accepted: %lld\n", r, per_rank[r]);
        printf("gather matches reduce: %s\n", gathered_total == gcounts[NBINS] ? "yes" : "no");
        printf("scan ranges ok: %s\n", all_ok ? "yes" : "no");
        free(per_rank);
    }
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "ep: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
