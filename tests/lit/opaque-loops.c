// Segments: a loop with no MPI call the unit can see but calls into code it cannot (another
// unit's procedure, directly, through a procedure of this unit, or through a pointer) gets the
// opaque hooks, which only the timing probe's cap uses; a loop of library calls gets none. A
// procedure without MPI calls that reaches such code is walked for them.
// RUN: %mpiete-instrument %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --variant=timing %s -- %mpi-cflags | FileCheck --match-full-lines %s
#include <mpi.h>
#include <math.h>

double halo(double *a, int n);   /* another unit's */

static double local(double *a, int n) { return halo(a, n) + 1.0; }

static double solve(double *a, int n, int steps, double (*f)(double *, int)) {
  double r = 0;
  for (int t = 0; t < steps; ++t)
    r += halo(a, n);
  for (int t = 0; t < steps; ++t) {
    r += local(a, n);
  }
  while (steps-- > 0)
    r += f(a, n);
  for (int i = 0; i < n; ++i)
    a[i] = sqrt(a[i]);
  return r;
}

int main(int argc, char **argv) {
  double a[4] = {1, 2, 3, 4}, r;
  MPI_Init(&argc, &argv);
  r = solve(a, 4, 10, halo);
  MPI_Finalize();
  return r > 0 ? 0 : 1;
}

// CHECK:      static double solve(double *a, int n, int steps, double (*f)(double *, int)) {
// CHECK-NEXT:   double r = 0;
// CHECK-NEXT:   { for (int t = 0; t < steps; ++t)
// CHECK-NEXT:     { mpiete_iter_opaque(MPIETE_B(0)); r += halo(a, n); } mpiete_loop_exit_opaque(MPIETE_B(0)); }
// CHECK-NEXT:   { for (int t = 0; t < steps; ++t) { mpiete_iter_opaque(MPIETE_B(1)); {
// CHECK-NEXT:     r += local(a, n);
// CHECK-NEXT:   }} mpiete_loop_exit_opaque(MPIETE_B(1)); }
// CHECK-NEXT:   { while (steps-- > 0)
// CHECK-NEXT:     { mpiete_iter_opaque(MPIETE_B(2)); r += f(a, n); } mpiete_loop_exit_opaque(MPIETE_B(2)); }
// CHECK-NEXT:   for (int i = 0; i < n; ++i)
// CHECK-NEXT:     a[i] = sqrt(a[i]);
// CHECK-NEXT:   return r;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: int main(int argc, char **argv) {
// CHECK-NEXT:   double a[4] = {1, 2, 3, 4}, r;
// CHECK-NEXT:   mpiete_init(MPIETE_B(3), &argc, &argv);
// CHECK-NEXT:   r = solve(a, 4, 10, halo);
// CHECK-NEXT:   mpiete_finalize(MPIETE_B(4));
// CHECK-NEXT:   return r > 0 ? 0 : 1;
// CHECK-NEXT: }
