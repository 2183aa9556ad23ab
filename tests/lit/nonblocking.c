// Non-blocking starts are comm blocks; every completion (Wait*, Test*) and probe is a wait block.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int overlap(int *a, int *b, int n, int peer) {
  MPI_Request rq[2];
  MPI_Status st[2];
  int flag, index, outcount, indices[2];
  MPI_Irecv(b, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(a, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq[1]);
  MPI_Issend(a, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[1]);
  MPI_Irsend(a, n, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[1]);
  MPI_Ibsend(a, n, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[1]);
  MPI_Wait(&rq[0], &st[0]);
  MPI_Waitall(2, rq, st);
  MPI_Waitany(2, rq, &index, MPI_STATUS_IGNORE);
  MPI_Waitsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
  MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
  MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
  MPI_Testany(2, rq, &index, &flag, MPI_STATUS_IGNORE);
  MPI_Testsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
  MPI_Probe(peer, 0, MPI_COMM_WORLD, &st[0]);
  MPI_Iprobe(peer, 0, MPI_COMM_WORLD, &flag, &st[0]);
  return flag;
}

// CHECK:      int overlap(int *a, int *b, int n, int peer) {
// CHECK-NEXT:   MPI_Request rq[2];
// CHECK-NEXT:   MPI_Status st[2];
// CHECK-NEXT:   int flag, index, outcount, indices[2];
// CHECK-NEXT:   mpiete_irecv(MPIETE_B(0), b, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq[0]);
// CHECK-NEXT:   mpiete_isend(MPIETE_B(1), a, n, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq[1]);
// CHECK-NEXT:   mpiete_issend(MPIETE_B(2), a, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[1]);
// CHECK-NEXT:   mpiete_irsend(MPIETE_B(3), a, n, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[1]);
// CHECK-NEXT:   mpiete_ibsend(MPIETE_B(4), a, n, MPI_INT, peer, 3, MPI_COMM_WORLD, &rq[1]);
// CHECK-NEXT:   mpiete_wait(MPIETE_B(5), &rq[0], &st[0]);
// CHECK-NEXT:   mpiete_waitall(MPIETE_B(6), 2, rq, st);
// CHECK-NEXT:   mpiete_waitany(MPIETE_B(7), 2, rq, &index, MPI_STATUS_IGNORE);
// CHECK-NEXT:   mpiete_waitsome(MPIETE_B(8), 2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
// CHECK-NEXT:   mpiete_test(MPIETE_B(9), &rq[0], &flag, MPI_STATUS_IGNORE);
// CHECK-NEXT:   mpiete_testall(MPIETE_B(10), 2, rq, &flag, MPI_STATUSES_IGNORE);
// CHECK-NEXT:   mpiete_testany(MPIETE_B(11), 2, rq, &index, &flag, MPI_STATUS_IGNORE);
// CHECK-NEXT:   mpiete_testsome(MPIETE_B(12), 2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
// CHECK-NEXT:   mpiete_probe(MPIETE_B(13), peer, 0, MPI_COMM_WORLD, &st[0]);
// CHECK-NEXT:   mpiete_iprobe(MPIETE_B(14), peer, 0, MPI_COMM_WORLD, &flag, &st[0]);
// CHECK-NEXT:   return flag;
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: start
// MAP:        routine: MPI_Irecv
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: comm
// MAP-NEXT:   phase: start
// MAP:        routine: MPI_Isend
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: comm
// MAP:        routine: MPI_Issend
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: comm
// MAP:        routine: MPI_Irsend
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: comm
// MAP:        routine: MPI_Ibsend
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: wait
// MAP-NEXT:   phase: wait
// MAP:        routine: MPI_Wait
// MAP-NEXT:   call: "MPI_Wait(&rq[0], &st[0])"
// MAP:      - id: [[U]]:6
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Waitall
// MAP:      - id: [[U]]:7
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Waitany
// MAP:      - id: [[U]]:8
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Waitsome
// MAP:      - id: [[U]]:9
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Test
// MAP:      - id: [[U]]:10
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Testall
// MAP:      - id: [[U]]:11
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Testany
// MAP:      - id: [[U]]:12
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Testsome
// MAP:      - id: [[U]]:13
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Probe
// MAP:      - id: [[U]]:14
// MAP-NEXT:   kind: wait
// MAP:        routine: MPI_Iprobe
// MAP-NOT:  - id:
