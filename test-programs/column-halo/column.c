/* column-halo: Jacobi sweeps on a ROWS x COLS grid of doubles stored row-major and divided among
 * the ranks by columns, so each rank's halo is a column: one MPI_Type_vector of ROWS single
 * doubles a row apart (pieces of 8 bytes), sent and received in place with MPI_Sendrecv, the
 * way a code split along its fast index exchanges its faces. A checksum of the grid every 500
 * steps and at the end (MPI_Reduce). Usage: column-halo [ROWS [COLS [STEPS]]] (defaults 512
 * 64 200). Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 512, cols = argc > 2 ? atoi(argv[2]) : 64;
    int steps = argc > 3 ? atoi(argv[3]) : 200;
    int rank, size, i, j, s;
    double t0;
    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* My columns c0 .. c0 + w - 1, with a halo column on each side: a row is w + 2 long. */
    const int w = cols / size + (rank < cols % size ? 1 : 0);
    const int c0 = rank * (cols / size) + (rank < cols % size ? rank : cols % size);
    const int ld = w + 2;
    double *u = calloc((size_t)rows * (size_t)ld, sizeof(double));
    double *v = calloc((size_t)rows * (size_t)ld, sizeof(double));
    if (!u || !v) {
        fprintf(stderr, "column-halo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (i = 0; i < rows; i++)
        for (j = 1; j <= w; j++)
            u[(size_t)i * ld + j] = (double)((i * 7 + (c0 + j - 1) * 13) % 101);
    MPI_Datatype column;
    MPI_Type_vector(rows, 1, ld, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (s = 1; s <= steps; s++) {
        /* My first column to the left, its last column into my left halo; and the mirror. */
        MPI_Sendrecv(&u[1], 1, column, left, 1, &u[w + 1], 1, column, right, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[w], 1, column, right, 2, &u[0], 1, column, left, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (i = 1; i < rows - 1; i++)
            for (j = 1; j <= w; j++) {
                const size_t k = (size_t)i * ld + j;
                v[k] = 0.25 * (u[k - 1] + u[k + 1] + u[k - ld] + u[k + ld]);
            }
        for (i = 1; i < rows - 1; i++)
            for (j = 1; j <= w; j++)
                u[(size_t)i * ld + j] = v[(size_t)i * ld + j];
        if (s % 500 == 0 || s == steps) {
            double local = 0, total = 0;
            for (i = 0; i < rows; i++)
                for (j = 1; j <= w; j++)
                    local += u[(size_t)i * ld + j] * (double)((i + c0 + j) % 7 + 1);
            MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0)
                printf("step %d checksum %.10e\n", s, total);
        }
    }
    MPI_Type_free(&column);
    free(u);
    free(v);
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "column-halo: elapsed %.6f s\n", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
