// The instrumented text keeps every line where it was: the prelude ends with `#line 1`, no edit
// adds a newline, and the user's own #line directives still apply. Checked by compiling the
// output: __LINE__ in static assertions and the line of a compiler diagnostic.
// RUN: %mpiete-instrument --seed-blocks %s -- %mpi-cflags > %t.c
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-cflags > %t.timing.c
// RUN: %mpicc-syntax %t.timing.c
// RUN: %mpicc -fsyntax-only -DSHOW_WARNING -I%mpiete-include-dir %t.c 2>&1 | FileCheck --check-prefix=GCC %s
// RUN: %mpicc -fsyntax-only -DSHOW_WARNING -I%mpiete-include-dir %t.timing.c 2>&1 | FileCheck --check-prefix=GCC %s
// RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int lines(double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i]; _Static_assert(__LINE__ == 16, "whole-loop edits keep the line");
  if (n > 2)
    s *= 2; _Static_assert(__LINE__ == 18, "braced slot keeps the line");
  MPI_Allreduce(MPI_IN_PLACE, &s,
                1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); _Static_assert(__LINE__ == 20, "call");
  s += 1;
#ifdef SHOW_WARNING
#warning instrumented line
  // GCC: {{.*}}line-preservation.c:[[@LINE-1]]:2: warning: #warning instrumented line
#endif
#line 500 "generated.y"
  s -= 1; _Static_assert(__LINE__ == 500, "user #line still applies");
  MPI_Barrier(MPI_COMM_WORLD);
#ifdef SHOW_WARNING
#warning after a user line directive
  // GCC: generated.y:503:2: warning: #warning after a user line directive
#endif
  return (int)s;
}

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}line-preservation.c
// MAP-NEXT:   lines: [15, 16]
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}line-preservation.c
// MAP-NEXT:   lines: [18, 18]
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: collective
// MAP-NEXT:   file: {{.*}}line-preservation.c
// MAP-NEXT:   lines: [19, 20]
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: {{.*}}line-preservation.c
// MAP-NEXT:   lines: [21, 21]
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: compute
// MAP-NEXT:   file: generated.y
// MAP-NEXT:   lines: [500, 500]
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: collective
// MAP-NEXT:   file: generated.y
// MAP-NEXT:   lines: [501, 501]
