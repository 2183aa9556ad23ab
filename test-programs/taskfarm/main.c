/* main.c: driver of the taskfarm test program (master/worker farm with MPI_ANY_SOURCE/MPI_ANY_TAG). */
/*
 * Usage:  mpirun -np N ./taskfarm [ntasks] [base]
 *   ntasks  number of tasks                                   default 60      large 300
 *   base    work per task = base * (1 + (7*id) % 10) steps     default 20000   large 5000000
 *
 * Built with -DTASKFARM_PROBE the master takes each result with MPI_Probe(MPI_ANY_SOURCE)
 * and an MPI_Recv from the source it found, instead of MPI_Irecv(MPI_ANY_SOURCE).
 *
 * Rank 0 is the master, ranks 1..N-1 are workers; with 1 rank the master does
 * all tasks itself (same output).  Results are stored by task id, so the
 * output does not depend on which worker ran which task.  MPI_Reduce of the
 * per-worker task counts checks that every task was done exactly once.
 * Only rank 0 prints.
 * Set TP_TIMING=1 for rank 0's time from MPI_Init to MPI_Finalize on stderr (the
 * interval mpiete estimates).
 */
#include <stdio.h>
#include <stdlib.h>
#include "farm.h"

#define SHOW 8 /* number of individual task results printed */

int main(int argc, char **argv)
{
    int rank, size, ntasks, i, done = 0, total_done = 0, status, worst = 0;
    long base;
    unsigned long long combined = 0;
    long long nvalues = 0;
    result_t *results = NULL;
    double t0, t1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t0 = MPI_Wtime();

    ntasks = argc > 1 ? atoi(argv[1]) : 60;
    base = argc > 2 ? atol(argv[2]) : 20000;
    if (ntasks < 1 || base < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: taskfarm [ntasks>=1] [base>=1]\n");
        MPI_Finalize();
        return 1;
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        results = calloc((size_t)ntasks, sizeof(result_t));
        if (!results)
            MPI_Abort(MPI_COMM_WORLD, 1);
        status = run_master(ntasks, base, results, MPI_COMM_WORLD) == 0 ? 0 : 1;
        done = size == 1 ? ntasks : 0;
    } else {
        done = run_worker(MPI_COMM_WORLD);
        status = done < 0 ? 1 : 0;
        if (done < 0)
            done = 0;
    }
    MPI_Reduce(&done, &total_done, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&status, &worst, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        for (i = 0; i < ntasks; i++) {
            combined = (combined ^ results[i].hash) * 1099511628211ULL;
            nvalues += results[i].nvalues;
        }
        printf("taskfarm: ranks=%d workers=%d ntasks=%d base=%ld\n",
               size, size > 1 ? size - 1 : 0, ntasks, base);
        for (i = 0; i < ntasks && i < SHOW; i++)
            printf("  task %d: %d values, hash %llu\n", i, results[i].nvalues, results[i].hash);
        printf("tasks done: %d of %d\n", total_done, ntasks);
        printf("values returned: %lld\n", nvalues);
        printf("combined hash: %llu\n", combined);
        printf("errors: %s\n", worst ? "yes" : "no");
        free(results);
    }
    t1 = MPI_Wtime();
    if (rank == 0 && getenv("TP_TIMING"))
        fprintf(stderr, "taskfarm: elapsed %.6f s\n", t1 - t0);
    MPI_Finalize();
    return worst;
}
