/* readback.c: a program the skeleton slice cannot follow (it reads back a file it wrote: output
 * is not modelled), so `probe-program --verify-skeleton` must report the difference. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, n = 0, i;
    double buf[16] = {0};
    char name[64];
    FILE *f;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(name, sizeof name, "readback-%d.txt", rank);
    f = fopen(name, "w");
    fprintf(f, "%d\n", 7);
    fclose(f);
    f = fopen(name, "r");
    if (fscanf(f, "%d", &n) != 1)
        n = 3;
    fclose(f);
    remove(name);
    for (i = 0; i < 2; i++)
        MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
