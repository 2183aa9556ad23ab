/* persist.h: shared declarations for the persist-halo test program (periodic heat stencil whose
 * halo rows travel through MPI persistent requests, started and completed in every time step as
 * in CFD codes). */
#ifndef PERSIST_H
#define PERSIST_H

#include <mpi.h>
#include <stddef.h>

/* Compile-time switches (the Makefile sets them; these are the fallbacks).
 *   POLL_EVERY  every POLL_EVERY-th step completes the halo with an MPI_Testall polling loop
 *               (interior rows computed between polls) instead of MPI_Waitall; 0: never.
 *               Same numerical result; the number of MPI_Testall calls depends on timing.
 *   RING_EVERY  every RING_EVERY-th step (and the last) reduces the largest change round a
 *               ring of persistent MPI_Start/MPI_Wait pairs. */
#ifndef POLL_EVERY
#define POLL_EVERY 0
#endif
#ifndef RING_EVERY
#define RING_EVERY 5
#endif

#define TAG_UP 21   /* halo row travelling to the rank above (rank - 1, periodic) */
#define TAG_DOWN 22 /* halo row travelling to the rank below (rank + 1, periodic) */
#define TAG_RING 23 /* scalar travelling round the ring */

#define NHALO 4     /* persistent requests per field: 2 receives, then 2 sends */

/* Error check for MPI calls; die() is an ordinary function (defined in main.c). */
#define CHECK(x) do { if ((x) != MPI_SUCCESS) die(__FILE__, __LINE__); } while (0)

typedef struct {
    int n;            /* global grid is n x n, periodic in both directions */
    int nloc;         /* rows owned by this rank */
    int row0;         /* global index of the first owned row */
    int rank, size;
    int up, down;     /* neighbour ranks (periodic, never MPI_PROC_NULL) */
    MPI_Comm comm;    /* 1D periodic Cartesian communicator */
    double *f[2];     /* two fields of (nloc + 2) x (n + 2); the steps alternate between them */
    MPI_Request halo[2][NHALO]; /* persistent halo requests bound to f[0] and f[1] */
    MPI_Request ring[2];        /* persistent ring pair: [0] receive, [1] send */
    double ring_in, ring_out;   /* the ring pair's buffers */
} grid_t;

#define IDX(g, i, j) ((size_t)(i) * (size_t)((g)->n + 2) + (size_t)(j))

void die(const char *file, int line);

/* halo.c */
void halo_init(grid_t *g);
void halo_start(grid_t *g, int which);
void halo_wait(grid_t *g, int which);
int halo_test(grid_t *g, int which);
void halo_check_inactive(grid_t *g, int which);
double ring_max(grid_t *g, double local);
void halo_free(grid_t *g);

#endif
