/* farm-2d: a master/worker farm over a grid of Mandelbrot tiles (seed 000's example): task
 * (i, j) counts the iterations of one tile, so its cost follows the set; MPIETE_TASK(i, j).
 * Built with -DFARM_MESSAGE (test-programs/farm-2d-message): the work message is (task number,
 * i, j) and the task's parameters are declared as its elements 1 and 2 (MPIETE_TASK_MESSAGE). */
/*
 * Usage:  mpirun -np P ./farm-2d [ni] [nj] [tile] [maxiter]     defaults 32 32 16 2000
 * The plane [-2, 0.5] x [-1.25, 1.25] is cut into ni x nj tiles of tile x tile points. Rank 0
 * hands tiles out row by row (i, then j) to whichever worker returns first (MPI_ANY_SOURCE);
 * one rank alone does every tile. TP_TIMING=1 prints rank 0's run time on stderr.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiete/task.h"

#define TAG_WORK 1
#define TAG_RESULT 2
#define TAG_STOP 3

#ifdef FARM_MESSAGE
#define MSG_LEN 3 /* task number, i, j */
#else
#define MSG_LEN 2 /* i, j */
#endif

static int NI, NJ, TILE, MAXITER;

/* The work message of task number Next, and its tile indices. */
static void fill(int *msg, int next)
{
#ifdef FARM_MESSAGE
    msg[0] = next;
#endif
    msg[MSG_LEN - 2] = next / NJ;
    msg[MSG_LEN - 1] = next % NJ;
}

static double run_task(int i, int j)
{
    long total = 0;
    int a, b, k;
#ifdef FARM_MESSAGE
    MPIETE_TASK_FROM_MESSAGE {
#else
    MPIETE_TASK(i, j) {
#endif
        for (a = 0; a < TILE; a++)
            for (b = 0; b < TILE; b++) {
                double cr = -2.0 + 2.5 * ((double)i * TILE + a) / ((double)NI * TILE);
                double ci = -1.25 + 2.5 * ((double)j * TILE + b) / ((double)NJ * TILE);
                double zr = 0.0, zi = 0.0, t;
                for (k = 0; k < MAXITER && zr * zr + zi * zi <= 4.0; k++) {
                    t = zr * zr - zi * zi + cr;
                    zi = 2.0 * zr * zi + ci;
                    zr = t;
                }
                total += k;
            }
    }
    return (double)total;
}

static void master(int size, double *results)
{
    int next = 0, n = NI * NJ, outstanding = 0, w, msg[MSG_LEN];
    double res[2];
    MPI_Status st;

    if (size == 1) {
#ifdef FARM_MESSAGE
        MPIETE_TASK_MESSAGE(msg, 1, 2);
#endif
        for (next = 0; next < n; next++) {
            fill(msg, next);
            results[next] = run_task(msg[MSG_LEN - 2], msg[MSG_LEN - 1]);
        }
        return;
    }
    for (w = 1; w < size; w++) {
        if (next < n) {
            fill(msg, next++);
            MPI_Send(msg, MSG_LEN, MPI_INT, w, TAG_WORK, MPI_COMM_WORLD);
            outstanding++;
        } else {
            MPI_Send(msg, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    while (outstanding > 0) {
        MPI_Recv(res, 2, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        outstanding--;
        results[(int)res[0]] = res[1];
        if (next < n) {
            fill(msg, next++);
            MPI_Send(msg, MSG_LEN, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
            outstanding++;
        } else {
            MPI_Send(msg, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
    }
}

static int worker(void)
{
    int msg[MSG_LEN], done = 0, i, j;
    double res[2];
    MPI_Status st;

#ifdef FARM_MESSAGE
    MPIETE_TASK_MESSAGE(msg, 1, 2); /* the task's parameters: elements 1 and 2 of msg */
#endif
    for (;;) {
        MPI_Recv(msg, MSG_LEN, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return done;
        i = msg[MSG_LEN - 2];
        j = msg[MSG_LEN - 1];
        res[0] = i * NJ + j;
        res[1] = run_task(i, j);
        MPI_Send(res, 2, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        done++;
    }
}

int main(int argc, char **argv)
{
    int rank, size, i, done = 0, total = 0;
    double *results = NULL, sum = 0.0, t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();
    NI = argc > 1 ? atoi(argv[1]) : 32;
    NJ = argc > 2 ? atoi(argv[2]) : 32;
    TILE = argc > 3 ? atoi(argv[3]) : 16;
    MAXITER = argc > 4 ? atoi(argv[4]) : 2000;
    if (NI < 1 || NJ < 1 || TILE < 1 || MAXITER < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: farm-2d [ni] [nj] [tile] [maxiter] (all >= 1)\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        results = calloc((size_t)NI * NJ, sizeof(double));
        if (!results)
            MPI_Abort(MPI_COMM_WORLD, 1);
        master(size, results);
        done = size == 1 ? NI * NJ : 0;
    } else {
        done = worker();
    }
    MPI_Reduce(&done, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < NI * NJ; i++)
            sum += results[i];
        printf("farm-2d: ranks=%d tiles=%dx%d tile=%d maxiter=%d\n", size, NI, NJ, TILE, MAXITER);
        printf("tasks done: %d of %d\n", total, NI * NJ);
        printf("iterations: %.0f\n", sum);
        free(results);
        if (getenv("TP_TIMING"))
            fprintf(stderr, "farm-2d: elapsed %.6f s\n", MPI_Wtime() - t0);
    }
    MPI_Finalize();
    return 0;
}
