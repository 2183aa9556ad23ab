/* halo.c: the neighbor-halo test program's exchanges, all through MPI-3 neighbourhood
 * collectives on the Cartesian communicator: the four faces with MPI_Neighbor_alltoall (or
 * MPI_Neighbor_alltoallv, or the non-blocking MPI_Ineighbor_alltoall, by step, all three on
 * packed faces; or MPI_Neighbor_alltoallw straight from and into the grid with a derived type
 * per face), and the corner values with MPI_Neighbor_allgather. Neighbour order is MPI's: along x the source then the
 * destination of a shift by +1, then along y. A wall (MPI_PROC_NULL) keeps its block. */
#include <string.h>
#include "halo.h"

/* Face k of the four in neighbour order: x-, x+, y-, y+. */
static void pack(grid_t *g)
{
    int i, j;
    for (j = 1; j <= g->ny; j++) {
        g->send[0 * g->face + j - 1] = AT(g, g->u, 1, j);
        g->send[1 * g->face + j - 1] = AT(g, g->u, g->nx, j);
    }
    for (i = 1; i <= g->nx; i++) {
        g->send[2 * g->face + i - 1] = AT(g, g->u, i, 1);
        g->send[3 * g->face + i - 1] = AT(g, g->u, i, g->ny);
    }
}

static void unpack(grid_t *g)
{
    int i, j;
    int lo_y = 0, hi_y = 0;
    MPI_Cart_shift(g->cart, 1, 1, &lo_y, &hi_y);
    for (j = 1; j <= g->ny; j++) {
        AT(g, g->u, 0, j) = g->recv[0 * g->face + j - 1];
        AT(g, g->u, g->nx + 1, j) = g->recv[1 * g->face + j - 1];
    }
    for (i = 1; i <= g->nx; i++) {
        if (lo_y != MPI_PROC_NULL)
            AT(g, g->u, i, 0) = g->recv[2 * g->face + i - 1];
        if (hi_y != MPI_PROC_NULL)
            AT(g, g->u, i, g->ny + 1) = g->recv[3 * g->face + i - 1];
    }
}

/* The faces as datatypes of the grid itself: a row of x (stride ny + 2) and a column of y. */
static void exchange_typed(grid_t *g)
{
    MPI_Datatype xface, yface, types[4];
    MPI_Aint sd[4], rd[4], row = (MPI_Aint)(g->ny + 2) * (MPI_Aint)sizeof(double);
    int counts[4] = {1, 1, 1, 1};
    MPI_Type_contiguous(g->ny, MPI_DOUBLE, &xface);       /* i fixed, j = 1..ny */
    MPI_Type_vector(g->nx, 1, g->ny + 2, MPI_DOUBLE, &yface); /* j fixed, i = 1..nx */
    MPI_Type_commit(&xface);
    MPI_Type_commit(&yface);
    types[0] = types[1] = xface;
    types[2] = types[3] = yface;
    /* Send the first and last interior rows and columns, receive into the ghost ones. */
    sd[0] = 1 * row + (MPI_Aint)sizeof(double);
    sd[1] = (MPI_Aint)g->nx * row + (MPI_Aint)sizeof(double);
    sd[2] = 1 * row + 1 * (MPI_Aint)sizeof(double);
    sd[3] = 1 * row + (MPI_Aint)g->ny * (MPI_Aint)sizeof(double);
    rd[0] = 0 * row + (MPI_Aint)sizeof(double);
    rd[1] = (MPI_Aint)(g->nx + 1) * row + (MPI_Aint)sizeof(double);
    rd[2] = 1 * row + 0;
    rd[3] = 1 * row + (MPI_Aint)(g->ny + 1) * (MPI_Aint)sizeof(double);
    MPI_Neighbor_alltoallw(g->u, counts, sd, types, g->u, counts, rd, types, g->cart);
    MPI_Type_free(&xface);
    MPI_Type_free(&yface);
}

void exchange(grid_t *g, int mode)
{
    if (mode == 3) {
        exchange_typed(g);
        return;
    }
    pack(g);
    if (mode == 0) {
        MPI_Neighbor_alltoall(g->send, g->face, MPI_DOUBLE, g->recv, g->face, MPI_DOUBLE,
                              g->cart);
    } else if (mode == 1) {
        int counts[4], displs[4], k;
        for (k = 0; k < 4; k++) {
            counts[k] = k < 2 ? g->ny : g->nx;
            displs[k] = k * g->face;
        }
        MPI_Neighbor_alltoallv(g->send, counts, displs, MPI_DOUBLE, g->recv, counts, displs,
                               MPI_DOUBLE, g->cart);
    } else {
        MPI_Request req;
        MPI_Ineighbor_alltoall(g->send, g->face, MPI_DOUBLE, g->recv, g->face, MPI_DOUBLE,
                               g->cart, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    unpack(g);
}

/* The sum of the interior corner values of this rank and its four neighbours (a wall counts
 * nothing: its block keeps the value it had). */
double corner_sum(grid_t *g)
{
    double mine = AT(g, g->u, 1, 1), theirs[4] = {0, 0, 0, 0}, s = mine;
    int k;
    MPI_Neighbor_allgather(&mine, 1, MPI_DOUBLE, theirs, 1, MPI_DOUBLE, g->cart);
    for (k = 0; k < 4; k++)
        s += theirs[k];
    return s;
}
