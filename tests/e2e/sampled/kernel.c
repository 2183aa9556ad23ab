/* Kernels of pure computation whose outer loop the frontend hooks for sampling: a loop with
 * an inner loop, counted, with no exit but its end. */
#include "kernel.h"

/* Rows 0 .. n-1 of a lower triangle: row i costs i + 1 + LONG_ROW inner steps (its time grows
 * with the index, which the estimate between measured rows follows; tens of microseconds, long
 * enough to time against the hooks). Counts the rows that ran. */
double triangle(int n, long long *rows_run) {
  double s = 0.0;
  int i, j;

  for (i = 0; i < n; i++) {
    double r = 0.0;
    for (j = 0; j <= i + LONG_ROW; j++)
      r += (double)((i * 31 + j) % 7) * 0.5;
    s += r;
    ++*rows_run;
  }
  return s;
}

/* idx[i] = i, by a detour of LONG_ROW steps: a sampled run leaves the skipped entries as they
 * were. */
void fill(int n, int *idx) {
  int i, j;
  double r;

  for (i = 0; i < n; i++) {
    r = 0.0;
    for (j = 0; j < LONG_ROW; j++)
      r += (double)((i * 31 + j) % 7);
    idx[i] = i + (r < 0.0);
  }
}

/* Rows of two inner steps, far too short to time against the sampling hooks (a clock read
 * and a system call each): under --sample every row runs. Counts the rows that ran. */
double short_rows(int n, long long *rows_run) {
  double s = 0.0;
  int i, j;

  for (i = 0; i < n; i++) {
    for (j = 0; j < 2; j++)
      s += (double)((i + j) % 5);
    ++*rows_run;
  }
  return s;
}
