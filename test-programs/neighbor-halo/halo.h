/* halo.h: the neighbor-halo test program's grid (a rank's block of an N x N plate). */
#ifndef NEIGHBOR_HALO_H
#define NEIGHBOR_HALO_H
#include <mpi.h>

typedef struct {
    MPI_Comm cart;      /* 2-D Cartesian grid of ranks: periodic along x, walls along y */
    int dims[2], coords[2];
    int nx, ny;         /* interior points of this rank's block */
    double *u, *v;      /* (nx + 2) x (ny + 2), row-major in x */
    double *send, *recv; /* four faces each, packed in neighbour order */
    int face;           /* doubles per face block: max(nx, ny) */
} grid_t;

#define AT(g, a, i, j) ((a)[(size_t)(i) * (size_t)((g)->ny + 2) + (size_t)(j)])

void exchange(grid_t *g, int mode);
double corner_sum(grid_t *g);

#endif
