/* Bad instrumentation must stop the job with `mpiete: rank N: error: ...` on stderr (the test
 * passes on that message; see CMakeLists.txt). argv[1] picks the mistake. */
#include "test_util.h"

int main(int argc, char **argv) {
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  const char *what = argc > 1 ? argv[1] : "";
  if (t_rank == 0) {
    if (strcmp(what, "kind-conflict") == 0) {
      /* One id used as a compute block and as a collective's site. */
      T_BLOCK_BEGIN(T_ID(10));
      T_BLOCK_END(T_ID(10));
      mpiete_barrier(T_ID(10), MPI_COMM_SELF);
    } else if (strcmp(what, "end-mismatch") == 0) {
#ifdef MPIETE_TEST_TIMING
      mpiete_tm_begin(T_ID(20));
      mpiete_tm_end(T_ID(21));
#endif
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  mpiete_finalize(T_ID(2));
  /* Not reached on rank 0 when the mistake was caught. */
  return t_rank == 0 ? 3 : 0;
}
