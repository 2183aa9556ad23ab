/* main.c: the whole-program skeleton's two-file test (mpirun -np 2 ./twofile [n] [sweeps]). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "work.h"

int main(int argc, char **argv)
{
    int rank, size, r, n = argc > 1 ? atoi(argv[1]) : 4096;
    int sweeps = argc > 2 ? atoi(argv[2]) : 200, sent = 0;
    double *u;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    u = calloc((size_t)n, sizeof(double));
    u[0] = rank + 1.0;
    for (r = 0; r < rounds(n); r++) {
        relax(u, n, sweeps);
        sent += exchange(u, n, rank ^ 1);
    }
    if (rank == 0)
        printf("twofile: %d rounds, %d values sent, u[1] = %.6f\n", r, sent, u[1]);
    free(u);
    MPI_Finalize();
    return 0;
}
