! Segments in fixed form: DO loops with MPI calls get IF (MPIETE_ITER_CAPPED(...) .NE. 0) EXIT at
! the top of their body (the cap may leave them; its type is declared) and CALL MPIETE_LOOP_EXIT
! after them; a nest of pure computation only the sampling hooks (sampled-loops.f). An inner DO
! sharing a labelled end: no exit hook, and CALL MPIETE_ITER (EXIT would leave the outer loop too).
! REQUIRES: fortran
! RUN: %mpiete-instrument --sample-loops --variant=timing --unit-path=segments.f %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
! RUN: %mpiete-instrument --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
      SUBROUTINE JACOBI(A, N, PEER, NITER)
      INCLUDE 'mpif.h'
      INTEGER N, PEER, NITER, I, J, IT, IERR
      DOUBLE PRECISION A(N, N)
      DO 20 J = 1, N
      DO 20 I = 1, N
        A(I, J) = A(I, J) * 0.5D0
   20 CONTINUE
      DO 10 J = 1, N
      DO 10 I = 1, N
        CALL MPI_SEND(A(I, J), 1, MPI_DOUBLE_PRECISION, PEER, I,
     &                MPI_COMM_WORLD, IERR)
   10 CONTINUE
      DO IT = 1, NITER
        CALL MPI_ALLREDUCE(MPI_IN_PLACE, A, 1, MPI_DOUBLE_PRECISION,
     &                     MPI_SUM, MPI_COMM_WORLD, IERR)
      END DO
      END

! CHECK:            SUBROUTINE JACOBI(A, N, PEER, NITER)
! CHECK-NEXT:       INTEGER MPIETE_ITER_CAPPED
! CHECK-NEXT:       INTEGER MPIETE_SAMPLE_SKIP
! CHECK-NEXT:       INTEGER*4 MPIETE_SAMPLE_ON
! CHECK-NEXT:       COMMON /MPIETE_SMPL/ MPIETE_SAMPLE_ON
! CHECK-NEXT:       INCLUDE 'mpif.h'
! CHECK:            DO 20 J = 1, N
! CHECK-NEXT:       IF (MPIETE_SAMPLE_ON .NE. 0) THEN
! CHECK-NEXT:         IF (MPIETE_SAMPLE_SKIP([[U:-?[0-9]+]], 0) .EQ. 1) CYCLE
! CHECK-NEXT:       END IF
! CHECK-NEXT:       DO 20 I = 1, N
! CHECK-NEXT:         A(I, J) = A(I, J) * 0.5D0
! CHECK-NEXT:    20 CONTINUE
! CHECK-NEXT:       CALL MPIETE_SAMPLE_EXIT([[U]], 0)
! CHECK-NEXT:       DO 10 J = 1, N
! CHECK-NEXT:       IF (MPIETE_ITER_CAPPED([[U]], 1) .NE. 0) EXIT
! CHECK-NEXT:       DO 10 I = 1, N
! CHECK-NEXT:         CALL MPIETE_ITER([[U]], 2)
! CHECK-NEXT:         CALL MPIETE_SEND([[U]], 3,
! CHECK-NEXT:      &                A(I, J), 1, MPI_DOUBLE_PRECISION, PEER, I,
! CHECK-NEXT:      &                MPI_COMM_WORLD, IERR)
! CHECK-NEXT:    10 CONTINUE
! CHECK-NEXT:       CALL MPIETE_LOOP_EXIT([[U]], 1)
! CHECK-NEXT:       DO IT = 1, NITER
! CHECK-NEXT:         IF (MPIETE_ITER_CAPPED([[U]], 5) .NE. 0) EXIT
! CHECK-NEXT:         CALL MPIETE_ALLREDUCE([[U]], 6,
! CHECK-NEXT:      &                      MPI_IN_PLACE, A, 1, MPI_DOUBLE_PRECISION,
! CHECK-NEXT:      &                     MPI_SUM, MPI_COMM_WORLD, IERR)
! CHECK-NEXT:       END DO
! CHECK-NEXT:       CALL MPIETE_LOOP_EXIT([[U]], 5)
! CHECK-NEXT:       END

! MAP:      loops:
! MAP-NEXT:   - {loop: 0, kind: do, procedure: jacobi, line: 17, parent: -1}
! MAP-NEXT:   - {loop: 1, kind: do, procedure: jacobi, line: 18, parent: 0}
! MAP-NEXT:   - {loop: 2, kind: do, procedure: jacobi, line: 22, parent: -1}
! MAP:      - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:   kind: loop
! MAP:        lines: [13, 16]
! MAP:        loops: []
! MAP:      - id: [[U]]:1
! MAP-NEXT:   kind: loop
! MAP:        lines: [17, 21]
! MAP:        loops: []
! MAP:      - id: [[U]]:2
! MAP-NEXT:   kind: loop
! MAP:        loops: [0]
! MAP-NOT:  kind: compute

! --unit-path: the unit id (a hash of the path) and so the lines it pushes past column 72
! stay the same wherever the checkout lies.
