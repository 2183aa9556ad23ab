/* sweep.h: the distributed grid and the pipelined line solve of linesweep. */
#ifndef LINESWEEP_SWEEP_H
#define LINESWEEP_SWEEP_H

#include <mpi.h>

/* A rank's block of the n x n grid: rows [row0, row0 + nloc) of the process row's share,
 * columns [col0, col0 + mloc) of the process column's, on a d0 x d1 Cartesian grid. */
typedef struct {
    MPI_Comm cart;
    int prow, pcol, west, east, north, south;
    int n, nloc, row0, mloc, col0;
    double *u, *cp, *dp, *ghost_n, *ghost_s;
} grid;

/* Items [0, n) dealt as rows are: the first n mod np parts one longer. */
int share(int n, int np, int p);
int first(int n, int np, int p);

/* One implicit diffusion step along x, u := (I + a L)^-1 u with L the second difference and
 * no flux through the ends, solved row by row by the Thomas algorithm pipelined over the
 * process columns: forward elimination west to east, back substitution east to west. */
void line_solve(grid *g, double a);

/* One explicit diffusion step along y, u := u + b (u_north - 2 u + u_south), the rows beyond
 * the first and last local rows exchanged with the process rows north and south (a row of the
 * rank's columns each way); no flux through the grid's ends. */
void y_step(grid *g, double b);

#endif
