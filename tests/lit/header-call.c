// An MPI call in a header is an error at the header's line: mpiete edits only the main file.
// RUN: not %mpiete-instrument --coarse-blocks %s -- %mpi-cflags 2>&1 | FileCheck %s --implicit-check-not=mpiete_
#include "Inputs/header-call.h"

void caller(int *b) {
  b[0] = 1;
  exchange(b);
}

// CHECK: {{.*}}Inputs{{/|\\}}header-call.h:3:39: error: call to 'MPI_Send' in a header: mpiete instruments only the main source file of a translation unit [mpiete-unsupported]
