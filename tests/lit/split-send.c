// Blocking sends (Send, Ssend, Rsend, Bsend) call the runtime, which splits each into a start
// and a wait: the text shows the rename and site id, the block map the two blocks per site.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

void sends(double *buf, int n, int peer) {
  MPI_Send(buf, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
  MPI_Ssend(buf, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
  MPI_Rsend(buf, n, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD);
  MPI_Bsend (buf, n, MPI_DOUBLE,
             peer, 4, MPI_COMM_WORLD);
}

// CHECK:      #include "mpiete/instrument.h" /* mpiete trace probe of {{.*}}split-send.c */
// CHECK-NEXT: #define MPIETE_B(index) MPIETE_ID(0x{{[0-9a-f]+}}u, index)
// CHECK-NEXT: #line 1 "{{.*}}split-send.c"
// CHECK:      void sends(double *buf, int n, int peer) {
// CHECK-NEXT:   mpiete_send(MPIETE_B(0), buf, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
// CHECK-NEXT:   mpiete_ssend(MPIETE_B(2), buf, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
// CHECK-NEXT:   mpiete_rsend(MPIETE_B(4), buf, n, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD);
// CHECK-NEXT:   mpiete_bsend (MPIETE_B(6), buf, n, MPI_DOUBLE,
// CHECK-NEXT:              peer, 4, MPI_COMM_WORLD);
// CHECK-NEXT: }

// MAP:      procedures: [sends]
// MAP:      blocks:
// MAP-NEXT:   - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:     kind: comm
// MAP-NEXT:     phase: start
// MAP-NEXT:     file: {{.*}}split-send.c
// MAP-NEXT:     lines: [9, 9]
// MAP-NEXT:     col: 3
// MAP-NEXT:     procedure: sends
// MAP-NEXT:     loops: []
// MAP-NEXT:     routine: MPI_Send
// MAP-NEXT:     call: "MPI_Send(buf, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD)"
// MAP-NEXT:   - id: [[U]]:1
// MAP-NEXT:     kind: wait
// MAP-NEXT:     phase: wait
// MAP-NEXT:     file: {{.*}}split-send.c
// MAP-NEXT:     lines: [9, 9]
// MAP-NEXT:     col: 3
// MAP-NEXT:     procedure: sends
// MAP-NEXT:     loops: []
// MAP-NEXT:     routine: MPI_Send
// MAP-NEXT:     call: "MPI_Send(buf, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD)"
// MAP-NEXT:   - id: [[U]]:2
// MAP-NEXT:     kind: comm
// MAP-NEXT:     phase: start
// MAP:          routine: MPI_Ssend
// MAP:        - id: [[U]]:3
// MAP-NEXT:     kind: wait
// MAP:          routine: MPI_Ssend
// MAP:        - id: [[U]]:4
// MAP-NEXT:     kind: comm
// MAP:          routine: MPI_Rsend
// MAP:        - id: [[U]]:5
// MAP-NEXT:     kind: wait
// MAP:          routine: MPI_Rsend
// MAP:        - id: [[U]]:6
// MAP-NEXT:     kind: comm
// MAP-NEXT:     phase: start
// MAP-NEXT:     file: {{.*}}split-send.c
// MAP-NEXT:     lines: [12, 13]
// MAP:          routine: MPI_Bsend
// MAP-NEXT:     call: "MPI_Bsend (buf, n, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD)"
// MAP-NEXT:   - id: [[U]]:7
// MAP-NEXT:     kind: wait
// MAP:          routine: MPI_Bsend
// MAP-NOT:    - id:
