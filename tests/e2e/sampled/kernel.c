/* Kernels of pure computation whose outer loop the frontend hooks for sampling: a loop with
 * an inner loop, counted, with no exit but its end. */
#include "kernel.h"

/* Rows 0 .. n-1 of a lower triangle: row i costs i + 1 inner steps (its time grows with the
 * index, which the estimate between measured rows follows). Counts the rows that ran. */
double triangle(int n, long long *rows_run) {
  double s = 0.0;
  int i, j;

  for (i = 0; i < n; i++) {
    double r = 0.0;
    for (j = 0; j <= i; j++)
      r += (double)((i * 31 + j) % 7) * 0.5;
    s += r;
    ++*rows_run;
  }
  return s;
}

/* idx[i] = i, by a detour: a sampled run leaves the skipped entries as they were. */
void fill(int n, int *idx) {
  int i, j, k;

  for (i = 0; i < n; i++) {
    k = 0;
    for (j = 0; j < 4; j++)
      k += j;
    idx[i] = i + k - 6;
  }
}
