/* master.c: the master side of the taskfarm test program (hands out tasks, collects results from any worker). */
#include <stdio.h>
#include <stdlib.h>
#include "farm.h"

static void send_task(int id, long base, int worker, MPI_Comm comm)
{
    task_t t;
    long long msg[3];

    make_task(&t, id, base);
    msg[0] = t.id;
    msg[1] = t.size;
    msg[2] = t.seed;
    MPI_Send(msg, 3, MPI_LONG_LONG, worker, TAG_TASK, comm);
}

/* Serial fallback when there are no workers (1 rank): same results. */
static int run_alone(int ntasks, long base, result_t *results)
{
    unsigned long long values[MAX_VALUES];
    task_t t;
    int id;

    for (id = 0; id < ntasks; id++) {
        make_task(&t, id, base);
        results[id].nvalues = task_compute(&t, values);
        results[id].hash = hash_values(values, results[id].nvalues);
    }
    return 0;
}

/* Returns 0 on success, or the number of protocol errors seen. */
int run_master(int ntasks, long base, result_t *results, MPI_Comm comm)
{
    int size, nworkers, w, next = 0, outstanding = 0, errors = 0, flag, count, id;
    unsigned long long buf[MAX_VALUES + 1];
    long long *first_tasks;
    MPI_Request *reqs, req;
    MPI_Status st;

    MPI_Comm_size(comm, &size);
    nworkers = size - 1;
    if (nworkers == 0)
        return run_alone(ntasks, base, results);

    /* Initial round: one task per worker with non-blocking sends, stop for idle workers. */
    first_tasks = malloc((size_t)nworkers * 3 * sizeof(long long));
    reqs = malloc((size_t)nworkers * sizeof(MPI_Request));
    if (!first_tasks || !reqs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (w = 1; w <= nworkers; w++) {
        long long *msg = first_tasks + 3 * (w - 1);
        if (next < ntasks) {
            task_t t;
            make_task(&t, next++, base);
            msg[0] = t.id;
            msg[1] = t.size;
            msg[2] = t.seed;
            MPI_Isend(msg, 3, MPI_LONG_LONG, w, TAG_TASK, comm, &reqs[w - 1]);
            outstanding++;
        } else {
            MPI_Isend(msg, 0, MPI_LONG_LONG, w, TAG_STOP, comm, &reqs[w - 1]);
        }
    }
    MPI_Waitall(nworkers, reqs, MPI_STATUSES_IGNORE);

    /* Collect a result from whichever worker finishes first and refill it. */
    while (outstanding > 0) {
#ifdef TASKFARM_PROBE
        /* The classic master: probe for whichever result came first, then receive it. */
        (void)req;
        (void)flag;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        MPI_Recv(buf, MAX_VALUES + 1, MPI_UNSIGNED_LONG_LONG, st.MPI_SOURCE, st.MPI_TAG, comm, &st);
#else
        MPI_Irecv(buf, MAX_VALUES + 1, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req);
        MPI_Test(&req, &flag, &st);
        if (!flag)
            MPI_Wait(&req, &st);
#endif
        outstanding--;
        MPI_Get_count(&st, MPI_UNSIGNED_LONG_LONG, &count);
        id = count >= 1 ? (int)buf[0] : -1;
        if (id < 0 || id >= ntasks) {
            errors++;
            continue;
        }
        switch (st.MPI_TAG) {
        case TAG_RESULT:
            results[id].nvalues = count - 1;
            results[id].hash = hash_values(buf + 1, count - 1);
            break;
        case TAG_EMPTY:
            results[id].nvalues = 0;
            results[id].hash = hash_values(buf, 0);
            break;
        default:
            fprintf(stderr, "taskfarm: unexpected tag %d from rank %d\n", st.MPI_TAG, st.MPI_SOURCE);
            errors++;
            break;
        }
        if (next < ntasks) {
            send_task(next++, base, st.MPI_SOURCE, comm);
            outstanding++;
        } else {
            MPI_Ssend(buf, 0, MPI_UNSIGNED_LONG_LONG, st.MPI_SOURCE, TAG_STOP, comm);
        }
    }
    free(first_tasks);
    free(reqs);
    return errors;
}
