// The block hooks an instrumented Fortran source calls: `call mpiete_tr_block(UNIT, IDX)` and
// the rest of instrument.h's hooks, with the block id split into the unit id (a default
// INTEGER holding the unsigned 32-bit id) and the index. Each variant library compiles this
// file with its own macro (MPIETE_VARIANT_TRACE / MPIETE_VARIANT_TIMING) and gets only its own
// hooks: the other variant's C hooks are not in that library.
//
// External names: gfortran's `hook_` and `hook__` (-fsecond-underscore); the plain name is the
// C hook itself.
#include "Fortran.h"

using mpiete::fortran::site;

namespace {

/// A loop's trip count from a Fortran INTEGER(8) (a zero-trip DO loop has none).
unsigned long long trips(const int64_t *Trips) {
  return *Trips > 0 ? static_cast<unsigned long long>(*Trips) : 0;
}

} // namespace

#define MPIETE_FORTRAN_HOOK(Name, ...)                                                             \
  extern "C" void Name##_(const MPI_Fint *unit, const MPI_Fint *idx __VA_OPT__(, ) __VA_ARGS__);   \
  extern "C" decltype(Name##_) Name##__ __attribute__((alias(#Name "_")));                         \
  extern "C" void Name##_(const MPI_Fint *unit, const MPI_Fint *idx __VA_OPT__(, ) __VA_ARGS__)

// Both variants: the loop hooks of segment mode.
MPIETE_FORTRAN_HOOK(mpiete_iter) { mpiete_iter(site(unit, idx)); }

MPIETE_FORTRAN_HOOK(mpiete_loop_exit) { mpiete_loop_exit(site(unit, idx)); }

// `IF (MPIETE_ITER_CAPPED(UNIT, IDX) .NE. 0) EXIT`: the iteration hook of a loop the timing
// probe's cap may leave (a default INTEGER function; the trace variant's always returns 0).
extern "C" MPI_Fint mpiete_iter_capped_(const MPI_Fint *unit, const MPI_Fint *idx) {
  return mpiete_iter_capped(site(unit, idx));
}
extern "C" decltype(mpiete_iter_capped_) mpiete_iter_capped__
    __attribute__((alias("mpiete_iter_capped_")));

// `IF (MPIETE_ITER_OPAQUE_CAPPED(UNIT, IDX) .NE. 0) EXIT` and `CALL MPIETE_LOOP_EXIT_OPAQUE`:
// a loop whose MPI calls are in subroutines its unit cannot see (both variants; the trace
// variant's do nothing).
extern "C" MPI_Fint mpiete_iter_opaque_capped_(const MPI_Fint *unit, const MPI_Fint *idx) {
  return mpiete_iter_opaque_capped(site(unit, idx));
}
extern "C" decltype(mpiete_iter_opaque_capped_) mpiete_iter_opaque_capped__
    __attribute__((alias("mpiete_iter_opaque_capped_")));

MPIETE_FORTRAN_HOOK(mpiete_loop_exit_opaque) { mpiete_loop_exit_opaque(site(unit, idx)); }

// `IF (MPIETE_SAMPLE_SKIP(UNIT, IDX) .NE. 0) CYCLE` and `CALL MPIETE_SAMPLE_EXIT(UNIT, IDX)`: a
// loop of pure computation probe-compute --sample may sample (both variants; the trace
// variant's run every iteration).
extern "C" MPI_Fint mpiete_sample_skip_(const MPI_Fint *unit, const MPI_Fint *idx) {
  return mpiete_sample_skip(site(unit, idx));
}
extern "C" decltype(mpiete_sample_skip_) mpiete_sample_skip__
    __attribute__((alias("mpiete_sample_skip_")));

MPIETE_FORTRAN_HOOK(mpiete_sample_exit) { mpiete_sample_exit(site(unit, idx)); }

// `IF (MPIETE_TASK_BEGIN(N, (/INT(p1, 8), .., INT(pN, 8)/)) .NE. 0) THEN` .. `CALL
// MPIETE_TASK_END()`: the task marker `!$mpiete task(...)` .. `!$mpiete end task` (both
// variants; docs/taskfarm.md), the C marker's hooks with the parameters as INTEGER(8).
extern "C" MPI_Fint mpiete_task_begin_(const MPI_Fint *n, const int64_t *params) {
  static_assert(sizeof(int64_t) == sizeof(long long));
  return mpiete_task_begin(static_cast<int>(*n), reinterpret_cast<const long long *>(params));
}
extern "C" decltype(mpiete_task_begin_) mpiete_task_begin__
    __attribute__((alias("mpiete_task_begin_")));

extern "C" void mpiete_task_end_() { (void)mpiete_task_end(); }
extern "C" decltype(mpiete_task_end_) mpiete_task_end__ __attribute__((alias("mpiete_task_end_")));

#if defined(MPIETE_VARIANT_TRACE)

MPIETE_FORTRAN_HOOK(mpiete_tr_block) { mpiete_tr_block(site(unit, idx)); }

MPIETE_FORTRAN_HOOK(mpiete_tr_loop, const int64_t *count) {
  mpiete_tr_loop(site(unit, idx), trips(count));
}

#elif defined(MPIETE_VARIANT_TIMING)

MPIETE_FORTRAN_HOOK(mpiete_tm_begin) { mpiete_tm_begin(site(unit, idx)); }

MPIETE_FORTRAN_HOOK(mpiete_tm_end) { mpiete_tm_end(site(unit, idx)); }

MPIETE_FORTRAN_HOOK(mpiete_tm_loop_end, const int64_t *count) {
  mpiete_tm_loop_end(site(unit, idx), trips(count));
}

#else
#error "compile FortranHooks.cpp with MPIETE_VARIANT_TRACE or MPIETE_VARIANT_TIMING"
#endif
