/* The sampled probe test's kernels (kernel.c): pure computation, no MPI. */
#ifndef SAMPLED_KERNEL_H
#define SAMPLED_KERNEL_H

/* Inner steps of a long row: tens of microseconds, to time against the sampling hooks. */
#define LONG_ROW 20000

double triangle(int n, long long *rows_run);
void fill(int n, int *idx);
double short_rows(int n, long long *rows_run);

#endif
