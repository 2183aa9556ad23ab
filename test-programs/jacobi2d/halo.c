/* halo.c: ghost-row exchange between vertical neighbours for the jacobi2d test program. */
#include "jacobi.h"

/* Fills ghost rows 0 and nloc+1 of field from the neighbours above and below.
 * At the global boundary the neighbour is MPI_PROC_NULL, so the fixed
 * boundary values in the ghost row are left untouched. */
void exchange_halo(grid_t *g, double *field)
{
    int w = g->n + 2;
    double *ghost_top = field + IDX(g, 0, 0);
    double *first = field + IDX(g, 1, 0);
    double *last = field + IDX(g, g->nloc, 0);
    double *ghost_bottom = field + IDX(g, g->nloc + 1, 0);
#if HALO_NONBLOCKING
    MPI_Request req[4];

    CHECK(MPI_Irecv(ghost_top, w, MPI_DOUBLE, g->up, TAG_DOWN, g->comm, &req[0]));
    CHECK(MPI_Irecv(ghost_bottom, w, MPI_DOUBLE, g->down, TAG_UP, g->comm, &req[1]));
    CHECK(MPI_Isend(first, w, MPI_DOUBLE, g->up, TAG_UP, g->comm, &req[2]));
    CHECK(MPI_Isend(last, w, MPI_DOUBLE, g->down, TAG_DOWN, g->comm, &req[3]));
    CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
#else
    MPI_Status st;

    CHECK(MPI_Sendrecv(first, w, MPI_DOUBLE, g->up, TAG_UP,
                       ghost_bottom, w, MPI_DOUBLE, g->down, TAG_UP, g->comm, &st));
    CHECK(MPI_Sendrecv(last, w, MPI_DOUBLE, g->down, TAG_DOWN,
                       ghost_top, w, MPI_DOUBLE, g->up, TAG_DOWN, g->comm, &st));
#endif
}
