/* Segment mode, by hand as an instrumented time-step loop calls the ABI: per step a sendrecv
 * around a ring and an allreduce, the loop hooks around them (argv[1] steps; argv[2] "plain"
 * leaves the hooks out).
 *   trace variant: trace_check segments compares 10 and 1000 steps and the uncompressed run;
 *   timing variant: after finalize, the segment lines of rank<N>.timing are checked exactly
 *   (executions per segment; a series where the steps' work differs). */
#include "mpiete/instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define U 0x00abc123u
#define SITE(i) MPIETE_ID(U, i)

#include "check_count.h"

#ifdef MPIETE_TEST_TIMING
/* Busy work of about Us microseconds (a sleep would do, but computation is what is timed). */
static void spin(long us) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* The `segment FROM TO N ...` line's N, or 0; *series: a series line follows it. */
static unsigned long long executions(const char *path, const char *from, const char *to,
                                     int *series) {
  FILE *f = fopen(path, "r");
  static char line[1 << 16];
  char a[32], b[32];
  unsigned long long n = 0, found = 0;
  int partition = 0;
  *series = 0;
  CHECK(f != NULL, "cannot open %s", path);
  if (f == NULL)
    return 0;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strcmp(line, "# partition segments\n") == 0)
      partition = 1;
    if (sscanf(line, "segment %31s %31s %llu", a, b, &n) == 3 && strcmp(a, from) == 0 &&
        strcmp(b, to) == 0)
      found = n;
    else if (found != 0 && sscanf(line, "series %31s %31s", a, b) == 2 && strcmp(a, from) == 0 &&
             strcmp(b, to) == 0)
      *series = 1;
  }
  fclose(f);
  CHECK(partition, "%s: no '# partition segments' line", path);
  return found;
}
#endif

int main(int argc, char **argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 10;
  const int hooks = !(argc > 2 && strcmp(argv[2], "plain") == 0);
  int rank, size;
  mpiete_init(SITE(1), &argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double x = rank, sum = 0;
  for (int t = 0; t < steps; ++t) {
    if (hooks)
      mpiete_iter(SITE(100));
    double y = 0;
    mpiete_sendrecv(SITE(10), &x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &y, 1, MPI_DOUBLE,
                    (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#ifdef MPIETE_TEST_TIMING
    spin(t % 2 == 0 ? 2000 : 200); /* the segment 10 -> 20 alternates */
#endif
    mpiete_allreduce(SITE(20), &y, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    x = sum / size;
  }
  if (hooks)
    mpiete_loop_exit(SITE(100));
  mpiete_finalize(SITE(2));
  /* Every rank ends with the mean of the ranks: the program computes what it should. */
  CHECK(x == (size - 1) / 2.0, "x = %g", x);

#ifdef MPIETE_TEST_TIMING
  const char *dir = getenv("MPIETE_OUTDIR");
  char path[4096];
  int series = 0;
  snprintf(path, sizeof path, "%s/rank%d.timing", dir, rank);
  CHECK(executions(path, "ffffffff:4294967281", "00abc123:1", &series) == 1, "start -> init");
  CHECK(executions(path, "00abc123:1", "00abc123:10", &series) == 1, "init -> sendrecv");
  CHECK(executions(path, "00abc123:10", "00abc123:20", &series) == (unsigned long long)steps,
        "sendrecv -> allreduce");
  CHECK(series, "no series for the alternating segment");
  CHECK(executions(path, "00abc123:20", "00abc123:10", &series) == (unsigned long long)steps - 1,
        "allreduce -> sendrecv");
  CHECK(executions(path, "00abc123:20", "00abc123:2", &series) == 1, "allreduce -> finalize");
#endif
  return failures != 0;
}
