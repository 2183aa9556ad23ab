/* c-warmup: Conway's Game of Life on a periodic n x n board whose timed routine runs once as a warm-up and then for real. */
/*
 * Usage:  mpirun -np N ./c-warmup [n] [periods] [warmup]
 *   n        board side (cells), a multiple of 8            default 256   large 2048
 *   periods  glider periods (4 generations each) timed      default 10    large 60
 *   warmup   glider periods of the warm-up call             default 1
 *
 * The board is split into blocks of rows; run_generations() (halo exchange of the edge rows with
 * MPI_Sendrecv, then one generation, per step) is called once as a warm-up and then for real,
 * the same call sites both times, as benchmarks time a routine after warming it up. The board
 * starts as a lattice of gliders 8 cells apart, all flying the same way: after p periods each
 * has moved p cells down and p cells right and nothing else has changed, which the program
 * checks cell by cell (verification line; exit status 1 on failure). Only rank 0 prints to
 * stdout and nothing printed depends on the rank count. On stderr rank 0 prints the real
 * call's time (the slowest rank's), and with TP_TIMING set its time from MPI_Init to
 * MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DOWN 31
#define TAG_UP 32

/* This rank's rows row0 .. row0+rows-1, stored with one ghost row above and below and one
 * ghost column on each side: (rows + 2) x (n + 2) cells. */
struct board {
    int n, rows, row0, up, down;
    unsigned char *cur, *next;
};

#define CELL(b, p, i, j) ((p)[(size_t)(i) * (size_t)((b)->n + 2) + (size_t)(j)])

static long parse_arg(int argc, char **argv, int i, long def)
{
    char *end;
    long v;
    if (argc <= i)
        return def;
    v = strtol(argv[i], &end, 10);
    return *end == '\0' ? v : -1;
}

/* A glider (flying down and right) in each 8 x 8 tile, shifted by s cells down and right. */
static int glider_cell(int n, int gi, int gj, int s)
{
    static const char shape[3][4] = {".#.", "..#", "###"};
    int i = ((gi - s) % n + n) % n % 8, j = ((gj - s) % n + n) % n % 8;
    return i < 3 && j < 3 && shape[i][j] == '#';
}

static void fill(struct board *b)
{
    int i, j;
    memset(b->cur, 0, (size_t)(b->rows + 2) * (size_t)(b->n + 2));
    for (i = 1; i <= b->rows; i++)
        for (j = 1; j <= b->n; j++)
            CELL(b, b->cur, i, j) = (unsigned char)glider_cell(b->n, b->row0 + i - 1, j - 1, 0);
}

/* The ghost rows from the neighbours (periodic: the first and last ranks are neighbours), then
 * the ghost columns from this rank's own opposite edge. */
static void exchange(struct board *b)
{
    int w = b->n + 2, i;
    MPI_Sendrecv(&CELL(b, b->cur, b->rows, 0), w, MPI_UNSIGNED_CHAR, b->down, TAG_DOWN,
                 &CELL(b, b->cur, 0, 0), w, MPI_UNSIGNED_CHAR, b->up, TAG_DOWN, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&CELL(b, b->cur, 1, 0), w, MPI_UNSIGNED_CHAR, b->up, TAG_UP,
                 &CELL(b, b->cur, b->rows + 1, 0), w, MPI_UNSIGNED_CHAR, b->down, TAG_UP,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < b->rows + 2; i++) {
        CELL(b, b->cur, i, 0) = CELL(b, b->cur, i, b->n);
        CELL(b, b->cur, i, b->n + 1) = CELL(b, b->cur, i, 1);
    }
}

static void generation(struct board *b)
{
    int i, j, live;
    unsigned char *t;
    for (i = 1; i <= b->rows; i++) {
        const unsigned char *a = &CELL(b, b->cur, i - 1, 0), *m = &CELL(b, b->cur, i, 0),
                            *z = &CELL(b, b->cur, i + 1, 0);
        unsigned char *o = &CELL(b, b->next, i, 0);
        for (j = 1; j <= b->n; j++) {
            live = a[j - 1] + a[j] + a[j + 1] + m[j - 1] + m[j + 1] + z[j - 1] + z[j] + z[j + 1];
            o[j] = (unsigned char)(live == 3 || (live == 2 && m[j]));
        }
    }
    t = b->cur;
    b->cur = b->next;
    b->next = t;
}

/* The timed routine: gens generations, each after a halo exchange. */
static void run_generations(struct board *b, int gens)
{
    int g;
    for (g = 0; g < gens; g++) {
        exchange(b);
        generation(b);
    }
}

/* Cells that differ from the lattice shifted by s, and live cells. */
static void check(const struct board *b, int s, long long *wrong, long long *alive)
{
    int i, j, c;
    *wrong = 0;
    *alive = 0;
    for (i = 1; i <= b->rows; i++)
        for (j = 1; j <= b->n; j++) {
            c = CELL(b, b->cur, i, j);
            *alive += c;
            *wrong += c != glider_cell(b->n, b->row0 + i - 1, j - 1, s);
        }
}

int main(int argc, char **argv)
{
    int rank, size, ok;
    long n, periods, warmup;
    long long local[2], total[2];
    double t0, t1, ta, tb, mine, slowest;
    struct board b;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = parse_arg(argc, argv, 1, 256);
    periods = parse_arg(argc, argv, 2, 10);
    warmup = parse_arg(argc, argv, 3, 1);
    if (n < 8 || n % 8 != 0 || n < size || n > 65536 || periods < 1 || warmup < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: c-warmup [n: multiple of 8, >= ranks] [periods>=1] "
                            "[warmup>=0]\n");
        MPI_Finalize();
        return 1;
    }
    b.n = (int)n;
    b.rows = (int)(n / size + (rank < n % size));
    b.row0 = (int)(rank * (n / size) + (rank < n % size ? rank : n % size));
    b.up = (rank + size - 1) % size;
    b.down = (rank + 1) % size;
    b.cur = malloc((size_t)(b.rows + 2) * (size_t)(n + 2));
    b.next = calloc((size_t)(b.rows + 2) * (size_t)(n + 2), 1);
    if (!b.cur || !b.next) {
        fprintf(stderr, "c-warmup: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fill(&b);
    if (rank == 0)
        printf("c-warmup: board %ld x %ld, warm-up %ld periods, timed %ld periods\n", n, n,
               warmup, periods);

    run_generations(&b, (int)(4 * warmup));
    MPI_Barrier(MPI_COMM_WORLD);
    ta = MPI_Wtime();
    run_generations(&b, (int)(4 * periods));
    tb = MPI_Wtime();
    mine = tb - ta;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    check(&b, (int)((warmup + periods) % n), &local[0], &local[1]);
    MPI_Reduce(local, total, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    ok = 1;
    if (rank == 0) {
        ok = total[0] == 0 && total[1] == 5 * (n / 8) * (n / 8);
        printf("live cells: %lld\n", total[1]);
        printf("verification: every glider moved %ld cells, nothing else changed: %s\n",
               (warmup + periods) % n, ok ? "passed" : "FAILED");
        fprintf(stderr, "c-warmup: timed call %.6f s\n", slowest);
    }
    free(b.cur);
    free(b.next);
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "c-warmup: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return ok ? 0 : 1;
}
