/* kernel: a 1-D relaxation whose dominant kernel evaluates each point's weight polynomial twice (redundantly); kernel-fast is the fixed pair. */
/*
 * Usage:  mpirun -np N ./kernel [n] [steps] [terms]
 *   n      points per rank          default 20000
 *   steps  relaxation steps         default 50
 *   terms  polynomial terms         default 64
 * Each step: halo exchange with both neighbours (MPI_Sendrecv), the kernel, an MPI_Allreduce
 * of the residual. Only rank 0 prints. TP_TIMING=1 prints rank 0's MPI_Init..MPI_Finalize time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EVALS
#define EVALS 2 /* the waste: the same weight evaluated EVALS times per point */
#endif

static double weight(double x, int terms)
{
    double p = 0.0, t = 1.0;
    int k;
    for (k = 0; k < terms; k++) {
        p += t / (double)(k + 1);
        t *= x * 0.999;
    }
    return p;
}

static double kernel(double *u, const double *v, int n, int terms)
{
    double res = 0.0;
    int i, e;
    for (i = 1; i <= n; i++) {
        double w = 0.0;
        for (e = 0; e < EVALS; e++)
            w += weight(0.5 * v[i], terms + e * 0);
        w /= EVALS;
        u[i] = 0.5 * (v[i - 1] + v[i + 1]) * (w / (1.0 + w));
        res += (u[i] - v[i]) * (u[i] - v[i]);
    }
    return res;
}

int main(int argc, char **argv)
{
    int rank, size, n, steps, terms, s, i, left, right;
    double *u, *v, *tmp, res, gres = 0.0, t0, t1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();
    n = argc > 1 ? atoi(argv[1]) : 20000;
    steps = argc > 2 ? atoi(argv[2]) : 50;
    terms = argc > 3 ? atoi(argv[3]) : 64;
    if (n < 1 || steps < 1 || terms < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: kernel [n>=1] [steps>=1] [terms>=1]\n");
        MPI_Finalize();
        return 1;
    }
    u = calloc((size_t)n + 2, sizeof(double));
    v = calloc((size_t)n + 2, sizeof(double));
    if (!u || !v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 1; i <= n; i++)
        v[i] = (double)((rank * n + i) % 97) / 97.0;
    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (s = 0; s < steps; s++) {
        MPI_Sendrecv(&v[1], 1, MPI_DOUBLE, left, 1, &v[n + 1], 1, MPI_DOUBLE, right, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&v[n], 1, MPI_DOUBLE, right, 2, &v[0], 1, MPI_DOUBLE, left, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        res = kernel(u, v, n, terms);
        MPI_Allreduce(&res, &gres, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tmp = u;
        u = v;
        v = tmp;
    }
    if (rank == 0)
        printf("kernel: ranks=%d n=%d steps=%d residual=%.6e\n", size, n, steps, gres);
    free(u);
    free(v);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "kernel: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
