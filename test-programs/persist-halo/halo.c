/* halo.c: persistent requests of the persist-halo test program: halo rows exchanged with both
 * periodic neighbours through MPI_Send_init/MPI_Recv_init requests set up once and restarted
 * with MPI_Startall every time step (as CFD codes do), a scalar ring reduction through a
 * persistent MPI_Start/MPI_Wait pair, and waits on requests that are already inactive. */
#include <stdio.h>
#include "persist.h"

static void fail(grid_t *g, const char *what, int which, int k, const MPI_Status *st)
{
    fprintf(stderr, "persist-halo: rank %d: %s (field %d request %d: source %d tag %d)\n",
            g->rank, what, which, k, st->MPI_SOURCE, st->MPI_TAG);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The receives of a completed exchange: right sender, tag and length. */
static void check_received(grid_t *g, int which, const MPI_Status *st)
{
    int k, count;
    for (k = 0; k < 2; k++) {
        CHECK(MPI_Get_count(&st[k], MPI_DOUBLE, &count));
        if (st[k].MPI_SOURCE != (k == 0 ? g->up : g->down) ||
            st[k].MPI_TAG != (k == 0 ? TAG_DOWN : TAG_UP) || count != g->n + 2)
            fail(g, "halo receive with a wrong status", which, k, &st[k]);
    }
}

/* An inactive request's status is empty: any source, any tag, no element. */
static void check_empty(grid_t *g, int which, int k, const MPI_Status *st)
{
    int count;
    CHECK(MPI_Get_count(st, MPI_DOUBLE, &count));
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG || count != 0)
        fail(g, "wait on an inactive request gave a non-empty status", which, k, st);
}

/* Creates the persistent requests once: per field, receives into ghost rows 0 and nloc+1 and
 * sends of the first and last owned rows; and the ring pair (receive from above, send below). */
void halo_init(grid_t *g)
{
    int w = g->n + 2, which;
    for (which = 0; which < 2; which++) {
        double *f = g->f[which];
        MPI_Request *r = g->halo[which];
        CHECK(MPI_Recv_init(f + IDX(g, 0, 0), w, MPI_DOUBLE, g->up, TAG_DOWN, g->comm, &r[0]));
        CHECK(MPI_Recv_init(f + IDX(g, g->nloc + 1, 0), w, MPI_DOUBLE, g->down, TAG_UP, g->comm,
                            &r[1]));
        CHECK(MPI_Send_init(f + IDX(g, 1, 0), w, MPI_DOUBLE, g->up, TAG_UP, g->comm, &r[2]));
        CHECK(MPI_Send_init(f + IDX(g, g->nloc, 0), w, MPI_DOUBLE, g->down, TAG_DOWN, g->comm,
                            &r[3]));
    }
    CHECK(MPI_Recv_init(&g->ring_in, 1, MPI_DOUBLE, g->up, TAG_RING, g->comm, &g->ring[0]));
    CHECK(MPI_Send_init(&g->ring_out, 1, MPI_DOUBLE, g->down, TAG_RING, g->comm, &g->ring[1]));
}

void halo_start(grid_t *g, int which)
{
    CHECK(MPI_Startall(NHALO, g->halo[which]));
}

void halo_wait(grid_t *g, int which)
{
    MPI_Status st[NHALO];
    CHECK(MPI_Waitall(NHALO, g->halo[which], st));
    check_received(g, which, st);
}

/* One poll of the exchange in flight; returns MPI_Testall's flag. */
int halo_test(grid_t *g, int which)
{
    MPI_Status st[NHALO];
    int flag = 0;
    CHECK(MPI_Testall(NHALO, g->halo[which], &flag, st));
    if (flag)
        check_received(g, which, st);
    return flag;
}

/* Waits again on the field's requests, which are complete and not restarted (or never
 * started): MPI_Wait on one, then MPI_Waitall on all; both return at once, statuses empty. */
void halo_check_inactive(grid_t *g, int which)
{
    MPI_Status st[NHALO];
    int k;
    CHECK(MPI_Wait(&g->halo[which][0], &st[0]));
    check_empty(g, which, 0, &st[0]);
    CHECK(MPI_Waitall(NHALO, g->halo[which], st));
    for (k = 0; k < NHALO; k++) {
        check_empty(g, which, k, &st[k]);
        if (g->halo[which][k] == MPI_REQUEST_NULL)
            fail(g, "a persistent request became MPI_REQUEST_NULL", which, k, &st[k]);
    }
}

/* Largest value over all ranks: size passes round the ring, each restarting the persistent
 * receive and send with MPI_Start and completing them with MPI_Wait (max is exact, so the
 * result does not depend on the order). */
double ring_max(grid_t *g, double local)
{
    MPI_Status st;
    double best = local;
    int k;
    for (k = 0; k < g->size; k++) {
        g->ring_out = best;
        CHECK(MPI_Start(&g->ring[0]));
        CHECK(MPI_Start(&g->ring[1]));
        CHECK(MPI_Wait(&g->ring[0], &st));
        if (st.MPI_SOURCE != g->up || st.MPI_TAG != TAG_RING)
            fail(g, "ring receive with a wrong status", -1, 0, &st);
        CHECK(MPI_Wait(&g->ring[1], MPI_STATUS_IGNORE));
        if (g->ring_in > best)
            best = g->ring_in;
    }
    return best;
}

/* Releases every persistent request (all inactive by now). */
void halo_free(grid_t *g)
{
    int which, k;
    for (which = 0; which < 2; which++)
        for (k = 0; k < NHALO; k++)
            CHECK(MPI_Request_free(&g->halo[which][k]));
    CHECK(MPI_Request_free(&g->ring[0]));
    CHECK(MPI_Request_free(&g->ring[1]));
}
