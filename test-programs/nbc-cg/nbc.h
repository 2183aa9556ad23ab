/* nbc.h: shared declarations for the nbc-cg test program (pipelined conjugate gradients on the
 * 2D 5-point Poisson matrix, rows split over the ranks, with MPI-3 non-blocking collectives
 * overlapped with the halo exchange and the local matrix-vector product). */
#ifndef NBC_H
#define NBC_H

#include <mpi.h>
#include <stddef.h>

/* Compile-time switches (the Makefile sets TEST_EVERY; these are the fallbacks).
 *   TEST_EVERY  every TEST_EVERY-th iteration polls the dot-product MPI_Iallreduce with
 *               MPI_Test, computing one interior row of the matrix-vector product between
 *               polls, instead of computing them all first; 0: never.  Same numerical result;
 *               the number of MPI_Test calls depends on timing.
 *   SPLIT_WAIT  1: the halo exchange is completed by its own MPI_Waitall while the reduction
 *               is still outstanding, and the reduction by MPI_Wait after it (the order many
 *               codes use); 0: one MPI_Waitall completes both.  Same result. */
#ifndef TEST_EVERY
#define TEST_EVERY 0
#endif
#ifndef SPLIT_WAIT
#define SPLIT_WAIT 0
#endif

#define TAG_UP 31   /* halo row travelling to the rank above (rank - 1) */
#define TAG_DOWN 32 /* halo row travelling to the rank below (rank + 1) */

#define NREQ 5      /* per iteration: the dot-product MPI_Iallreduce, then 2 receives, 2 sends */
#define STAT_EVERY 10 /* MPI_Ireduce of the per-rank statistic every STAT_EVERY-th iteration */
#define MODULUS 1000000007LL /* the checksum is taken modulo this prime */

/* Error check for MPI calls; die() is an ordinary function (defined in main.c). */
#define CHECK(x) do { if ((x) != MPI_SUCCESS) die(__FILE__, __LINE__); } while (0)

typedef struct {
    int n;            /* the grid is n x n: n * n unknowns, zero Dirichlet boundary */
    int nloc;         /* grid rows owned by this rank */
    int row0;         /* global index of the first owned row */
    int rank, size;
    int up, down;     /* neighbour ranks, MPI_PROC_NULL at the ends */
    MPI_Comm comm;
    /* Vectors of (nloc + 2) x n values: ghost row 0, owned rows 1..nloc, ghost row nloc+1
     * (the ghost rows stay zero except in r and w, whose halos are exchanged). */
    double *b, *x, *r, *w, *p, *s, *z, *q;
    double gmax[2];   /* global largest |r| and |w| (MPI_MAX: exact), for the dot products */
    long long hist;   /* hash of the residual history: the largest |r| of every iteration */
    long long stat;   /* rank 0: sum of the MPI_Ireduce results (global row counts) */
    long long restarts; /* iterations whose step formula broke down (beta reset to 0) */
    long long polls;  /* MPI_Test calls of the TEST_EVERY polling (timing dependent) */
} cg_t;

#define IDX(g, i, j) ((size_t)(i) * (size_t)(g)->n + (size_t)(j))

void die(const char *file, int line);

/* solver.c */
void cg_setup(cg_t *g);
void cg_run(cg_t *g, int iters);

#endif
