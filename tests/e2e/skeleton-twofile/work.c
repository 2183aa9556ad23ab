/* work.c: a pure computation, a communicating exchange and the round count for main.c. */
#include <math.h>
#include <mpi.h>
#include "work.h"

/* Pure computation: its result is only printed, so the skeleton drops its calls. */
void relax(double *u, int n, int sweeps)
{
    int s, i;
    for (s = 0; s < sweeps; s++)
        for (i = 1; i < n - 1; i++)
            u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) + 1e-3 * sin(u[i]);
}

/* Sends the first n/2 values to peer and receives as many: communicates, so it stays. */
int exchange(double *u, int n, int peer)
{
    MPI_Sendrecv(u, n / 2, MPI_DOUBLE, peer, 7, u + n / 2, n / 2, MPI_DOUBLE, peer, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return n / 2;
}

/* Decides how many rounds main runs: pure, but it steers the communication, so it stays. */
int rounds(int n)
{
    return 3 + n % 5;
}
