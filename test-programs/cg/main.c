/* main.c: driver of the cg test program (conjugate gradients with distributed SpMV and Allreduce dot products). */
/*
 * Usage:  mpirun -np N ./cg [n] [maxiter] [tol]
 *   n        grid side; the matrix is the 5-point Laplacian on n x n     default 32     large 512
 *   maxiter  iteration limit                                             default 200    large 1000
 *   tol      stop when ||r|| / ||b|| drops below tol                     default 1e-6   large 1e-8
 * Defaults converge after 63 iterations, the large size after 941 (about 2.4 s at 2 ranks).
 *
 * Right-hand side b = 1 + (i mod 7).  Needs n >= number of ranks (otherwise
 * prints a message and exits 1).  Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "cg.h"

void cg_fail(const char *file, int line)
{
    fprintf(stderr, "cg: error at %s:%d\n", file, line);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void axpy(double *y, double a, const double *x, int n)
{
    int i;
    for (i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* Returns the number of iterations; *relres receives the final relative residual. */
static int solve(problem_t *p, const double *b, double *x, int maxiter, double tol, double *relres)
{
    int nloc = p->nloc, i, it;
    double *r = malloc((size_t)nloc * sizeof(double));
    double *d = malloc((size_t)nloc * sizeof(double));
    double *q = malloc((size_t)nloc * sizeof(double));
    double rr, rrnew, alpha, beta, bnorm, pq;

    if (!r || !d || !q)
        cg_fail(__FILE__, __LINE__);
    for (i = 0; i < nloc; i++) {
        x[i] = 0.0;
        r[i] = b[i];
        d[i] = b[i];
    }
    rr = dot(r, r, nloc, p->comm);
    bnorm = sqrt(dot(b, b, nloc, p->comm));
    *relres = sqrt(rr) / bnorm;
    if (*relres < tol) {
        free(r);
        free(d);
        free(q);
        return 0;
    }

    for (it = 1; it <= maxiter; it++) {
        spmv(p, d, q);
        pq = dot(d, q, nloc, p->comm);
        alpha = rr / pq;
        axpy(x, alpha, d, nloc);
        axpy(r, -alpha, q, nloc);
        rrnew = dot(r, r, nloc, p->comm);
        *relres = sqrt(rrnew) / bnorm;
        if (*relres < tol)
            break;
        beta = rrnew / rr;
        for (i = 0; i < nloc; i++)
            d[i] = r[i] + beta * d[i];
        rr = rrnew;
    }
    free(r);
    free(d);
    free(q);
    return it > maxiter ? maxiter : it;
}

int main(int argc, char **argv)
{
    int rank, size, n, maxiter, iters, i;
    double tol, relres, truenorm, local[2], global[2], t0, t1;
    double *b, *x, *ax;
    problem_t p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    n = argc > 1 ? atoi(argv[1]) : 32;
    maxiter = argc > 2 ? atoi(argv[2]) : 200;
    tol = argc > 3 ? atof(argv[3]) : 1e-6;
    if (n < 2 || maxiter < 1 || !(tol > 0.0)) {
        if (rank == 0)
            fprintf(stderr, "usage: cg [n>=2] [maxiter>=1] [tol>0]\n");
        MPI_Finalize();
        return 1;
    }
    if (n < size) {
        if (rank == 0)
            printf("cg: unsupported: grid side n=%d is smaller than the %d ranks\n", n, size);
        MPI_Finalize();
        return 1;
    }

    if (build_laplacian(&p, n, MPI_COMM_WORLD) != 0)
        cg_fail(__FILE__, __LINE__);
    b = malloc((size_t)p.nloc * sizeof(double));
    x = malloc((size_t)p.nloc * sizeof(double));
    ax = malloc((size_t)p.nloc * sizeof(double));
    if (!b || !x || !ax)
        cg_fail(__FILE__, __LINE__);
    for (i = 0; i < p.nloc; i++)
        b[i] = 1.0 + (double)(((long)p.gr0 * n + i) % 7);

    MPI_Barrier(MPI_COMM_WORLD);
    iters = solve(&p, b, x, maxiter, tol, &relres);

    /* true residual ||b - A x|| / ||b|| and the sum of the solution */
    spmv(&p, x, ax);
    local[0] = 0.0;
    local[1] = 0.0;
    for (i = 0; i < p.nloc; i++) {
        local[0] += (b[i] - ax[i]) * (b[i] - ax[i]);
        local[1] += x[i];
    }
    CHECK(MPI_Reduce(local, global, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    truenorm = dot(b, b, p.nloc, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("cg: ranks=%d n=%d (%ld unknowns) maxiter=%d tol=%.3g\n",
               size, n, (long)n * n, maxiter, tol);
        printf("iterations: %d (%s)\n", iters, relres < tol ? "converged" : "not converged");
        printf("relative residual below tol: %s\n", relres < tol ? "yes" : "no");
        printf("true residual below 10*tol:  %s\n",
               sqrt(global[0] / truenorm) < 10.0 * tol ? "yes" : "no");
        printf("solution sum: %.6g\n", global[1]);
    }

    free(b);
    free(x);
    free(ax);
    free_problem(&p);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "cg: elapsed %.6f s (relres %.3e)\n", t1 - t0, relres);
    MPI_Finalize();
    return 0;
}
