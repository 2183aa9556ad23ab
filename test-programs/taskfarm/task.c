/* task.c: task generation and the (pure, deterministic) task computation for the taskfarm test program. */
#include "farm.h"

/* Task sizes vary by a factor of up to 10 in a scrambled order. */
void make_task(task_t *t, int id, long base)
{
    t->id = id;
    t->size = base * (1 + (id * 7L) % 10);
    t->seed = 1000003LL * id + 12345;
}

/* Runs the task; writes 0..MAX_VALUES values and returns how many. */
int task_compute(const task_t *t, unsigned long long *values)
{
    unsigned long long x = (unsigned long long)t->seed * 0x9e3779b97f4a7c15ULL + 1;
    unsigned long long acc = 0;
    long long k;
    int nv, i;

    for (k = 0; k < t->size; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        acc += x >> 3;
    }
    nv = (int)(t->id % (MAX_VALUES + 1)); /* every sixth task yields nothing */
    for (i = 0; i < nv; i++)
        values[i] = acc ^ ((unsigned long long)i * 0x100000001b3ULL);
    return nv;
}

unsigned long long hash_values(const unsigned long long *v, int n)
{
    unsigned long long h = 1469598103934665603ULL;
    int i;
    for (i = 0; i < n; i++)
        h = (h ^ v[i]) * 1099511628211ULL;
    return h;
}
