/* work.h: the two-file skeleton test's procedures in work.c. */
#ifndef WORK_H
#define WORK_H
void relax(double *u, int n, int sweeps);
int exchange(double *u, int n, int peer);
int rounds(int n);
#endif
