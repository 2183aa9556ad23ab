! A DO loop whose body is one compute block is timed whole: a trip counter (declared in the
! specification part) counts its iterations, and one hook after the loop records them.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --unit-path=whole-loop.f %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
! RUN: %mpiete-instrument --seed-blocks --variant=timing --unit-path=whole-loop.f %s -- %mpi-fflags | tee %t.timing.f | FileCheck --match-full-lines --check-prefix=TIMING %s
! RUN: %mpif90-syntax %t.timing.f
! RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
      SUBROUTINE RELAX(X, N, EPS)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N, I, IERR
      DOUBLE PRECISION X(N), EPS, D
      DO I = 1, N
        X(I) = X(I) / 2
      END DO
      D = 1.0D0
      DO WHILE (D .GT. EPS)
        D = D / 2
      ENDDO
      DO 10 I = 1, N
        X(I) = X(I) + D
   10 CONTINUE
      DO I = 1, 3
        CALL MPI_ALLREDUCE(MPI_IN_PLACE, D, 1, MPI_DOUBLE_PRECISION,
     &                     MPI_MAX, MPI_COMM_WORLD, IERR)
        D = D / 2
      END DO
      END

! CHECK:            SUBROUTINE RELAX(X, N, EPS)
! CHECK-NEXT:       IMPLICIT NONE
! CHECK-NEXT:       INTEGER*8 MPIETE_N0
! CHECK-NEXT:       INTEGER*8 MPIETE_N2
! CHECK-NEXT:       INTEGER*8 MPIETE_N3
! CHECK-NEXT:       INCLUDE 'mpif.h'
! CHECK-NEXT:       INTEGER N, I, IERR
! CHECK-NEXT:       DOUBLE PRECISION X(N), EPS, D
! CHECK-NEXT:       MPIETE_N0 = 0
! CHECK-NEXT:       DO I = 1, N
! CHECK-NEXT:         MPIETE_N0 = MPIETE_N0 + 1
! CHECK-NEXT:         X(I) = X(I) / 2
! CHECK-NEXT:       END DO
! CHECK-NEXT:       CALL MPIETE_TR_LOOP([[U:-?[0-9]+]], 0, MPIETE_N0)
! CHECK-NEXT:       CALL MPIETE_TR_BLOCK([[U]], 1)
! CHECK-NEXT:       D = 1.0D0
! CHECK-NEXT:       MPIETE_N2 = 0
! CHECK-NEXT:       DO WHILE (D .GT. EPS)
! CHECK-NEXT:         MPIETE_N2 = MPIETE_N2 + 1
! CHECK-NEXT:         D = D / 2
! CHECK-NEXT:       ENDDO
! CHECK-NEXT:       CALL MPIETE_TR_LOOP([[U]], 2, MPIETE_N2)
! CHECK-NEXT:       MPIETE_N3 = 0
! CHECK-NEXT:       DO 10 I = 1, N
! CHECK-NEXT:         MPIETE_N3 = MPIETE_N3 + 1
! CHECK-NEXT:         X(I) = X(I) + D
! CHECK-NEXT:    10 CONTINUE
! CHECK-NEXT:       CALL MPIETE_TR_LOOP([[U]], 3, MPIETE_N3)
! CHECK-NEXT:       DO I = 1, 3
! CHECK-NEXT:         CALL MPIETE_ALLREDUCE([[U]], 4,
! CHECK-NEXT:      &                     MPI_IN_PLACE, D, 1, MPI_DOUBLE_PRECISION,
! CHECK-NEXT:      &                     MPI_MAX, MPI_COMM_WORLD, IERR)
! CHECK-NEXT:         CALL MPIETE_TR_BLOCK([[U]], 5)
! CHECK-NEXT:         D = D / 2
! CHECK-NEXT:       END DO
! CHECK-NEXT:       END

! TIMING:            MPIETE_N0 = 0
! TIMING-NEXT:       CALL MPIETE_TM_BEGIN([[U:-?[0-9]+]], 0)
! TIMING-NEXT:       DO I = 1, N
! TIMING-NEXT:         MPIETE_N0 = MPIETE_N0 + 1
! TIMING-NEXT:         X(I) = X(I) / 2
! TIMING-NEXT:       END DO
! TIMING-NEXT:       CALL MPIETE_TM_LOOP_END([[U]], 0, MPIETE_N0)
! TIMING-NEXT:       CALL MPIETE_TM_BEGIN([[U]], 1)
! TIMING-NEXT:       D = 1.0D0
! TIMING-NEXT:       CALL MPIETE_TM_END([[U]], 1)
! TIMING:       10 CONTINUE
! TIMING-NEXT:       CALL MPIETE_TM_LOOP_END([[U]], 3, MPIETE_N3)
! TIMING:             CALL MPIETE_TM_BEGIN([[U]], 5)
! TIMING-NEXT:         D = D / 2
! TIMING-NEXT:         CALL MPIETE_TM_END([[U]], 5)
! TIMING-NEXT:       END DO

! MAP:      - {loop: 0, kind: do, procedure: relax, line: 14, parent: -1}
! MAP-NEXT: - {loop: 1, kind: do-while, procedure: relax, line: 18, parent: -1}
! MAP-NEXT: - {loop: 2, kind: do, procedure: relax, line: 21, parent: -1}
! MAP-NEXT: - {loop: 3, kind: do, procedure: relax, line: 24, parent: -1}
! MAP:      - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:   kind: compute
! MAP:        lines: [14, 16]
! MAP:        loops: [0]
! MAP-NEXT:   timed: loop
! MAP:      - id: [[U]]:1
! MAP:        lines: [17, 17]
! MAP:        timed: block
! MAP:      - id: [[U]]:2
! MAP:        lines: [18, 20]
! MAP:        timed: loop
! MAP:      - id: [[U]]:3
! MAP:        lines: [21, 23]
! MAP:        timed: loop
! MAP:      - id: [[U]]:4
! MAP-NEXT:   kind: collective
! MAP:        loops: [3]
! MAP:      - id: [[U]]:5
! MAP-NEXT:   kind: compute
! MAP:        lines: [27, 27]
! MAP:        loops: [3]
! MAP-NEXT:   timed: block

! --unit-path: the unit id (a hash of the path) and so the lines it pushes past column 72
! stay the same wherever the checkout lies.
