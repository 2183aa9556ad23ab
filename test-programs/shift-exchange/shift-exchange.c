/* shift-exchange: a hand-written all-to-all, as codes wrote it before MPI_Alltoall was fast:
 * in P - 1 shifted steps each rank sends a block to (rank + k) mod P and receives one from
 * (rank - k) mod P (MPI_Sendrecv), mixing each received block into its own data.
 *
 * Usage:  mpirun -np N ./shift-exchange [n] [iters]
 *   n      doubles in each block                     default 4096
 *   iters  all-to-all rounds                         default 10
 *
 * Rank 0 prints a checksum of every rank's data (fixed-point, MPI_Reduce of 64-bit integers),
 * which depends on n, iters and the rank count.
 * Set SX_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The block this rank sends to rank `to` in round `it`: a function of its data. */
static void pack(double *out, const double *mine, int n, int to, int it)
{
    int i;
    for (i = 0; i < n; i++)
        out[i] = mine[i] * 0.5 + (double)((to * 31 + it * 7 + i) % 97) * 1e-3;
}

/* Mixes a received block into this rank's data. */
static void mix(double *mine, const double *in, int n)
{
    int i;
    for (i = 0; i < n; i++)
        mine[i] = 0.75 * mine[i] + 0.25 * in[i];
}

int main(int argc, char **argv)
{
    int rank, size, n, iters, it, k, i;
    double *mine, *out, *in, t0;
    long long local = 0, total = 0;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 4096;
    iters = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: shift-exchange [n >= 1] [iters >= 1]\n");
        MPI_Finalize();
        return 1;
    }
    mine = malloc(3 * (size_t)n * sizeof(double));
    if (!mine)
        MPI_Abort(MPI_COMM_WORLD, 1);
    out = mine + n;
    in = out + n;
    for (i = 0; i < n; i++)
        mine[i] = (double)((rank * 13 + i) % 101);

    for (it = 0; it < iters; it++)
        for (k = 1; k < size; k++) {
            pack(out, mine, n, (rank + k) % size, it);
            MPI_Sendrecv(out, n, MPI_DOUBLE, (rank + k) % size, 5, in, n, MPI_DOUBLE,
                         (rank - k + size) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            mix(mine, in, n);
        }

    for (i = 0; i < n; i++)
        local += (long long)(mine[i] * 1e6);
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("shift-exchange: ranks=%d n=%d iters=%d\n", size, n, iters);
        printf("checksum: %lld\n", total);
        if (getenv("SX_TIMING"))
            fprintf(stderr, "shift-exchange: elapsed %.6f s\n", MPI_Wtime() - t0);
    }
    free(mine);
    MPI_Finalize();
    return 0;
}
