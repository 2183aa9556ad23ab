/* The task-farm marker (docs/taskfarm.md): MPIETE_TASK(i, j) { body } marks one task and its
 * integer parameters; outside mpiete's probes it expands to nothing. Self-contained C: copy it
 * into a project, or add mpiete's include directory, so the normal build compiles unchanged. */
#ifndef MPIETE_TASK_H
#define MPIETE_TASK_H

/* Seed 000's subset I_s = I_s,1 x ... x I_s,N with I_s,k every c-th value: a task runs in the
 * timing probe when each of its parameters is a multiple of Stride (Stride <= 1: every task).
 * One definition, used by the runtime and by the estimator's tests. */
static inline int mpiete_task_in_subset(int NParams, const long long *Params, long long Stride) {
  int K;
  if (Stride <= 1)
    return 1;
  for (K = 0; K < NParams; K++)
    if (Params[K] % Stride != 0)
      return 0;
  return 1;
}

/* mpiete-cc's probes include mpiete/instrument.h first, which defines MPIETE_PROBE and
 * declares the hooks: the body runs once when mpiete_task_begin says so (the timing probe may
 * skip it, --tasks-subset) and mpiete_task_end stops the task's clock. A `break` in the body
 * leaves the task, not an enclosing loop: keep the body free of break, return, goto and MPI. */
#if defined(MPIETE_PROBE)
#define MPIETE_TASK(...)                                                                           \
  for (int mpiete_task_run_ =                                                                      \
           mpiete_task_begin((int)(sizeof((long long[]){__VA_ARGS__}) / sizeof(long long)),        \
                             (const long long[]){__VA_ARGS__});                                    \
       mpiete_task_run_; mpiete_task_run_ = mpiete_task_end())
#else
#define MPIETE_TASK(...)
#endif

#endif /* MPIETE_TASK_H */
