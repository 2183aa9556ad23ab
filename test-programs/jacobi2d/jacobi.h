/* jacobi.h: shared declarations for the jacobi2d test program (2D Jacobi, row-strip decomposition). */
#ifndef JACOBI_H
#define JACOBI_H

#include <mpi.h>
#include <stddef.h>

/* Compile-time switches (the Makefile sets them; these are the fallbacks).
 *   HALO_NONBLOCKING  1: halo exchange with MPI_Isend/MPI_Irecv/MPI_Waitall,
 *                     0: with two MPI_Sendrecv calls.  Same numerical result.
 *   CONV_INTERVAL     the MPI_Allreduce convergence test runs every
 *                     CONV_INTERVAL iterations (changes the iteration count). */
#ifndef HALO_NONBLOCKING
#define HALO_NONBLOCKING 0
#endif
#ifndef CONV_INTERVAL
#define CONV_INTERVAL 1
#endif

#define TAG_UP 11   /* message travelling to the rank above */
#define TAG_DOWN 12 /* message travelling to the rank below */

/* Error check for MPI calls; die() is an ordinary function (defined in main.c). */
#define CHECK(x) do { if ((x) != MPI_SUCCESS) die(__FILE__, __LINE__); } while (0)

typedef struct {
    int n;          /* global interior grid is n x n */
    int nloc;       /* interior rows owned by this rank */
    int row0;       /* global index of the first owned row */
    int rank, size;
    int up, down;   /* neighbour ranks in comm, or MPI_PROC_NULL */
    MPI_Comm comm;  /* 1D Cartesian communicator */
    double *u, *unew; /* (nloc + 2) x (n + 2), ghost rows 0 and nloc + 1 */
} grid_t;

#define IDX(g, i, j) ((size_t)(i) * (size_t)((g)->n + 2) + (size_t)(j))

void die(const char *file, int line);

/* halo.c */
void exchange_halo(grid_t *g, double *field);

/* jacobi.c */
int grid_init(grid_t *g, int n, MPI_Comm comm);
void grid_free(grid_t *g);
double jacobi_sweep(grid_t *g);
void grid_stats(const grid_t *g, double *sum, double *maxval);

#endif
