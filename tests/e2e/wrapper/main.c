/* main.c: fixture program of the mpiete-cc wrapper tests (rank sums over a ring and an Allreduce). */
#include <mpi.h>
#include <stdio.h>
#include <config.h>
#include "util.h"

#ifdef USE_HELPER
long helper_scale(long x); /* from libhelper.a, linked with -L/-l */
#else
#define helper_scale(x) (x)
#endif

int main(int argc, char **argv)
{
    int rank, size, i;
    long v, acc = 0, sum, max;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v = (long)(rank + 1) * SCALE;
    for (i = 0; i < 1000; i++)
        acc += i % 7;
    sum = ring_sum(v);
    max = all_max(helper_scale(v));
    if (rank == 0)
        printf("%s: size=%d sum=%ld max=%ld acc=%ld\n", GREETING, size, sum, max, acc);
    MPI_Finalize();
    return 0;
}
