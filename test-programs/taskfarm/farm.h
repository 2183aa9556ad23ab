/* farm.h: shared declarations for the taskfarm test program (master/worker task farm). */
#ifndef FARM_H
#define FARM_H

#include <mpi.h>

/* Message tags of the farm protocol. */
enum {
    TAG_TASK = 1,   /* master -> worker: {id, size, seed} */
    TAG_STOP = 2,   /* master -> worker: empty message, worker leaves its loop */
    TAG_RESULT = 3, /* worker -> master: {id, values...} (1 to MAX_VALUES values) */
    TAG_EMPTY = 4   /* worker -> master: {id}, task produced no values */
};

#define MAX_VALUES 5

typedef struct {
    long long id, size, seed;
} task_t;

/* What the master keeps per task (filled in by task id, so arrival order does not matter). */
typedef struct {
    int nvalues;
    unsigned long long hash;
} result_t;

/* task.c */
void make_task(task_t *t, int id, long base);
int task_compute(const task_t *t, unsigned long long *values);
unsigned long long hash_values(const unsigned long long *v, int n);

/* master.c */
int run_master(int ntasks, long base, result_t *results, MPI_Comm comm);

/* worker.c */
int run_worker(MPI_Comm comm);

#endif
