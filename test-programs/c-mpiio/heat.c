/* c-mpiio: a 1-D heat equation whose ranks write checkpoints with MPI-IO, as real codes do.
 *
 * Usage: c-mpiio [n] [steps] [every] [file]
 *   n      points per rank (default 200000)
 *   steps  time steps (default 200)
 *   every  a checkpoint every this many steps (default 50)
 *   file   the checkpoint file (default heat.ckpt)
 *
 * Each step exchanges one ghost point with each neighbour (MPI_Sendrecv) and relaxes the
 * interior. A checkpoint opens the file collectively (MPI_File_open), has rank 0 write a
 * header with an independent MPI_File_write_at, sets every rank's view past it
 * (MPI_File_set_view) and writes the field collectively (MPI_File_write_all), syncs and closes.
 * At the end the last checkpoint is read back collectively (MPI_File_read_at_all) and compared
 * with the field in memory; rank 0 prints the field's sum and whether the file matched.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long arg(int argc, char **argv, int i, long def)
{
    return argc > i ? strtol(argv[i], NULL, 10) : def;
}

static void checkpoint(const char *name, const double *u, int n, int rank, int size, int step)
{
    MPI_File fh;
    const MPI_Offset header = 2 * (MPI_Offset)sizeof(int);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rank == 0) {
        int h[2] = {size * n, step};
        MPI_File_write_at(fh, 0, h, 2, MPI_INT, MPI_STATUS_IGNORE);
    }
    MPI_File_set_view(fh, header + (MPI_Offset)rank * n * (MPI_Offset)sizeof(double), MPI_DOUBLE,
                      MPI_DOUBLE, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, u + 1, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = (int)arg(argc, argv, 1, 200000);
    const int steps = (int)arg(argc, argv, 2, 200);
    const int every = (int)arg(argc, argv, 3, 50);
    const char *name = argc > 4 ? argv[4] : "heat.ckpt";
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double *u = malloc((size_t)(n + 2) * sizeof *u);
    double *v = malloc((size_t)(n + 2) * sizeof *v);
    for (int i = 0; i < n + 2; i++)
        u[i] = v[i] = (double)((rank * n + i) % 97) / 97.0;
    int last = -1;
    for (int s = 1; s <= steps; s++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 1; i <= n; i++)
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        double *t = u;
        u = v;
        v = t;
        if (every > 0 && s % every == 0) {
            checkpoint(name, u, n, rank, size, s);
            last = s;
        }
    }

    /* Read the last checkpoint back and compare it with the field. */
    int same = 1;
    if (last > 0) {
        MPI_File fh;
        int h[2] = {0, 0};
        double *w = malloc((size_t)n * sizeof *w);
        MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_File_read_at_all(fh, 0, h, 2, MPI_INT, MPI_STATUS_IGNORE);
        MPI_File_read_at_all(fh, 2 * (MPI_Offset)sizeof(int) +
                                 (MPI_Offset)rank * n * (MPI_Offset)sizeof(double),
                             w, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        same = h[0] == size * n && h[1] == last && memcmp(w, u + 1, (size_t)n * sizeof *w) == 0;
        free(w);
    }
    double local = 0.0, sum = 0.0;
    for (int i = 1; i <= n; i++)
        local += u[i];
    int all = 0;
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("c-mpiio: %d ranks, sum %.10e, last checkpoint step %d %s\n", size, sum, last,
               all ? "read back equal" : "READ BACK DIFFERENT");
    free(u);
    free(v);
    MPI_Finalize();
    return all ? 0 : 1;
}
