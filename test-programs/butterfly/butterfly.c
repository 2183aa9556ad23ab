/* butterfly: global sums and a barrier written by hand, as codes did before they trusted
 * MPI_Allreduce: a time-stepping loop whose every step sums partial results by recursive
 * doubling (in round k = 1, 2, 4, ... < P each rank swaps its partial sums with rank xor k and
 * adds them: MPI_Sendrecv) and then waits in a dissemination barrier (in round k each rank
 * signals (rank + k) mod P and hears from (rank - k) mod P). The sums need a power-of-two rank
 * count, which the program checks.
 *
 * Usage:  mpirun -np N ./butterfly [n] [iters]
 *   n      points of each rank's work per step    default 200000
 *   iters  time steps                             default 10
 *
 * Rank 0 prints the global sums of the last step, which depend on n, iters and the rank count.
 * Set BF_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NSUMS 4

/* This rank's partial sums over its n points of step `step`, shifted by the last global sums. */
static void partial_sums(double *s, const double *x, int n, int step, const double *g)
{
    int i, j;
    for (j = 0; j < NSUMS; j++)
        s[j] = 0;
    for (i = 0; i < n; i++) {
        double v = x[i] + 1e-3 * (double)step + 1e-9 * g[i % NSUMS];
        s[0] += v;
        s[1] += v * v;
        s[2] += sin(v);
        s[3] += 1.0 / (1.0 + v * v);
    }
}

/* Recursive doubling: every rank ends with the sums of all ranks (size a power of two). */
static void butterfly_sum(double *s, int rank, int size)
{
    double in[NSUMS];
    int mask, j;
    for (mask = 1; mask < size; mask <<= 1) {
        MPI_Sendrecv(s, NSUMS, MPI_DOUBLE, rank ^ mask, 11, in, NSUMS, MPI_DOUBLE, rank ^ mask,
                     11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (j = 0; j < NSUMS; j++)
            s[j] += in[j];
    }
}

/* Dissemination barrier: ceil(log2 size) rounds, any size. */
static void barrier(int rank, int size)
{
    int k, token = rank, got;
    for (k = 1; k < size; k <<= 1)
        MPI_Sendrecv(&token, 1, MPI_INT, (rank + k) % size, 12, &got, 1, MPI_INT,
                     (rank - k + size) % size, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, n, iters, step, i;
    double *x, s[NSUMS], g[NSUMS] = {0, 0, 0, 0}, t0;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 200000;
    iters = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || iters < 1 || (size & (size - 1)) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N ./butterfly [n >= 1] [iters >= 1] (N a power "
                            "of two)\n");
        MPI_Finalize();
        return 1;
    }
    x = malloc((size_t)n * sizeof(double));
    if (!x)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < n; i++)
        x[i] = (double)((rank * 7919 + i) % 1000) * 1e-3;

    for (step = 0; step < iters; step++) {
        partial_sums(s, x, n, step, g);
        butterfly_sum(s, rank, size);
        for (i = 0; i < NSUMS; i++)
            g[i] = s[i] / ((double)n * (double)size);
        for (i = 0; i < n; i++)
            x[i] = 0.999 * x[i] + 1e-4 * g[i % NSUMS];
        barrier(rank, size);
    }

    if (rank == 0) {
        printf("butterfly: ranks=%d n=%d iters=%d\n", size, n, iters);
        printf("sums: %.9e %.9e %.9e %.9e\n", s[0], s[1], s[2], s[3]);
        if (getenv("BF_TIMING"))
            fprintf(stderr, "butterfly: elapsed %.6f s\n", MPI_Wtime() - t0);
    }
    free(x);
    MPI_Finalize();
    return 0;
}
