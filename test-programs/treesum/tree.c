/* tree.c: the textbook's binomial tree with blocking MPI_Send/MPI_Recv.
 *
 * tree_bcast: in round mask = 1, 2, 4, ... the ranks below mask already
 * hold the data; each sends it to rank + mask where that rank exists,
 * and the ranks in [mask, 2 mask) receive it from rank - mask.
 *
 * tree_sum: the rounds back, the largest mask first; a rank below mask
 * adds what rank + mask sends (where that rank exists), and a rank in
 * [mask, 2 mask) sends its partial sums to rank - mask.  Rank 0 ends
 * with the sums over all ranks; the other ranks' buffers are partial. */
#include "tree.h"

#include <mpi.h>

#define MAXCOUNT 16

void tree_bcast(double *buf, int count, int rank, int nproc)
{
    int mask;

    for (mask = 1; mask < nproc; mask <<= 1) {
        if (rank < mask) {
            if (rank + mask < nproc)
                MPI_Send(buf, count, MPI_DOUBLE, rank + mask, 41, MPI_COMM_WORLD);
        } else if (rank < 2 * mask) {
            MPI_Recv(buf, count, MPI_DOUBLE, rank - mask, 41, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
}

void tree_sum(double *buf, int count, int rank, int nproc)
{
    double in[MAXCOUNT];
    int mask, top, j;

    top = 1;
    while (2 * top < nproc)
        top <<= 1;
    for (mask = nproc > 1 ? top : 0; mask > 0; mask >>= 1) {
        if (rank < mask) {
            if (rank + mask < nproc) {
                MPI_Recv(in, count, MPI_DOUBLE, rank + mask, 42, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                for (j = 0; j < count; j++)
                    buf[j] += in[j];
            }
        } else if (rank < 2 * mask) {
            MPI_Send(buf, count, MPI_DOUBLE, rank - mask, 42, MPI_COMM_WORLD);
        }
    }
}
