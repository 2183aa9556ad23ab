/* farm-1d: a master/worker farm of N tasks with one parameter; task i costs about
 * base * (1 + 3 sin^2(pi i / N)) steps, marked with MPIETE_TASK(i) (docs/taskfarm.md).
 * Built with -DFARM_SKEWED (test-programs/farm-skewed): most tasks short and a narrow band
 * (about 3% of them, around i = 0.7 N) up to 20 times longer. */
/*
 * Usage:  mpirun -np P ./farm-1d [ntasks] [base]      defaults 256 20000
 *         mpirun -np P ./farm-skewed [ntasks] [base]  defaults 1024 5000
 * Rank 0 is the master (MPI_ANY_SOURCE receives), ranks 1..P-1 the workers; one rank alone
 * does every task itself. Results are stored by task, so the output does not depend on which
 * worker ran which task. TP_TIMING=1 prints rank 0's MPI_Init..MPI_Finalize time on stderr.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiete/task.h"

#ifdef FARM_SKEWED
#define FARM_NAME "farm-skewed"
#define DEFAULT_NTASKS 1024
#define DEFAULT_BASE 5000
#else
#define FARM_NAME "farm-1d"
#define DEFAULT_NTASKS 256
#define DEFAULT_BASE 20000
#endif

#define TAG_WORK 1
#define TAG_RESULT 2
#define TAG_STOP 3

static long steps_of(int i, int n, long base)
{
#ifdef FARM_SKEWED
    double d = ((double)i - 0.7 * (double)n) / (0.015 * (double)n);
    return (long)((double)base * (1.0 + 19.0 * exp(-d * d)));
#else
    double s = sin(3.14159265358979 * (double)i / (double)n);
    return (long)((double)base * (1.0 + 3.0 * s * s));
#endif
}

/* The task: a chain of multiply-adds whose length is the task's cost. */
static double run_task(int i, int n, long base)
{
    double x = 1.0 + (double)i * 1e-3, acc = 0.0;
    long k, steps = 0;
    MPIETE_TASK(i) {
        steps = steps_of(i, n, base);
        for (k = 0; k < steps; k++) {
            x = x * 0.999999 + 1e-6;
            acc += x;
        }
    }
    return acc / (double)(steps > 0 ? steps : 1);
}

static void master(int n, long base, int size, double *results)
{
    int next = 0, outstanding = 0, w, msg[2];
    double res[2];
    MPI_Status st;

    if (size == 1) {
        for (next = 0; next < n; next++)
            results[next] = run_task(next, n, base);
        return;
    }
    for (w = 1; w < size; w++) {
        if (next < n) {
            msg[0] = next++;
            msg[1] = n;
            MPI_Send(msg, 2, MPI_INT, w, TAG_WORK, MPI_COMM_WORLD);
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
            msg[0] = next++;
            msg[1] = n;
            MPI_Send(msg, 2, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
            outstanding++;
        } else {
            MPI_Send(msg, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
    }
}

static int worker(long base)
{
    int msg[2], done = 0;
    double res[2];
    MPI_Status st;

    for (;;) {
        MPI_Recv(msg, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return done;
        res[0] = msg[0];
        res[1] = run_task(msg[0], msg[1], base);
        MPI_Send(res, 2, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        done++;
    }
}

int main(int argc, char **argv)
{
    int rank, size, n, i, done = 0, total = 0;
    long base;
    double *results = NULL, sum = 0.0, t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();
    n = argc > 1 ? atoi(argv[1]) : DEFAULT_NTASKS;
    base = argc > 2 ? atol(argv[2]) : DEFAULT_BASE;
    if (n < 1 || base < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: " FARM_NAME " [ntasks>=1] [base>=1]\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        results = calloc((size_t)n, sizeof(double));
        if (!results)
            MPI_Abort(MPI_COMM_WORLD, 1);
        master(n, base, size, results);
        done = size == 1 ? n : 0;
    } else {
        done = worker(base);
    }
    MPI_Reduce(&done, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < n; i++)
            sum += results[i];
        printf(FARM_NAME ": ranks=%d ntasks=%d base=%ld\n", size, n, base);
        printf("tasks done: %d of %d\n", total, n);
        printf("result sum: %.10e\n", sum);
        free(results);
        if (getenv("TP_TIMING"))
            fprintf(stderr, FARM_NAME ": elapsed %.6f s\n", MPI_Wtime() - t0);
    }
    MPI_Finalize();
    return 0;
}
