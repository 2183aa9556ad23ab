/* The sampled probe test's kernels (kernel.c): pure computation, no MPI. */
#ifndef SAMPLED_KERNEL_H
#define SAMPLED_KERNEL_H

double triangle(int n, long long *rows_run);
void fill(int n, int *idx);

#endif
