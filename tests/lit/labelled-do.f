! Labelled DO loops: the terminal statement ends the loop on its own line, so it stays outside
! every block (a hook after it would run after the loop); loops sharing a terminal statement
! are never timed whole.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --variant=timing --unit-path=labelled-do.f %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
! RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
      SUBROUTINE SWEEP(A, N, PEER)
      INCLUDE 'mpif.h'
      INTEGER N, PEER, I, J, IERR
      DOUBLE PRECISION A(N, N)
      DO 20 I = 1, N
      DO 20 J = 1, N
        A(I, J) = A(I, J) * 0.5D0
   20 CONTINUE
      DO 30 I = 1, N
        CALL MPI_SEND(A(1, I), N, MPI_DOUBLE_PRECISION, PEER, I,
     &                MPI_COMM_WORLD, IERR)
        A(1, I) = 0
   30 A(2, I) = 1
      END

! CHECK:            DO 20 I = 1, N
! CHECK-NEXT:       DO 20 J = 1, N
! CHECK-NEXT:         CALL MPIETE_TM_BEGIN([[U:-?[0-9]+]], 0)
! CHECK-NEXT:         A(I, J) = A(I, J) * 0.5D0
! CHECK-NEXT:         CALL MPIETE_TM_END([[U]], 0)
! CHECK-NEXT:    20 CONTINUE
! CHECK-NEXT:       DO 30 I = 1, N
! CHECK-NEXT:         CALL MPIETE_SEND([[U]], 1,
! CHECK-NEXT:      &                A(1, I), N, MPI_DOUBLE_PRECISION, PEER, I,
! CHECK-NEXT:      &                MPI_COMM_WORLD, IERR)
! CHECK-NEXT:         CALL MPIETE_TM_BEGIN([[U]], 3)
! CHECK-NEXT:         A(1, I) = 0
! CHECK-NEXT:         CALL MPIETE_TM_END([[U]], 3)
! CHECK-NEXT:    30 A(2, I) = 1
! CHECK-NEXT:       END

! MAP:      - {loop: 0, kind: do, procedure: sweep, line: 12, parent: -1}
! MAP-NEXT: - {loop: 1, kind: do, procedure: sweep, line: 13, parent: 0}
! MAP-NEXT: - {loop: 2, kind: do, procedure: sweep, line: 16, parent: -1}
! MAP:      - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:   kind: compute
! MAP:        lines: [14, 14]
! MAP:        loops: [0, 1]
! MAP-NEXT:   timed: block
! MAP:      - id: [[U]]:3
! MAP-NEXT:   kind: compute
! MAP:        lines: [19, 19]
! MAP:        loops: [2]
! MAP-NEXT:   timed: block
! MAP-NOT:  - id:

! --unit-path: the unit id (a hash of the path) and so the lines it pushes past column 72
! stay the same wherever the checkout lies.
