/* The runtime ABI that instrumented C sources call: block hooks and MPI entry points. */
#ifndef MPIETE_INSTRUMENT_H
#define MPIETE_INSTRUMENT_H

/* Only mpi.h is included (it pulls in nothing but stddef.h), so feature-test macros the user
 * defines after this prelude still take effect for the system headers. */
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A block id: the translation unit's 32-bit id in the high half, the block's index in the
 * unit in the low half (docs/runtime-abi.md). */
typedef unsigned long long mpiete_site_t;
#define MPIETE_ID(unit, index) ((((mpiete_site_t)(unit)) << 32) | (mpiete_site_t)(index))

/* Trace variant (libmpiete-trace): the program base data. */
void mpiete_tr_block(mpiete_site_t id);                          /* a compute block starts */
void mpiete_tr_loop(mpiete_site_t id, unsigned long long trips); /* a loop timed whole ended */

/* Timing variant (libmpiete-timing): the compute base data. */
void mpiete_tm_begin(mpiete_site_t id); /* block or whole loop starts */
void mpiete_tm_end(mpiete_site_t id);   /* compute block ends */
void mpiete_tm_loop_end(mpiete_site_t id, unsigned long long trips); /* whole loop ends */

/* Both variants, segment mode: at the start of every iteration body of a loop that contains MPI
 * calls, and after such a loop's normal exit (break/return/goto exits need no hook). `loop` is
 * the loop's site id. The timing variant ignores them; the trace variant compresses
 * iterations whose records repeat the previous iteration's (docs/trace-format.md). */
void mpiete_iter(mpiete_site_t loop);
void mpiete_loop_exit(mpiete_site_t loop);
/* mpiete_iter, and nonzero when the rest of the loop is to be skipped: the timing variant under
 * probe-compute's cap (docs/probes.md, "Capped loops"); the trace variant always returns 0.
 * Instrumented C calls it through this macro, which stands where mpiete_iter is emitted (the
 * top of the loop's own body, so `break` leaves that loop). */
int mpiete_iter_capped(mpiete_site_t loop);
/* The same hooks on a loop with no MPI call its unit can see but calls into code it cannot
 * (another unit's procedures, calls through pointers): only the timing probe's cap uses them,
 * once the loop's iterations make MPI calls at run time; the trace variants ignore them. */
int mpiete_iter_opaque_capped(mpiete_site_t loop);
void mpiete_loop_exit_opaque(mpiete_site_t loop);
/* The hooks of a loop of pure computation (no MPI call, no call the unit cannot see; its body
 * holds another loop): the timing variant under probe-compute --sample runs some iterations,
 * times them and skips the rest, and adds the skipped iterations' estimated time to the running
 * segment at the exit hook. skip returns MPIETE_SAMPLE_SKIP_IT (the instrumented code continues
 * with the next iteration), MPIETE_SAMPLE_RUN (run this one, ask again at the next) or
 * MPIETE_SAMPLE_RUN_REST (run this one and the rest of the entry without asking: the entry runs
 * whole, e.g. its iterations are too short to time). Without --sample, and in the trace
 * variant, skip returns MPIETE_SAMPLE_RUN_REST (docs/probes.md, "Sampled loops"). */
#define MPIETE_SAMPLE_RUN_REST 0
#define MPIETE_SAMPLE_SKIP_IT 1
#define MPIETE_SAMPLE_RUN 2
int mpiete_sample_skip(mpiete_site_t loop);
void mpiete_sample_exit(mpiete_site_t loop);
/* Nonzero in element 0 while probe-compute samples (the runtime sets it before main). The hook
 * calls mpiete_sample_skip only then, so the call is off the iterations' path otherwise: a call
 * on every iteration's path made compilers keep an inner loop's reduction in memory instead of
 * a register (docs/probes.md, "Sampled loops"). Fortran's COMMON /MPIETE_SMPL/ is this array. */
extern int mpiete_smpl_[];
#if !defined(__cplusplus)
/* A sampled loop's entry (C): the instrumented code opens the block around the loop with
 * MPIETE_SAMPLE_ENTRY, a local that starts at the flag above and holds whether to ask the
 * runtime at the next iteration; an entry that runs whole (MPIETE_SAMPLE_RUN_REST) then makes
 * no call per iteration. */
#define MPIETE_SAMPLE_ENTRY int mpiete_smpl_e = mpiete_smpl_[0];
#if defined(__GNUC__)
#define MPIETE_SAMPLE_ASK_ (__builtin_expect(mpiete_smpl_e != 0, 0))
#else
#define MPIETE_SAMPLE_ASK_ (mpiete_smpl_e != 0)
#endif
#define mpiete_sample(loop)                                                                        \
  if (MPIETE_SAMPLE_ASK_ && (mpiete_smpl_e = mpiete_sample_skip(loop)) == MPIETE_SAMPLE_SKIP_IT)   \
    continue;                                                                                      \
  else                                                                                             \
    ((void)0)
#define mpiete_iter(loop)                                                                          \
  if (mpiete_iter_capped(loop))                                                                    \
    break;                                                                                         \
  else                                                                                             \
    ((void)0)
#define mpiete_iter_opaque(loop)                                                                   \
  if (mpiete_iter_opaque_capped(loop))                                                             \
    break;                                                                                         \
  else                                                                                             \
    ((void)0)
#endif

/* Both variants: one task of a task farm, marked by mpiete/task.h's MPIETE_TASK(params...)
 * (docs/taskfarm.md). begin returns nonzero when the body is to run (the timing probe skips
 * the tasks outside --tasks-subset's subset and records the others' times); end returns 0. */
#define MPIETE_PROBE 1
int mpiete_task_begin(int nparams, const long long *params);
int mpiete_task_end(void);
/* MPIETE_TASK_MESSAGE / MPIETE_TASK_FROM_MESSAGE: the parameters are elements of a declared
 * work-message buffer of integers (elemsize bytes, kind 0 unsigned, 1 signed, 2 floating); the
 * buffer is not const: the receive fills it after the declaration (gcc would warn otherwise). */
void mpiete_task_message(void *buffer, int elemsize, int kind, int nparams, const int *elements);
int mpiete_task_begin_message(void);

/* MPI entry points: `MPI_X(args)` becomes `mpiete_x(site, args)` in both variants. */
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) int RuntimeName Params;
#include "mpiete/routines.def"

#ifdef __cplusplus
}
#endif

#endif /* MPIETE_INSTRUMENT_H */
