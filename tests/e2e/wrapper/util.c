/* util.c: the communicating helpers of the wrapper-test fixture program. */
#include <mpi.h>
#include "util.h"

long ring_sum(long value)
{
    int rank, size, step;
    long total = value, pass = value, got;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (step = 1; step < size; step++) {
        MPI_Sendrecv(&pass, 1, MPI_LONG, (rank + 1) % size, 5, &got, 1, MPI_LONG,
                     (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        total += got;
        pass = got;
    }
    return total;
}

long all_max(long value)
{
    long out;
    MPI_Allreduce(&value, &out, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return out;
}
