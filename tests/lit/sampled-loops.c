// Segments, timing variant: the outermost counted `for` of pure computation whose braced body
// holds another loop gets the sampling hooks (`mpiete_sample` at the top of its body,
// `mpiete_sample_exit` after it), in every procedure of the unit and between MPI calls; the
// search goes on inside a loop that does not qualify. The trace and skeleton variants get none.
// RUN: %mpiete-instrument --sample-loops --variant=timing %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// Without --sample-loops (mpiete-cc's default) the timing variant has none either.
// RUN: %mpiete-instrument --variant=timing %s -- %mpi-cflags | FileCheck --check-prefix=TRACE %s
// RUN: %mpiete-instrument %s -- %mpi-cflags | FileCheck --check-prefix=TRACE %s
// RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-cflags | FileCheck --check-prefix=TRACE %s
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags | FileCheck --check-prefix=TRACE %s
// RUN: %mpiete-instrument --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>
#include <math.h>

int limit = 4;
double ext(double);

#define SWEEP(a, n)                                                                                \
  for (int s_ = 0; s_ < (n); ++s_) {                                                               \
    for (int t_ = 0; t_ < (n); ++t_)                                                               \
      (a)[t_] += s_;                                                                               \
  }

void process_batch(double *a, int n, int m) {
  for (int i = 0; i < n; i += 1) {
    if (a[i] < 0)
      continue;
    for (int j = 0; j < m; ++j) {
      if (a[i * m + j] > 1e9)
        break;
      a[i * m + j] = sqrt(a[i * m + j]) + 1.0;
    }
  }
}

void relax(double *a, int n, int m, double tol) {
  double err = tol + 1;
  while (err > tol) {
    err = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j)
        err += a[i * m + j] *= 0.5;
    }
  }
}

// Each loop here is refused: a break of its own, a goto out, no inner loop, an MPI call, a call
// through a pointer (the opaque hooks instead), a global in the condition, the bound changed in
// the body, the index's address taken, a body without braces (the loop inside is sampled), a
// pragma before it, a macro's loop, a return.
int refused(double *a, int n, int m, double (*f)(double)) {
  int k;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      a[j] += i;
    if (a[0] > 9)
      break;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      if (a[j] < 0)
        goto out;
  }
  for (int i = 0; i < n; ++i) {
    a[i] *= 2;
  }
  for (int i = 0; i < n; ++i) {
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    for (int j = 0; j < m; ++j)
      a[j] += r;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      a[j] = f(a[j]);
  }
  for (int i = 0; i < limit; ++i) {
    for (int j = 0; j < m; ++j)
      a[j] += i;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      a[j] += i;
    n--;
  }
  for (k = 0; k < n; ++k) {
    for (int j = 0; j < m; ++j)
      a[j] += k;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      for (int l = 0; l < 2; ++l)
        a[j] += i + l;
    }
#pragma GCC unroll 2
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      a[j] += i;
  }
  SWEEP(a, n)
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j)
      if (a[j] < 0)
        return j;
  }
out:
  return *&k;
}

int main(int argc, char **argv) {
  double a[16] = {0};
  MPI_Init(&argc, &argv);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j)
      a[i * 4 + j] = i + j;
  }
  for (int t = 0; t < 3; ++t) {
    if (t > 0)
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j)
          a[i * 4 + j] *= 0.5;
      }
    MPI_Allreduce(MPI_IN_PLACE, a, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  process_batch(a, 4, 4);
  relax(a, 4, 4, 0.1);
  a[0] = refused(a, 4, 4, ext);
  MPI_Finalize();
  return a[0] > 0;
}

