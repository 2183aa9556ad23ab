/* Compute block and loop hooks: counts and trips in both variants; in the timing variant also
 * exclusive time (nested blocks, recursion, an MPI call inside a block). Also writes its output
 * into a directory that does not exist yet (created by the runtime). */
#include "test_util.h"

#include <sys/stat.h>
#include <unistd.h>

/* A function whose blocks are instrumented, called from inside another block. */
static void helper(int depth) {
  T_BLOCK_BEGIN(T_ID(40));
  T_EXPECT_BLOCK(T_ID(40));
  if (depth > 0)
    helper(depth - 1);
  T_BLOCK_END(T_ID(40));
}

int main(int argc, char **argv) {
  T_BLOCK_BEGIN(T_ID(5)); /* before MPI_Init: counted too */
  T_BLOCK_END(T_ID(5));
  CHECK_OK(mpiete_init(T_ID(1), &argc, &argv));
  t_started();
  T_EXPECT_BLOCK(T_ID(5));
  T_EXPECT(T_ID(1), "init");

  /* A block run 7 times. */
  for (int i = 0; i < 7; ++i) {
    T_BLOCK_BEGIN(T_ID(10));
    T_BLOCK_END(T_ID(10));
    T_EXPECT_BLOCK(T_ID(10));
  }
  /* A loop run whole twice: 3 and 4 trips. */
  for (int rep = 0; rep < 2; ++rep) {
    T_LOOP_BEGIN(T_ID(11));
    volatile int sink = 0;
    for (int i = 0; i < 3 + rep; ++i)
      sink += i;
    T_LOOP_END(T_ID(11), (unsigned long long)(3 + rep));
    T_EXPECT_LOOP(T_ID(11), 3 + rep);
  }
  /* Only rank 0 runs this one: ids a rank never ran are not in its file. */
  if (t_rank == 0) {
    T_BLOCK_BEGIN(T_ID(12));
    T_BLOCK_END(T_ID(12));
    T_EXPECT_BLOCK(T_ID(12));
  }
  /* Ids of other units sort by unit first. */
  T_BLOCK_BEGIN(MPIETE_ID(0x10u, 99));
  T_BLOCK_END(MPIETE_ID(0x10u, 99));
  T_EXPECT_BLOCK(MPIETE_ID(0x10u, 99));
  T_BLOCK_BEGIN(MPIETE_ID(0xffffffffu, 0xffffffffu));
  T_BLOCK_END(MPIETE_ID(0xffffffffu, 0xffffffffu));
  T_EXPECT_BLOCK(MPIETE_ID(0xffffffffu, 0xffffffffu));

  /* Nesting, timed: outer 20 ms + 20 ms of its own around an inner block of 60 ms. */
  T_BLOCK_BEGIN(T_ID(20));
  t_sleep_ms(20);
  T_BLOCK_BEGIN(T_ID(21));
  t_sleep_ms(60);
  T_BLOCK_END(T_ID(21));
  t_sleep_ms(20);
  T_BLOCK_END(T_ID(20));
  T_EXPECT_BLOCK(T_ID(20));
  T_EXPECT_BLOCK(T_ID(21));

  /* Recursion: the same block nested 3 deep inside block 30. */
  T_BLOCK_BEGIN(T_ID(30));
  helper(2);
  T_BLOCK_END(T_ID(30));
  T_EXPECT_BLOCK(T_ID(30));

  /* An MPI call inside a block: rank 0 sleeps 100 ms outside any block before the barrier, so
   * the others wait about 100 ms inside the barrier, which is not charged to block 50. */
  if (t_rank == 0)
    t_sleep_ms(100);
  T_BLOCK_BEGIN(T_ID(50));
  CHECK_OK(mpiete_barrier(T_ID(51), MPI_COMM_WORLD));
  T_BLOCK_END(T_ID(50));
  T_EXPECT_BLOCK(T_ID(50));
  T_EXPECT(T_ID(51), "collective");

  /* Write into a fresh nested directory: <outdir>/fresh-<rank 0's pid>/a/b. */
  const char *base = getenv("MPIETE_OUTDIR");
  CHECK(base != NULL, "MPIETE_OUTDIR must be set");
  int token = (int)getpid();
  /* Not instrumented (as from an object not built by mpiete-cc): the runtime's MPI_Bcast still
   * runs it, recorded under the routine's pseudo site in the reserved unit. */
  MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
  T_EXPECT(T_UNINSTRUMENTED(MPI_Bcast), "collective");
  char top[4096], fresh[4096 + 8];
  snprintf(top, sizeof top, "%s/fresh-%d", base, token);
  snprintf(fresh, sizeof fresh, "%s/a/b", top);
  struct stat sb;
  CHECK(stat(top, &sb) != 0, "%s exists already", top);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody has created it yet when everyone checked */
  T_EXPECT(T_UNINSTRUMENTED(MPI_Barrier), "collective");
  setenv("MPIETE_OUTDIR", fresh, 1);

  CHECK_OK(mpiete_finalize(T_ID(2)));
  T_EXPECT(T_ID(2), "finalize");
  t_check_output();

#ifdef MPIETE_TEST_TIMING
  const unsigned long long ms = 1000000ULL;
  fprintf(stderr, "rank %d: outer %llu ns, inner %llu ns, barrier block %llu ns\n", t_rank,
          t_ns(T_ID(20)), t_ns(T_ID(21)), t_ns(T_ID(50)));
  CHECK(t_ns(T_ID(21)) >= 60 * ms && t_ns(T_ID(21)) < 2000 * ms, "inner %llu", t_ns(T_ID(21)));
  /* Exclusive: about 40 ms, less than the inner block's 60 ms; an inclusive time would hold the
   * inner block's too (a bound relative to it, not in ms, so a loaded machine cannot fail it). */
  CHECK(t_ns(T_ID(20)) >= 40 * ms && t_ns(T_ID(20)) < t_ns(T_ID(21)), "outer %llu, inner %llu",
        t_ns(T_ID(20)), t_ns(T_ID(21)));
  CHECK(t_ns(T_ID(50)) < 50 * ms, "barrier charged to the block: %llu", t_ns(T_ID(50)));
  CHECK(t_ns(T_ID(10)) < 50 * ms, "empty blocks took %llu", t_ns(T_ID(10)));
#endif

  /* Clean up the fresh directory (the last rank to get here removes the directories). The
   * trace variant's file went to the directory set before MPI_Init, so it made none here. */
  char path[4400];
#ifdef MPIETE_TEST_TIMING
  snprintf(path, sizeof path, "%s/rank%d.%s", fresh, t_rank, T_SUFFIX);
  CHECK(unlink(path) == 0, "cannot remove %s", path);
#endif
  rmdir(fresh);
  snprintf(path, sizeof path, "%s/a", top);
  rmdir(path);
  rmdir(top);
  return 0;
}
