/* pipeline: a pipelined sweep over column blocks through layered material, each block's boundary row passed downstream with MPI_Ssend; pipeline-nb is the fixed pair. */
/*
 * Usage:  mpirun -np N ./pipeline [nx] [ny] [iters] [block] [layer] [stiff]
 *   nx     grid rows, split into row strips among the ranks       default 64   large 1024
 *   ny     grid columns, swept in column blocks                   default 64   large 4096
 *   iters  number of sweeps                                       default 4    large 50
 *   block  column block width = pipeline granularity              default 16   large 128
 *   layer  width in columns of the material layers                default 16   large 128
 *   stiff  relaxation steps per point in the stiff layers         default 3    large 3
 *
 * The material alternates in layers along the columns: every other layer is stiff and
 * takes `stiff` local relaxation steps per point, the others one.  Each sweep is a
 * pipeline: every rank receives the boundary row of a column block from its upstream
 * neighbour (MPI_Recv), updates the block and passes its own boundary row downstream
 * with MPI_Ssend (synchronous, as codes do to keep the MPI library's buffering bounded).
 * After each sweep every rank sends its first row up (MPI_Sendrecv) for the next sweep.
 * The synchronous send holds the upstream rank until the downstream one has finished its
 * previous block: a cheap block waits for the expensive one before it, so every pipeline
 * stage advances at the pace of the more expensive of two neighbouring blocks.
 * pipeline-nb sends with MPI_Isend and waits for the sends at the end of the sweep.
 * The update order is the same at any rank count, so the integer checksum is too.
 * Needs nx >= number of ranks (otherwise prints a message and exits 1).  Only rank 0
 * prints.  Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr
 * (the interval mpiete estimates).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_ROW 41
#define TAG_HALO 42
#define OMEGA 1.2

typedef struct {
    int nx, ny, nloc, row0, up, down, layer, stiff;
    double h2f;
    double *u; /* (nloc + 2) x (ny + 2), ghost rows and fixed boundary columns */
} strip_t;

#define U(s, i, j) ((s)->u[(size_t)(i) * (size_t)((s)->ny + 2) + (size_t)(j)])

/* One point: `steps` local relaxations (a stiff material law needs several). */
static void relax_point(strip_t *s, int i, int j, int steps)
{
    double nb = U(s, i - 1, j) + U(s, i + 1, j) + U(s, i, j - 1) + U(s, i, j + 1);
    double v = U(s, i, j);
    int k;

    for (k = 0; k < steps; k++)
        v = (1.0 - OMEGA) * v + OMEGA * 0.25 * (nb + s->h2f * (1.0 + 0.1 * v * v) / (1.0 + k));
    U(s, i, j) = v;
}

static int sweep(strip_t *s, int block, double *ghost)
{
    MPI_Status st;
    int j0, j1, i, j, w, count;

    for (j0 = 1; j0 <= s->ny; j0 += block) {
        j1 = j0 + block - 1;
        if (j1 > s->ny)
            j1 = s->ny;
        w = j1 - j0 + 1;
        if (s->up != MPI_PROC_NULL) {
            MPI_Recv(ghost, w, MPI_DOUBLE, s->up, TAG_ROW, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &count);
            if (count != w) {
                fprintf(stderr, "pipeline: bad message (count %d, expected %d)\n", count, w);
                return -1;
            }
            for (j = 0; j < w; j++)
                U(s, 0, j0 + j) = ghost[j];
        }
        for (i = 1; i <= s->nloc; i++)
            for (j = j0; j <= j1; j++)
                relax_point(s, i, j, ((j - 1) / s->layer) % 2 == 0 ? s->stiff : 1);
        if (s->down != MPI_PROC_NULL)
            MPI_Ssend(&U(s, s->nloc, j0), w, MPI_DOUBLE, s->down, TAG_ROW, MPI_COMM_WORLD);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, nx, ny, iters, block, it, i, j, status = 0, any_error = 0;
    long long q, qsum = 0, qtot = 0;
    double t0, t1, *ghost;
    strip_t s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    nx = argc > 1 ? atoi(argv[1]) : 64;
    ny = argc > 2 ? atoi(argv[2]) : 64;
    iters = argc > 3 ? atoi(argv[3]) : 4;
    block = argc > 4 ? atoi(argv[4]) : 16;
    s.layer = argc > 5 ? atoi(argv[5]) : 16;
    s.stiff = argc > 6 ? atoi(argv[6]) : 3;
    if (nx < 1 || ny < 1 || iters < 1 || block < 1 || s.layer < 1 || s.stiff < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: pipeline [nx>=1] [ny>=1] [iters>=1] [block>=1] [layer>=1] [stiff>=1]\n");
        MPI_Finalize();
        return 1;
    }
    if (nx < size) {
        if (rank == 0)
            printf("pipeline: unsupported: nx=%d rows cannot be split among %d ranks\n", nx, size);
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
    ghost = malloc((size_t)block * sizeof(double));
    if (!s.u || !ghost) {
        fprintf(stderr, "pipeline: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* boundary: u = 1 on the top edge of the global grid, 0 elsewhere */
    if (s.up == MPI_PROC_NULL)
        for (j = 0; j < ny + 2; j++)
            U(&s, 0, j) = 1.0;

    MPI_Barrier(MPI_COMM_WORLD);
    for (it = 0; it < iters && status == 0; it++) {
        status = sweep(&s, block, ghost);
        /* The row below, as the next sweep needs it: each rank's first row goes up. */
        MPI_Sendrecv(&U(&s, 1, 1), ny, MPI_DOUBLE, s.up, TAG_HALO, &U(&s, s.nloc + 1, 1), ny,
                     MPI_DOUBLE, s.down, TAG_HALO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (status != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);

    /* Integer checksum: position-weighted sum of values quantised to 1e-6. */
    for (i = 1; i <= s.nloc; i++)
        for (j = 1; j <= ny; j++) {
            q = (long long)(U(&s, i, j) * 1e6);
            qsum += q * (long long)(((s.row0 + i - 1) * 131 + j) % 1009 + 1);
        }
    MPI_Reduce(&qsum, &qtot, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&status, &any_error, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("pipeline: ranks=%d nx=%d ny=%d iters=%d block=%d layer=%d stiff=%d\n", size, nx,
               ny, iters, block, s.layer, s.stiff);
        printf("checksum: %lld\n", qtot);
        printf("errors: %d\n", any_error);
    }
    free(s.u);
    free(ghost);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "pipeline: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