// CHECK:      void process_batch(double *a, int n, int m) {
// CHECK-NEXT:   { MPIETE_SAMPLE_ENTRY for (int i = 0; i < n; i += 1) { mpiete_sample(MPIETE_B(0)); {
// CHECK-NEXT:     if (a[i] < 0)
// CHECK-NEXT:       continue;
// CHECK-NEXT:     for (int j = 0; j < m; ++j) {
// CHECK-NEXT:       if (a[i * m + j] > 1e9)
// CHECK-NEXT:         break;
// CHECK-NEXT:       a[i * m + j] = sqrt(a[i * m + j]) + 1.0;
// CHECK-NEXT:     }
// CHECK-NEXT:   }} mpiete_sample_exit(MPIETE_B(0)); }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: void relax(double *a, int n, int m, double tol) {
// CHECK-NEXT:   double err = tol + 1;
// CHECK-NEXT:   while (err > tol) {
// CHECK-NEXT:     err = 0;
// CHECK-NEXT:     { MPIETE_SAMPLE_ENTRY for (int i = 0; i < n; ++i) { mpiete_sample(MPIETE_B(1)); {
// CHECK-NEXT:       for (int j = 0; j < m; ++j)
// CHECK-NEXT:         err += a[i * m + j] *= 0.5;
// CHECK-NEXT:     }} mpiete_sample_exit(MPIETE_B(1)); }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // Each loop here is refused: a break of its own, a goto out, no inner loop, an MPI call, a call
// CHECK-NEXT: // through a pointer (the opaque hooks instead), a global in the condition, the bound changed in
// CHECK-NEXT: // the body, the index's address taken, a body without braces (the loop inside is sampled), a
// CHECK-NEXT: // pragma before it, a macro's loop, a return.
// CHECK-NEXT: int refused(double *a, int n, int m, double (*f)(double)) {
// CHECK-NEXT:   int k;
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] += i;
// CHECK-NEXT:     if (a[0] > 9)
// CHECK-NEXT:       break;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       if (a[j] < 0)
// CHECK-NEXT:         goto out;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     a[i] *= 2;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     int r;
// CHECK-NEXT:     MPI_Comm_rank(MPI_COMM_WORLD, &r);
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] += r;
// CHECK-NEXT:   }
// CHECK-NEXT:   { for (int i = 0; i < n; ++i) { mpiete_iter_opaque(MPIETE_B(2)); {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] = f(a[j]);
// CHECK-NEXT:   }} mpiete_loop_exit_opaque(MPIETE_B(2)); }
// CHECK-NEXT:   for (int i = 0; i < limit; ++i) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] += i;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] += i;
// CHECK-NEXT:     n--;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (k = 0; k < n; ++k) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] += k;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < n; ++i)
// CHECK-NEXT:     { MPIETE_SAMPLE_ENTRY for (int j = 0; j < m; ++j) { mpiete_sample(MPIETE_B(3)); {
// CHECK-NEXT:       for (int l = 0; l < 2; ++l)
// CHECK-NEXT:         a[j] += i + l;
// CHECK-NEXT:     }} mpiete_sample_exit(MPIETE_B(3)); }
// CHECK-NEXT: #pragma GCC unroll 2
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       a[j] += i;
// CHECK-NEXT:   }
// CHECK-NEXT:   SWEEP(a, n)
// CHECK-NEXT:   for (int i = 0; i < n; ++i) {
// CHECK-NEXT:     for (int j = 0; j < m; ++j)
// CHECK-NEXT:       if (a[j] < 0)
// CHECK-NEXT:         return j;
// CHECK-NEXT:   }
// CHECK-NEXT: out:
// CHECK-NEXT:   return *&k;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: int main(int argc, char **argv) {
// CHECK-NEXT:   double a[16] = {0};
// CHECK-NEXT:   mpiete_init(MPIETE_B(4), &argc, &argv);
// CHECK-NEXT:   { MPIETE_SAMPLE_ENTRY for (int i = 0; i < 4; ++i) { mpiete_sample(MPIETE_B(5)); {
// CHECK-NEXT:     for (int j = 0; j < 4; ++j)
// CHECK-NEXT:       a[i * 4 + j] = i + j;
// CHECK-NEXT:   }} mpiete_sample_exit(MPIETE_B(5)); }
// CHECK-NEXT:   { for (int t = 0; t < 3; ++t) { mpiete_iter(MPIETE_B(6)); {
// CHECK-NEXT:     if (t > 0)
// CHECK-NEXT:       { MPIETE_SAMPLE_ENTRY for (int i = 0; i < 4; ++i) { mpiete_sample(MPIETE_B(7)); {
// CHECK-NEXT:         for (int j = 0; j < 4; ++j)
// CHECK-NEXT:           a[i * 4 + j] *= 0.5;
// CHECK-NEXT:       }} mpiete_sample_exit(MPIETE_B(7)); }
// CHECK-NEXT:     mpiete_allreduce(MPIETE_B(8), MPI_IN_PLACE, a, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
// CHECK-NEXT:   }} mpiete_loop_exit(MPIETE_B(6)); }
// CHECK-NEXT:   process_batch(a, 4, 4);
// CHECK-NEXT:   relax(a, 4, 4, 0.1);
// CHECK-NEXT:   a[0] = refused(a, 4, 4, ext);
// CHECK-NEXT:   mpiete_finalize(MPIETE_B(9));
// CHECK-NEXT:   return a[0] > 0;
// CHECK-NEXT: }

// TRACE-NOT:  {{^[^/]*mpiete_sample}}
// TRACE:      void process_batch(double *a, int n, int m) {
// TRACE-NEXT:   for (int i = 0; i < n; i += 1) {
// TRACE-NOT:  {{^[^/]*mpiete_sample}}

// MAP:      procedures: [process_batch, relax, refused, main]
// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: loop
// MAP-NEXT:   file: {{.*}}sampled-loops.c
// MAP-NEXT:   lines: [26, 34]
// MAP-NEXT:   col: 3
// MAP-NEXT:   procedure: process_batch
// MAP-NEXT:   loops: []
// MAP:      - id: [[U]]:7
// MAP-NEXT:   kind: loop
// MAP:        procedure: main
// MAP-NEXT:   loops: [0]
