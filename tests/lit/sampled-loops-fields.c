// Sampled loops bounded by struct fields (g->n, s.n; issue 15): the field is read through a
// local pointer or struct the function never takes the address of, and the body can change
// neither it nor the local: it calls only math functions, and stores to no lvalue of the
// field's type, of a character type or of a struct type (any of them might alias the field).
// RUN: %mpiete-instrument --sample-loops --variant=timing %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
#include <mpi.h>
#include <math.h>

typedef struct {
  int n, nloc;
  unsigned flag : 1;
  double *u;
} grid_t;

grid_t *global_grid;
void update(grid_t *g);

double sweep(grid_t *g) {
  double d = 0;
  for (int i = 1; i <= g->nloc; i++) {
    for (int j = 1; j <= g->n; j++)
      d += sqrt(fabs(g->u[i * g->n + j]));
  }
  return d;
}

double by_value(grid_t s) {
  double d = 0;
  for (int i = 0; i < s.nloc; i++) {
    for (int j = 0; j < s.n; j++)
      s.u[j] += i;
  }
  return d;
}

// Each refused: an unsigned stored through a pointer (it may alias the int field), the bound
// assigned, an int stored through a pointer, a call of another function, a char stored, a
// struct copied, the pointer changed, a global's field, the pointer's address taken, a
// bit-field.
void refused(grid_t *g, int *count, char *mark, grid_t *other, unsigned *hits) {
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      hits[j] = 1;
  }
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      g->u[j] += 1;
    g->n = g->n - 1;
  }
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      count[j]++;
  }
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      update(g);
  }
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      mark[j] = 1;
  }
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      *other = *g;
  }
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < 4; j++)
      g = other;
  }
  for (int i = 0; i < global_grid->n; i++) {
    for (int j = 0; j < 4; j++)
      g->u[j] += 1;
  }
  for (int i = 0; i < other->n; i++) {
    for (int j = 0; j < 4; j++)
      g->u[j] += 1;
  }
  for (unsigned i = 0; i < other->flag; i++) {
    for (int j = 0; j < 4; j++)
      g->u[j] += 1;
  }
  update(*&other);
}

int main(int argc, char **argv) {
  grid_t g = {4, 4, 0, 0};
  double u[64] = {0};
  MPI_Init(&argc, &argv);
  g.u = u;
  sweep(&g);
  by_value(g);
  MPI_Finalize();
  return 0;
}

// CHECK:      grid_t *global_grid;
// CHECK-NEXT: void update(grid_t *g);
// CHECK-EMPTY:
// CHECK-NEXT: double sweep(grid_t *g) {
// CHECK-NEXT:   double d = 0;
// CHECK-NEXT:   { MPIETE_SAMPLE_ENTRY for (int i = 1; i <= g->nloc; i++) { mpiete_sample(MPIETE_B(0)); {
// CHECK-NEXT:     for (int j = 1; j <= g->n; j++)
// CHECK-NEXT:       d += sqrt(fabs(g->u[i * g->n + j]));
// CHECK-NEXT:   }} mpiete_sample_exit(MPIETE_B(0)); }
// CHECK-NEXT:   return d;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: double by_value(grid_t s) {
// CHECK-NEXT:   double d = 0;
// CHECK-NEXT:   { MPIETE_SAMPLE_ENTRY for (int i = 0; i < s.nloc; i++) { mpiete_sample(MPIETE_B(1)); {
// CHECK-NEXT:     for (int j = 0; j < s.n; j++)
// CHECK-NEXT:       s.u[j] += i;
// CHECK-NEXT:   }} mpiete_sample_exit(MPIETE_B(1)); }
// CHECK-NEXT:   return d;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // Each refused: an unsigned stored through a pointer (it may alias the int field), the bound
// CHECK-NEXT: // assigned, an int stored through a pointer, a call of another function, a char stored, a
// CHECK-NEXT: // struct copied, the pointer changed, a global's field, the pointer's address taken, a
// CHECK-NEXT: // bit-field.
// CHECK-NEXT: void refused(grid_t *g, int *count, char *mark, grid_t *other, unsigned *hits) {
// CHECK-NEXT:   for (int i = 0; i < g->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       hits[j] = 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < g->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       g->u[j] += 1;
// CHECK-NEXT:     g->n = g->n - 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < g->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       count[j]++;
// CHECK-NEXT:   }
// CHECK-NEXT:   { for (int i = 0; i < g->n; i++) { mpiete_iter_opaque(MPIETE_B(2)); {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       update(g);
// CHECK-NEXT:   }} mpiete_loop_exit_opaque(MPIETE_B(2)); }
// CHECK-NEXT:   for (int i = 0; i < g->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       mark[j] = 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < g->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       *other = *g;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < g->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       g = other;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < global_grid->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       g->u[j] += 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int i = 0; i < other->n; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       g->u[j] += 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (unsigned i = 0; i < other->flag; i++) {
// CHECK-NEXT:     for (int j = 0; j < 4; j++)
// CHECK-NEXT:       g->u[j] += 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   update(*&other);
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: int main(int argc, char **argv) {
// CHECK-NEXT:   grid_t g = {4, 4, 0, 0};
// CHECK-NEXT:   double u[64] = {0};
// CHECK-NEXT:   mpiete_init(MPIETE_B(3), &argc, &argv);
// CHECK-NEXT:   g.u = u;
// CHECK-NEXT:   sweep(&g);
// CHECK-NEXT:   by_value(g);
// CHECK-NEXT:   mpiete_finalize(MPIETE_B(4));
// CHECK-NEXT:   return 0;
// CHECK-NEXT: }
