/* win.c: uses one-sided communication, which mpiete does not support (error unless passed through). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Win win;
    int buf[4] = {0, 0, 0, 0}, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("window created and freed\n");
    MPI_Finalize();
    return 0;
}
