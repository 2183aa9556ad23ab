/* The task-farm marker (docs/taskfarm.md): MPIETE_TASK(i, j) { body } marks one task and its
 * integer parameters; outside mpiete's probes it expands to nothing. Self-contained C: copy it
 * into a project, or add mpiete's include directory, so the normal build compiles unchanged. */
#ifndef MPIETE_TASK_H
#define MPIETE_TASK_H

/* Seed 000's subset I_s = I_s,1 x ... x I_s,N with I_s,k every c-th value: a task runs in the
 * timing probe when each of its parameters is a multiple of Stride (Stride <= 1: every task).
 * The rule used when the task set is not known (the trace probe, which finds it): it leaves
 * out an axis's last value unless that is a multiple of Stride. One definition, used by the
 * runtime and by the estimator's tests. */
static inline int mpiete_task_in_subset(int NParams, const long long *Params, long long Stride) {
  int K;
  if (Stride <= 1)
    return 1;
  for (K = 0; K < NParams; K++)
    if (Params[K] % Stride != 0)
      return 0;
  return 1;
}

/* The trace probe's shape (probe-program --task-shape C): with Centred 0 the multiples of C
 * (mpiete_task_in_subset); with Centred 1 the body-centred lattice of stride C, the tasks whose
 * every parameter is a multiple of C or whose every parameter is C / 2 more than one (C >= 2):
 * twice the tasks, 2 / C^N of them, and no point of the plane more than C / 2 from a sample
 * along every axis at once (in one parameter: the multiples of C / 2 for an even C). */
static inline int mpiete_task_in_shape(int NParams, const long long *Params, long long Stride,
                                       int Centred) {
  int K;
  if (mpiete_task_in_subset(NParams, Params, Stride))
    return 1;
  if (!Centred || Stride < 2)
    return 0;
  for (K = 0; K < NParams; K++)
    if (((Params[K] % Stride) + Stride) % Stride != Stride / 2)
      return 0;
  return 1;
}

/* The k-th of M values spread evenly over an axis of N values (index 0 .. N-1), rounded to the
 * nearest (halves up): index 0 for k = 0 and N - 1 for k = M - 1. */
static inline long long mpiete_task_axis_pick(long long K, long long M, long long N) {
  return M < 2 ? 0 : (2 * K * (N - 1) + (M - 1)) / (2 * (M - 1));
}

/* Seed 000's subset when the axis's values First, First + Step, .., Last are known (the grid
 * probe-program finds, probe-compute --tasks-grid): M = max(2, ceil(N / Stride)) values (at
 * most N) spread evenly from the first to the last, both ends included as in the seed's
 * figure 1 ({1, 4, 7, 10} of 1..10), so no task lies past the last measured value. Every > 1
 * keeps every Every-th of those M (k % Every == 0): a machine probed only for its speed ratio
 * r_s measures a subset of the reference's subset. A value not on the axis runs (it is
 * measured, not guessed). */
static inline int mpiete_task_on_axis(long long First, long long Last, long long Step, long long P,
                                      long long Stride, long long Every) {
  long long N, M, I, K;
  if (Step < 1 || Last < First || P < First || P > Last || (P - First) % Step != 0)
    return 1;
  N = (Last - First) / Step + 1;
  I = (P - First) / Step;
  M = Stride <= 1 ? N : (N + Stride - 1) / Stride;
  M = M < 2 ? 2 : M;
  M = M > N ? N : M;
  if (M < 2)
    return 1;
  /* The pick nearest I is K = I (M - 1) / (N - 1) or the next one. */
  for (K = I * (M - 1) / (N - 1); K <= I * (M - 1) / (N - 1) + 1 && K < M; K++)
    if (mpiete_task_axis_pick(K, M, N) == I)
      return Every <= 1 || K % Every == 0;
  return 0;
}

/* mpiete_task_on_axis along every parameter; Axes holds First, Last, Step per parameter. */
static inline int mpiete_task_in_grid_subset(int NParams, const long long *Params,
                                             const long long *Axes, long long Stride,
                                             long long Every) {
  int K;
  for (K = 0; K < NParams; K++)
    if (!mpiete_task_on_axis(Axes[3 * K], Axes[3 * K + 1], Axes[3 * K + 2], Params[K], Stride,
                             Every))
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
/* Parameters read from the work message, as the user declares them (docs/taskfarm.md):
 * MPIETE_TASK_MESSAGE(msg, 1, 2) says that elements 1 and 2 of the integer array msg (the
 * buffer the worker receives its work into) are the task's parameters; a later
 * MPIETE_TASK_FROM_MESSAGE { body } is MPIETE_TASK(msg[1], msg[2]) with the values msg holds
 * when the task begins. The declaration is made once (before the worker's loop) and stays until
 * the next; the element type comes from the buffer (any integer type, GNU C's __typeof__). */
#define MPIETE_TASK_MESSAGE(Buffer, ...)                                                           \
  mpiete_task_message((void *)(Buffer), (int)sizeof(*(Buffer)),                                    \
                      (__typeof__(*(Buffer)))0.5 != (__typeof__(*(Buffer)))0 ? 2                   \
                      : (__typeof__(*(Buffer)))-1 > (__typeof__(*(Buffer)))0 ? 0                   \
                                                                             : 1,                  \
                      (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)),                           \
                      (const int[]){__VA_ARGS__})
#define MPIETE_TASK_FROM_MESSAGE                                                                   \
  for (int mpiete_task_run_ = mpiete_task_begin_message(); mpiete_task_run_;                       \
       mpiete_task_run_ = mpiete_task_end())
#else
#define MPIETE_TASK(...)
#define MPIETE_TASK_MESSAGE(Buffer, ...) ((void)0)
#define MPIETE_TASK_FROM_MESSAGE
#endif

#endif /* MPIETE_TASK_H */
