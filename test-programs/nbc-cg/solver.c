/* solver.c: the pipelined conjugate-gradient iteration of the nbc-cg test program (Ghysels and
 * Vanroose's variant: one reduction of two dot products per iteration, overlapped with the
 * next matrix-vector product).  Each iteration starts MPI_Iallreduce of the two dot products
 * packed in one array, posts the halo exchange of w (MPI_Irecv/MPI_Isend with the neighbours,
 * MPI_PROC_NULL at the ends), computes the interior rows of A w, completes all five requests
 * with one MPI_Waitall, computes the first and last rows, updates the vectors, starts an
 * MPI_Iallreduce (MPI_MAX) of the largest |r| and |w|, updates x meanwhile and completes it
 * with MPI_Wait.  Every STAT_EVERY-th iteration also reduces a per-rank count to rank 0 with
 * MPI_Ireduce, completed by MPI_Wait a few statements later. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "nbc.h"

#define STAT_LEVEL 1e-2 /* the statistic: owned cells with |r| >= STAT_LEVEL */

static void fail(const cg_t *g, const char *what, int k, const MPI_Status *st)
{
    fprintf(stderr, "nbc-cg: rank %d: %s (request %d: source %d tag %d)\n", g->rank, what, k,
            st->MPI_SOURCE, st->MPI_TAG);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Posts the halo exchange of v into req[0..3]: receives into ghost rows 0 and nloc+1, sends of
 * the first and last owned rows (MPI_PROC_NULL at the global ends: nothing moves there). */
static void halo_post(const cg_t *g, double *v, MPI_Request *req)
{
    int n = g->n;
    CHECK(MPI_Irecv(v + IDX(g, 0, 0), n, MPI_DOUBLE, g->up, TAG_DOWN, g->comm, &req[0]));
    CHECK(MPI_Irecv(v + IDX(g, g->nloc + 1, 0), n, MPI_DOUBLE, g->down, TAG_UP, g->comm,
                    &req[1]));
    CHECK(MPI_Isend(v + IDX(g, 1, 0), n, MPI_DOUBLE, g->up, TAG_UP, g->comm, &req[2]));
    CHECK(MPI_Isend(v + IDX(g, g->nloc, 0), n, MPI_DOUBLE, g->down, TAG_DOWN, g->comm,
                    &req[3]));
}

/* The statuses of the two halo receives: right sender, tag and length (a receive from
 * MPI_PROC_NULL completes at once with source MPI_PROC_NULL and no element). */
static void check_received(const cg_t *g, const MPI_Status *st)
{
    int k, count, from;
    for (k = 0; k < 2; k++) {
        from = k == 0 ? g->up : g->down;
        CHECK(MPI_Get_count(&st[k], MPI_DOUBLE, &count));
        if (st[k].MPI_SOURCE != from ||
            (from != MPI_PROC_NULL &&
             (st[k].MPI_TAG != (k == 0 ? TAG_DOWN : TAG_UP) || count != g->n)) ||
            (from == MPI_PROC_NULL && count != 0))
            fail(g, "halo receive with a wrong status", k, &st[k]);
    }
}

/* y = A v on owned rows i0..i1, A the 5-point matrix 4 on the diagonal, -1 for the four
 * neighbours (zero outside the grid: the ghost rows at the global ends stay zero). */
static void matvec_rows(const cg_t *g, const double *v, double *y, int i0, int i1)
{
    int i, j, n = g->n;
    double t;
    for (i = i0; i <= i1; i++) {
        const double *a = v + IDX(g, i - 1, 0), *c = v + IDX(g, i, 0), *d = v + IDX(g, i + 1, 0);
        double *o = y + IDX(g, i, 0);
        for (j = 0; j < n; j++) {
            t = 4.0 * c[j] - a[j] - d[j];
            if (j > 0)
                t -= c[j - 1];
            if (j < n - 1)
                t -= c[j + 1];
            o[j] = t;
        }
    }
}

/* The dot products are made exact, hence the same at any rank count: every term is rounded
 * to a multiple of the power of two `quantum`, chosen from the global largest |r| and |w|
 * (exact, from an MPI_MAX reduction) so that every partial sum of the rounded terms, over any
 * set of cells, stays below 2^52 quanta: integers in doubles, summed without rounding by the
 * MPI_SUM reduction in whatever order. */
static double quantum(double rmax, double wmax, double cells)
{
    double bound = 2.0 * cells * rmax * (rmax > wmax ? rmax : wmax);
    int e;
    if (!(bound > 0.0) || !isfinite(bound))
        return 1.0;
    frexp(bound, &e);
    if (e - 52 < -1000)
        e = -948;
    return ldexp(1.0, e - 52);
}

/* out[0] = (r, r) and out[1] = (w, r) over the owned cells, in quanta (exact integers). */
static void local_dots(const cg_t *g, double quant, double out[2])
{
    double inv = 1.0 / quant;
    long long rr = 0, wr = 0;
    size_t k, k0 = IDX(g, 1, 0), k1 = IDX(g, g->nloc + 1, 0);
    for (k = k0; k < k1; k++) {
        rr += (long long)floor(g->r[k] * g->r[k] * inv + 0.5);
        wr += (long long)floor(g->w[k] * g->r[k] * inv + 0.5);
    }
    out[0] = (double)rr;
    out[1] = (double)wr;
}

/* x = 0, r = b, w = A r (blocking halo exchange of r), the global largest |r| and |w|. */
void cg_setup(cg_t *g)
{
    MPI_Request req[4];
    MPI_Status st[4];
    size_t k, k0 = IDX(g, 1, 0), k1 = IDX(g, g->nloc + 1, 0);
    double lmax[2] = {0.0, 0.0};
    for (k = k0; k < k1; k++)
        g->r[k] = g->b[k];
    halo_post(g, g->r, req);
    CHECK(MPI_Waitall(4, req, st));
    check_received(g, st);
    matvec_rows(g, g->r, g->w, 1, g->nloc);
    for (k = k0; k < k1; k++) {
        lmax[0] = fmax(lmax[0], fabs(g->r[k]));
        lmax[1] = fmax(lmax[1], fabs(g->w[k]));
    }
    CHECK(MPI_Iallreduce(lmax, g->gmax, 2, MPI_DOUBLE, MPI_MAX, g->comm, &req[0]));
    CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
}

void cg_run(cg_t *g, int iters)
{
    MPI_Request req[NREQ], maxreq, statreq = MPI_REQUEST_NULL;
    MPI_Status st[NREQ];
    double dloc[2], dglob[2], lmax[2], quant, gamma, delta, den, alpha, beta;
    double gamma_old = 0.0, alpha_old = 0.0, zk, sk, cells = (double)g->n * (double)g->n;
    size_t k, k0 = IDX(g, 1, 0), k1 = IDX(g, g->nloc + 1, 0);
    int it, next, flag, stat_loc, stat_glob = 0, nloc = g->nloc;

    for (it = 1; it <= iters; it++) {
        /* The two dot products of r and w, reduced while A w is computed. */
        quant = quantum(g->gmax[0], g->gmax[1], cells);
        local_dots(g, quant, dloc);
        CHECK(MPI_Iallreduce(dloc, dglob, 2, MPI_DOUBLE, MPI_SUM, g->comm, &req[0]));
        halo_post(g, g->w, req + 1);
        next = 2;
        if (TEST_EVERY > 0 && it % TEST_EVERY == 0) {
            /* Poll the reduction, one interior row of A w between polls. */
            flag = 0;
            while (!flag) {
                CHECK(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
                g->polls++;
                if (!flag && next <= nloc - 1) {
                    matvec_rows(g, g->w, g->q, next, next);
                    next++;
                }
            }
        }
        matvec_rows(g, g->w, g->q, next, nloc - 1);
        /* req[0] is the reduction (MPI_REQUEST_NULL if polled to completion), req[1..4] the
         * halo: one MPI_Waitall over both kinds, or the halo's first. */
        if (SPLIT_WAIT) {
            CHECK(MPI_Waitall(NREQ - 1, req + 1, st + 1));
            CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        } else {
            CHECK(MPI_Waitall(NREQ, req, st));
        }
        check_received(g, st + 1);
        matvec_rows(g, g->w, g->q, 1, 1);
        if (nloc > 1)
            matvec_rows(g, g->w, g->q, nloc, nloc);

        /* Step lengths (identical on every rank: the dot products are exact). */
        gamma = dglob[0] * quant;
        delta = dglob[1] * quant;
        beta = 0.0;
        alpha = delta > 0.0 ? gamma / delta : 0.0;
        if (it > 1 && gamma_old > 0.0 && alpha_old != 0.0) {
            beta = gamma / gamma_old;
            den = delta - beta * gamma / alpha_old;
            if (den > 0.0 && isfinite(den)) {
                alpha = gamma / den;
            } else {
                beta = 0.0;     /* breakdown: restart from the steepest descent step */
                g->restarts++;
            }
        }
        gamma_old = gamma;
        alpha_old = alpha;

        /* z = A s, s = A p, p, r = b - A x and w = A r by their recurrences. */
        lmax[0] = lmax[1] = 0.0;
        for (k = k0; k < k1; k++) {
            zk = g->q[k] + beta * g->z[k];
            sk = g->w[k] + beta * g->s[k];
            g->p[k] = g->r[k] + beta * g->p[k];
            g->r[k] = g->r[k] - alpha * sk;
            g->w[k] = g->w[k] - alpha * zk;
            g->z[k] = zk;
            g->s[k] = sk;
            lmax[0] = fmax(lmax[0], fabs(g->r[k]));
            lmax[1] = fmax(lmax[1], fabs(g->w[k]));
        }
        CHECK(MPI_Iallreduce(lmax, g->gmax, 2, MPI_DOUBLE, MPI_MAX, g->comm, &maxreq));
        for (k = k0; k < k1; k++)
            g->x[k] += alpha * g->p[k];
        if (it % STAT_EVERY == 0) {
            stat_loc = 0;
            for (k = k0; k < k1; k++)
                stat_loc += fabs(g->r[k]) >= STAT_LEVEL;
            CHECK(MPI_Ireduce(&stat_loc, &stat_glob, 1, MPI_INT, MPI_SUM, 0, g->comm,
                              &statreq));
        }
        CHECK(MPI_Wait(&maxreq, MPI_STATUS_IGNORE));
        g->hist = (g->hist * 31 + (long long)floor(g->gmax[0] * 1e9 + 0.5)) % MODULUS;
        if (statreq != MPI_REQUEST_NULL) {
            CHECK(MPI_Wait(&statreq, MPI_STATUS_IGNORE));
            if (g->rank == 0)
                g->stat += stat_glob;
        }
    }
}
