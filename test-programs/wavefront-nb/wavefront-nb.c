/* wavefront-nb: the wavefront test program with its backward-sweep MPI_Ssend made non-blocking (MPI_Isend, waited at the end of the sweep): the fixed variant of bench/whatif. */
/*
 * Usage:  mpirun -np N ./wavefront [nx] [ny] [iters] [block]
 *   nx     grid rows, split into row strips among the ranks     default 64    large 2048
 *   ny     grid columns, processed in column blocks             default 64    large 2048
 *   iters  number of SSOR iterations (forward + backward sweep) default 4     large 40
 *   block  column block width = pipeline granularity            default 16    large 64
 *
 * Every rank receives the boundary row of a column block from its upstream
 * neighbour (MPI_Recv), updates the block and passes its own boundary row on
 * downstream (MPI_Send forward, MPI_Ssend backward).  The update order equals
 * the serial SOR order, so the integer checksum is the same at any rank count.
 * Needs nx >= number of ranks (otherwise prints a message and exits 1).
 * Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_FWD 31
#define TAG_BWD 32
#define OMEGA 1.2

typedef struct {
    int nx, ny, nloc, row0;
    int up, down;
    double h2f;      /* h^2 * f, constant source */
    double *u;       /* (nloc + 2) x (ny + 2), ghost rows and fixed boundary columns */
} strip_t;

#define U(s, i, j) ((s)->u[(size_t)(i) * (size_t)((s)->ny + 2) + (size_t)(j)])

static void relax_point(strip_t *s, int i, int j)
{
    double nb = U(s, i - 1, j) + U(s, i + 1, j) + U(s, i, j - 1) + U(s, i, j + 1);
    U(s, i, j) = (1.0 - OMEGA) * U(s, i, j) + OMEGA * 0.25 * (nb + s->h2f);
}

/* Receives a block boundary row and checks its length; returns 0 on success. */
static int recv_row(double *buf, int w, int src, int tag)
{
    MPI_Status st;
    int count;

    MPI_Recv(buf, w, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    if (count != w || st.MPI_SOURCE != src) {
        fprintf(stderr, "wavefront-nb: bad message from %d (count %d, expected %d)\n", st.MPI_SOURCE, count, w);
        return -1;
    }
    return 0;
}

/* Forward sweep: north and west neighbours are already updated. */
static int forward_sweep(strip_t *s, int block)
{
    int j0, j1, i, j;

    for (j0 = 1; j0 <= s->ny; j0 += block) {
        j1 = j0 + block - 1;
        if (j1 > s->ny)
            j1 = s->ny;
        if (s->up != MPI_PROC_NULL && recv_row(&U(s, 0, j0), j1 - j0 + 1, s->up, TAG_FWD) != 0)
            return -1;
        for (i = 1; i <= s->nloc; i++)
            for (j = j0; j <= j1; j++)
                relax_point(s, i, j);
        if (s->down != MPI_PROC_NULL)
            MPI_Send(&U(s, s->nloc, j0), j1 - j0 + 1, MPI_DOUBLE, s->down, TAG_FWD, MPI_COMM_WORLD);
    }
    return 0;
}

/* Backward sweep: south and east neighbours are already updated. */
static int backward_sweep(strip_t *s, int block)
{
    int nblocks = (s->ny + block - 1) / block;
    int b, j0, j1, i, j, nreq = 0;
    MPI_Request *reqs = malloc((size_t)nblocks * sizeof(MPI_Request));

    if (!reqs)
        MPI_Abort(MPI_COMM_WORLD, 1);

    b = nblocks - 1;
    while (b >= 0) {
        j0 = 1 + b * block;
        j1 = j0 + block - 1;
        if (j1 > s->ny)
            j1 = s->ny;
        if (s->down != MPI_PROC_NULL) {
            if (recv_row(&U(s, s->nloc + 1, j0), j1 - j0 + 1, s->down, TAG_BWD) != 0) {
                free(reqs);
                return -1;
            }
        }
        for (i = s->nloc; i >= 1; i--)
            for (j = j1; j >= j0; j--)
                relax_point(s, i, j);
        /* The sent row is not written again in this sweep: wait for all sends at its end. */
        if (s->up != MPI_PROC_NULL)
            MPI_Isend(&U(s, 1, j0), j1 - j0 + 1, MPI_DOUBLE, s->up, TAG_BWD, MPI_COMM_WORLD,
                      &reqs[nreq++]);
        b--;
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, nx, ny, iters, block, it, i, j, status = 0, any_error = 0;
    long long q, qsum = 0, qtot = 0;
    double lsum = 0.0, gsum = 0.0, t0, t1;
    strip_t s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    nx = argc > 1 ? atoi(argv[1]) : 64;
    ny = argc > 2 ? atoi(argv[2]) : 64;
    iters = argc > 3 ? atoi(argv[3]) : 4;
    block = argc > 4 ? atoi(argv[4]) : 16;
    if (nx < 1 || ny < 1 || iters < 1 || block < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: wavefront [nx>=1] [ny>=1] [iters>=1] [block>=1]\n");
        MPI_Finalize();
        return 1;
    }
    if (nx < size) {
        if (rank == 0)
            printf("wavefront-nb: unsupported: nx=%d rows cannot be split among %d ranks\n", nx, size);
        MPI_Finalize();
        return 1;
    }

    s.nx = nx;
    s.ny = ny;
    s.nloc = nx / size + (rank < nx % size ? 1 : 0);
    s.row0 = rank * (nx / size) + (rank < nx % size ? rank : nx % size);
    s.up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    s.down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    s.h2f = 1000.0 / ((double)(nx + 1) * (double)(ny + 1));
    s.u = calloc((size_t)(s.nloc + 2) * (size_t)(ny + 2), sizeof(double));
    if (!s.u) {
        fprintf(stderr, "wavefront-nb: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* boundary: u = 1 on the top edge of the global grid, 0 elsewhere */
    if (s.up == MPI_PROC_NULL)
        for (j = 0; j < ny + 2; j++)
            U(&s, 0, j) = 1.0;

    MPI_Barrier(MPI_COMM_WORLD);
    for (it = 0; it < iters; it++) {
        status = forward_sweep(&s, block);
        if (status != 0)
            break;
        status = backward_sweep(&s, block);
        if (status != 0)
            break;
    }
    if (status != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* Integer checksum: position-weighted sum of values quantised to 1e-6. */
    for (i = 1; i <= s.nloc; i++) {
        for (j = 1; j <= ny; j++) {
            q = (long long)(U(&s, i, j) * 1e6);
            qsum += q * (long long)(((s.row0 + i - 1) * 131 + j) % 1009 + 1);
            lsum += U(&s, i, j);
        }
    }
    MPI_Reduce(&qsum, &qtot, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&lsum, &gsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&status, &any_error, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("wavefront-nb: ranks=%d nx=%d ny=%d iters=%d block=%d\n", size, nx, ny, iters, block);
        printf("checksum: %lld\n", qtot);
        printf("mean value: %.6g\n", gsum / ((double)nx * ny));
        printf("errors: %d\n", any_error);
    }
    free(s.u);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "wavefront-nb: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
