/* cg.h: shared declarations for the cg test program (CG on a distributed 2D Laplacian in CSR format). */
#ifndef CG_H
#define CG_H

#include <mpi.h>

#define TAG_FROM_ABOVE 21 /* data sent downwards, received from the rank above */
#define TAG_FROM_BELOW 22 /* data sent upwards, received from the rank below */

/* Error check for MPI calls; cg_fail() is an ordinary function (defined in main.c). */
#define CHECK(x) do { if ((x) != MPI_SUCCESS) cg_fail(__FILE__, __LINE__); } while (0)

/* Local rows of a sparse matrix; column indices point into the extended vector. */
typedef struct {
    int nrows;
    int *rowptr;
    int *col;
    double *val;
} csr_t;

/* 5-point Laplacian on an n x n grid; each rank owns ngr consecutive grid rows. */
typedef struct {
    int n;        /* grid side, n*n unknowns in total */
    int gr0, ngr; /* first owned grid row and number of owned grid rows */
    int nloc;     /* owned unknowns = ngr * n */
    int up, down; /* neighbour ranks or MPI_PROC_NULL */
    MPI_Comm comm;
    csr_t A;
    double *xext; /* n ghosts from above, nloc owned, n ghosts from below */
} problem_t;

void cg_fail(const char *file, int line);

/* csr.c */
int build_laplacian(problem_t *p, int n, MPI_Comm comm);
void free_problem(problem_t *p);
void spmv(problem_t *p, const double *x, double *y);
double dot(const double *a, const double *b, int n, MPI_Comm comm);

#endif
