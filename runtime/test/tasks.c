/* The task-farm hooks by hand, as mpiete-cc's probes call them (mpiete/task.h), on one rank of
 * the timing variant with MPIETE_TASK_STRIDE=3 and MPIETE_TASK_GRID=0:9:1: the subset is seed
 * 000's {0, 3, 6, 9}, a value off the grid runs, and MPIETE_TASK_MESSAGE reads the parameters
 * from buffers of several integer types. After finalize, rank0.tasks is checked line by line. */
#include "mpiete/instrument.h"
#include "mpiete/task.h"

#include <stdio.h>
#include <stdlib.h>

#define U 0x00abc124u
#define SITE(i) MPIETE_ID(U, i)

#include "check_count.h"

int main(int argc, char **argv) {
  int ran = 0;
  signed char sc[4] = {0};
  unsigned short us[3] = {0};
  long long ll[2] = {0};
  mpiete_init(SITE(1), &argc, &argv);
  MPIETE_TASK_MESSAGE(sc, 2);
  for (int v = 0; v < 10; ++v) {
    sc[2] = (signed char)v;
    MPIETE_TASK_FROM_MESSAGE { ++ran; }
  }
  CHECK(ran == 4, "%d of 10 tasks ran, seed 000's subset {0, 3, 6, 9} is 4", ran);
  sc[2] = -5; /* off the grid: measured, not guessed */
  MPIETE_TASK_FROM_MESSAGE { ++ran; }
  MPIETE_TASK_MESSAGE(us, 1);
  const unsigned short UsValues[] = {9, 65535, 4};
  for (int k = 0; k < 3; ++k) {
    us[1] = UsValues[k];
    MPIETE_TASK_FROM_MESSAGE { ++ran; }
  }
  MPIETE_TASK_MESSAGE(ll, 1);
  ll[1] = -7;
  MPIETE_TASK_FROM_MESSAGE { ++ran; }
  MPIETE_TASK(6) { ++ran; }
  CHECK(ran == 9, "%d tasks ran, 9 expected", ran);
  mpiete_finalize(SITE(2));

  /* `1 P NS`: NS -1 for a skipped task, >= 0 for a timed one. */
  const long long Params[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -5, 9, 65535, 4, -7, 6};
  const int Timed[] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1};
  const int N = (int)(sizeof Params / sizeof Params[0]);
  char path[4096];
  snprintf(path, sizeof path, "%s/rank0.tasks", getenv("MPIETE_OUTDIR"));
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "no %s", path);
  char line[256];
  int n = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    int dims = 0;
    long long p = 0, ns = 0;
    if (line[0] == '#')
      continue;
    CHECK(sscanf(line, "%d %lld %lld", &dims, &p, &ns) == 3 && dims == 1, "line '%s'", line);
    if (n < N) {
      CHECK(p == Params[n], "task %d: parameter %lld, expected %lld", n, p, Params[n]);
      CHECK((ns >= 0) == Timed[n], "task %d (%lld): %s", n, p, Timed[n] ? "not timed" : "timed");
    }
    ++n;
  }
  CHECK(n == N, "%d task lines, expected %d", n, N);
  if (f != NULL)
    fclose(f);
  return failures != 0;
}
