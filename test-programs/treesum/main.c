/* treesum: a time-stepping loop in which rank 0 broadcasts the step's
 * parameters along a hand-written binomial tree (tree.c), every rank
 * evaluates a series over its share of the n points, and the partial
 * sums go back to rank 0 along the same tree; rank 0 derives the next
 * step's parameters from them.  The points are divided among the ranks
 * (the problem is the whole; any rank count).
 *
 * usage: treesum [n [steps]]   (defaults 1000000 and 10)
 *
 * Rank 0 checks every step's exact sums (the point count and the sum of
 * the indices, exact in doubles) and prints "verification: ... passed"
 * or "FAILED"; with TP_TIMING set it prints its MPI_Init-to-MPI_Finalize
 * time on stderr. */
#include "tree.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NPAR 3
#define NSUM 4

/* The step's series over points [i0, i0 + nloc): the count, the sum of
 * the indices, and two sums that take time. */
static void series(long i0, long nloc, const double *par, double *s)
{
    long i;
    double a = par[1], b = par[2];

    s[0] = (double)nloc;
    s[1] = 0.0;
    s[2] = 0.0;
    s[3] = 0.0;
    for (i = i0; i < i0 + nloc; i++) {
        double x = (double)i * a;
        s[1] += (double)i;
        s[2] += sin(x) * exp(-b * (double)(i % 97));
        s[3] += sqrt(1.0 + x * x) - x;
    }
}

int main(int argc, char **argv)
{
    int rank, nproc, it, steps = 10, bad = 0;
    long n = 1000000, base, extra, nloc, i0;
    double par[NPAR], s[NSUM], t0;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (argc > 1)
        n = atol(argv[1]);
    if (argc > 2)
        steps = atoi(argv[2]);
    if (n < nproc || steps < 1) {
        if (rank == 0)
            printf("treesum: unsupported n=%ld steps=%d\n", n, steps);
        MPI_Finalize();
        return 0;
    }
    base = n / nproc;
    extra = n % nproc;
    nloc = base + (rank < extra);
    i0 = rank * base + (rank < extra ? rank : extra);
    if (rank == 0) {
        printf("treesum: %ld points, %d steps\n", n, steps);
        par[0] = 0.0;
        par[1] = 1.0e-3;
        par[2] = 0.01;
    }

    for (it = 0; it < steps; it++) {
        tree_bcast(par, NPAR, rank, nproc);
        if (par[0] != (double)it)
            bad++;
        series(i0, nloc, par, s);
        tree_sum(s, NSUM, rank, nproc);
        if (rank == 0) {
            if (s[0] != (double)n || s[1] != (double)n * (double)(n - 1) / 2.0)
                bad++;
            par[0] = (double)(it + 1);
            par[1] = 1.0e-3 * (1.0 + fabs(s[2]) / (double)n);
            par[2] = 0.01 + 1.0e-3 * fabs(s[3]) / (double)n;
        }
    }
    /* The ranks' failures (a wrong step number received), summed. */
    s[0] = (double)bad;
    s[1] = s[2] = s[3] = 0.0;
    tree_sum(s, NSUM, rank, nproc);
    if (rank == 0) {
        printf("failures: %d\n", (int)s[0]);
        printf("last parameters: %.6e %.6e\n", par[1], par[2]);
        printf("verification: tree broadcasts and sums: %s\n", s[0] == 0.0 ? "passed" : "FAILED");
        if (getenv("TP_TIMING"))
            fprintf(stderr, "treesum: elapsed %.6f s\n", MPI_Wtime() - t0);
    }
    MPI_Finalize();
    return 0;
}
