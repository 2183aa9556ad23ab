/* worker.c: the worker side of the taskfarm test program (loops on tasks until the stop message). */
#include <stdio.h>
#include "farm.h"

/* Returns the number of tasks this worker completed, or -1 on a protocol error. */
int run_worker(MPI_Comm comm)
{
    long long msg[3];
    unsigned long long out[MAX_VALUES + 1];
    int count, nv, done = 0, ntasks = 0, rc;
    task_t t;
    MPI_Status st;

    do {
        if (MPI_Recv(msg, 3, MPI_LONG_LONG, 0, MPI_ANY_TAG, comm, &st) != MPI_SUCCESS)
            return -1;
        MPI_Get_count(&st, MPI_LONG_LONG, &count);
        switch (st.MPI_TAG) {
        case TAG_STOP:
            done = 1;
            break;
        case TAG_TASK:
            if (count != 3)
                return -1;
            t.id = msg[0];
            t.size = msg[1];
            t.seed = msg[2];
            nv = task_compute(&t, out + 1);
            out[0] = (unsigned long long)t.id;
            rc = MPI_Send(out, nv + 1, MPI_UNSIGNED_LONG_LONG, 0, nv > 0 ? TAG_RESULT : TAG_EMPTY, comm);
            if (rc != MPI_SUCCESS)
                return -1;
            ntasks++;
            break;
        default:
            fprintf(stderr, "taskfarm: worker got unexpected tag %d\n", st.MPI_TAG);
            return -1;
        }
    } while (!done);
    return ntasks;
}
