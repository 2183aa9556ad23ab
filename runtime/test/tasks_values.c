/* The probe's subset by hand, in both variants (the trace variant's times are the cost
 * surface's shape, docs/taskfarm.md). With MPIETE_TASK_VALUES=0,5,9/1,3 and
 * MPIETE_TASK_EVERY=2: the tasks (0, 1) and (9, 1) of the 10 x 4 run. With MPIETE_TASK_POINTS
 * too (its file, written by CMakeLists.txt, lists (0, 1), (3, 2), (7, 3) and (9, 0), (7, 3) on
 * no lattice of the others, and (12, 1) outside the run): those four, the points overriding
 * the values. After finalize, rank0.tasks is checked: exactly those tasks timed. */
#include "mpiete/instrument.h"
#include "mpiete/task.h"

#include <stdio.h>
#include <stdlib.h>

#define U 0x00abc125u
#define SITE(i) MPIETE_ID(U, i)

#include "check_count.h"

static int points; /* MPIETE_TASK_POINTS is set */

/* The subset's tasks inside the run (the points file's are also in CMakeLists.txt). */
static int listed(long long i, long long j) {
  if (points)
    return (i == 0 && j == 1) || (i == 3 && j == 2) || (i == 7 && j == 3) || (i == 9 && j == 0);
  return (i == 0 || i == 9) && j == 1;
}

int main(int argc, char **argv) {
  int ran = 0, wrong = 0;
  const char *p = getenv("MPIETE_TASK_POINTS");
  points = p != NULL && p[0] != '\0';
  mpiete_init(SITE(1), &argc, &argv);
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 4; ++j)
      MPIETE_TASK(i, j) {
        ++ran;
        wrong += !listed(i, j);
      }
  CHECK(ran == (points ? 4 : 2) && wrong == 0, "%d of 40 tasks ran, %d of them not in the subset",
        ran, wrong);
  mpiete_finalize(SITE(2));

  /* `2 I J NS`: NS >= 0 exactly for the tasks that ran. */
  char path[4096];
  snprintf(path, sizeof path, "%s/rank0.tasks", getenv("MPIETE_OUTDIR"));
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "no %s", path);
  char line[256];
  int n = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    int dims = 0;
    long long i = 0, j = 0, ns = 0;
    if (line[0] == '#')
      continue;
    CHECK(sscanf(line, "%d %lld %lld %lld", &dims, &i, &j, &ns) == 4 && dims == 2, "line '%s'",
          line);
    CHECK(i == n / 4 && j == n % 4, "task %d: (%lld, %lld)", n, i, j);
    const int Ran = listed(i, j);
    CHECK((ns >= 0) == Ran, "task (%lld, %lld): %s", i, j, Ran ? "not timed" : "timed");
    ++n;
  }
  CHECK(n == 40, "%d task lines, expected 40", n);
  if (f != NULL)
    fclose(f);
  return failures != 0;
}
