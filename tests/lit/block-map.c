// The block map: header, provenance, fingerprint, and per unit its id, source, defines, content
// hash, procedures, loops with parents, and per block id, kind, phase, file, lines, column,
// procedure, enclosing loops, how it is timed, opaque callees, routine and call as written.
// RUN: %mpiete-instrument --seed-blocks --blocks --unit-path=src/block-map.c %s -- %mpi-cflags -DN=4 -UDEBUG | FileCheck %s
// RUN: %mpiete-instrument --seed-blocks --blocks-out=%t.yaml --unit-path=src/block-map.c %s -- %mpi-cflags -DN=4 -UDEBUG
// RUN: FileCheck %s < %t.yaml
#include <mpi.h>

double remote(double);

void kernel(double *a, double *b) {
  for (int it = 0; it < N; ++it) {
    for (int i = 0; i < N; ++i)
      a[i] = remote(b[i]);
    MPI_Allreduce(a, b, N,
                  MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    while (b[0] > 1) {
      b[0] /= 2;
      MPI_Bcast(b, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
  }
}

// CHECK:      format: mpiete-blocks
// CHECK-NEXT: version: 1
// CHECK-NEXT: provenance:
// CHECK-NEXT:   program: {{.*}}block-map.c
// CHECK-NEXT:   tool: mpiete {{[0-9.]+}}
// CHECK-NEXT:   date: {{[0-9]+-[0-9]+-[0-9]+T[0-9]+:[0-9]+:[0-9]+Z}}
// CHECK-NEXT: fingerprint: {{[0-9a-f]+}}
// CHECK-NEXT: units:
// CHECK-NEXT:   - unit: [[U:[0-9a-f]+]]
// CHECK-NEXT:     source: src/block-map.c
// CHECK-NEXT:     language: c
// CHECK-NEXT:     defines: [-DN=4, -UDEBUG]
// CHECK-NEXT:     content_hash: {{[0-9a-f]+}}
// CHECK-NEXT:     flags: [{{.*}}-DN=4, -UDEBUG{{.*}}]
// CHECK-NEXT:     procedures: [kernel]
// CHECK-NEXT:     loops:
// CHECK-NEXT:       - {loop: 0, kind: for, procedure: kernel, line: 12, parent: -1}
// CHECK-NEXT:       - {loop: 1, kind: for, procedure: kernel, line: 13, parent: 0}
// CHECK-NEXT:       - {loop: 2, kind: while, procedure: kernel, line: 17, parent: 0}
// CHECK-NEXT:     blocks:
// CHECK-NEXT:       - id: [[U]]:0
// CHECK-NEXT:         kind: compute
// CHECK-NEXT:         file: src/block-map.c
// CHECK-NEXT:         lines: [13, 14]
// CHECK-NEXT:         col: 5
// CHECK-NEXT:         procedure: kernel
// CHECK-NEXT:         loops: [0, 1]
// CHECK-NEXT:         timed: loop
// CHECK-NEXT:         opaque_calls: [remote]
// CHECK-NEXT:       - id: [[U]]:1
// CHECK-NEXT:         kind: collective
// CHECK-NEXT:         file: src/block-map.c
// CHECK-NEXT:         lines: [15, 16]
// CHECK-NEXT:         col: 5
// CHECK-NEXT:         procedure: kernel
// CHECK-NEXT:         loops: [0]
// CHECK-NEXT:         routine: MPI_Allreduce
// CHECK-NEXT:         call: "MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)"
// CHECK-NEXT:       - id: [[U]]:2
// CHECK-NEXT:         kind: compute
// CHECK-NEXT:         file: src/block-map.c
// CHECK-NEXT:         lines: [18, 18]
// CHECK-NEXT:         col: 7
// CHECK-NEXT:         procedure: kernel
// CHECK-NEXT:         loops: [0, 2]
// CHECK-NEXT:         timed: block
// CHECK-NEXT:       - id: [[U]]:3
// CHECK-NEXT:         kind: collective
// CHECK-NEXT:         file: src/block-map.c
// CHECK-NEXT:         lines: [19, 19]
// CHECK-NEXT:         col: 7
// CHECK-NEXT:         procedure: kernel
// CHECK-NEXT:         loops: [0, 2]
// CHECK-NEXT:         routine: MPI_Bcast
// CHECK-NEXT:         call: "MPI_Bcast(b, N, MPI_DOUBLE, 0, MPI_COMM_WORLD)"
// CHECK-NOT:  - id:
