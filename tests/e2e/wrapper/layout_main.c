/* layout_main.c: MPI calls around loops of pure computation in one function
   (e2e.wrapper.align_loops): the instrumented main's hot loops lie where the program's do. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void smooth(double *v, const double *u, int n, int reps);

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 1000, i, step;
    double *u, *v, local = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    u = malloc((size_t)n * sizeof *u);
    v = malloc((size_t)n * sizeof *v);
    for (i = 0; i < n; i++)
        u[i] = v[i] = (double)((i * 7 + rank) % 13);
    for (step = 0; step < 4; step++) {
        MPI_Bcast(u, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (i = 1; i < n - 1; i++)
            v[i] = u[i] + 0.1 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        smooth(u, v, n, 2);
    }
    for (i = 0; i < n; i++)
        local += u[i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("layout: %d ranks, sum %.6e\n", size, total);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
