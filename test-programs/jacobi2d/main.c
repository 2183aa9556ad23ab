/* main.c: driver of the jacobi2d test program (2D Jacobi with halo exchange and an Allreduce convergence test). */
/*
 * Usage:  mpirun -np N ./jacobi2d [n] [maxiter] [tol]
 *   n        interior grid is n x n, split into row strips      default 48     large 1024
 *   maxiter  iteration limit                                   default 1000   large 2000
 *   tol      stop when the 2-norm of the update drops below    default 2e-2   large 1e-3
 * At the defaults it converges after 296 iterations; the large size runs
 * to maxiter (about 3 s at 2 ranks).
 *
 * Needs n >= number of ranks (otherwise prints a message and exits 1).
 * Build switches (see jacobi.h): -DHALO_NONBLOCKING=0/1, -DCONV_INTERVAL=k.
 * Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "jacobi.h"

void die(const char *file, int line)
{
    fprintf(stderr, "jacobi2d: MPI error at %s:%d\n", file, line);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int parse_args(int argc, char **argv, int *n, int *maxiter, double *tol)
{
    *n = argc > 1 ? atoi(argv[1]) : 48;
    *maxiter = argc > 2 ? atoi(argv[2]) : 1000;
    *tol = argc > 3 ? atof(argv[3]) : 2e-2;
    if (*n < 1 || *maxiter < 1 || !(*tol > 0.0))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, n, maxiter, iter, converged, dims[1], periods[1];
    double tol, local, global = 0.0, res = 0.0, stats[2], sum, maxval, t0, t1;
    MPI_Comm cart;
    grid_t g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    if (parse_args(argc, argv, &n, &maxiter, &tol) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: jacobi2d [n>=1] [maxiter>=1] [tol>0]\n");
        MPI_Finalize();
        return 1;
    }
    if (n < size) {
        if (rank == 0)
            printf("jacobi2d: unsupported: grid size n=%d is smaller than the %d ranks\n", n, size);
        MPI_Finalize();
        return 1;
    }

    dims[0] = size;
    periods[0] = 0;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    if (grid_init(&g, n, cart) != 0)
        die(__FILE__, __LINE__);

    MPI_Barrier(cart);

    iter = 0;
    converged = 0;
    do {
        exchange_halo(&g, g.u);
        local = jacobi_sweep(&g);
        iter++;
        if (iter % CONV_INTERVAL != 0 && iter < maxiter)
            continue;
        CHECK(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, cart));
        res = sqrt(global);
        if (res < tol)
            converged = 1;
    } while (!converged && iter < maxiter);

    grid_stats(&g, &sum, &maxval);
    CHECK(MPI_Reduce(&sum, &stats[0], 1, MPI_DOUBLE, MPI_SUM, 0, cart));
    CHECK(MPI_Reduce(&maxval, &stats[1], 1, MPI_DOUBLE, MPI_MAX, 0, cart));

    if (rank == 0) {
        printf("jacobi2d: ranks=%d n=%d maxiter=%d tol=%.3g check every %d, %s halo\n",
               size, n, maxiter, tol, CONV_INTERVAL, HALO_NONBLOCKING ? "nonblocking" : "sendrecv");
        printf("iterations: %d (%s)\n", iter, converged ? "converged" : "not converged");
        printf("update norm: %.4e\n", res);
        printf("mean value:  %.6g\n", stats[0] / ((double)n * n));
        printf("max value:   %.6g\n", stats[1]);
    }

    grid_free(&g);
    MPI_Comm_free(&cart);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "jacobi2d: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
