! COMMON blocks, EQUIVALENCE, DATA and statement functions are declarations: the counter
! declaration goes after IMPLICIT, before them; compute blocks use COMMON variables freely.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --variant=timing --unit-path=common-equivalence.f %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      SUBROUTINE ACCUM(N)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      INCLUDE 'mpif.h'
      PARAMETER (M = 16)
      COMMON /GRID/ X(M), Y(M)
      DIMENSION Z(2*M)
      EQUIVALENCE (Z(1), X(1))
      DATA ALPHA /0.5D0/
      SQ(T) = T * T
      DO 10 I = 1, M
        Y(I) = SQ(X(I)) * ALPHA
   10 CONTINUE
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, Y, M, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, MPI_COMM_WORLD, IERR)
      Z(N) = Y(1)
      END

! CHECK:            IMPLICIT DOUBLE PRECISION (A-H, O-Z)
! CHECK-NEXT:       INTEGER*8 MPIETE_N0
! CHECK-NEXT:       INCLUDE 'mpif.h'
! CHECK:            SQ(T) = T * T
! CHECK-NEXT:       MPIETE_N0 = 0
! CHECK-NEXT:       CALL MPIETE_TM_BEGIN([[U:-?[0-9]+]], 0)
! CHECK-NEXT:       DO 10 I = 1, M
! CHECK-NEXT:         MPIETE_N0 = MPIETE_N0 + 1
! CHECK-NEXT:         Y(I) = SQ(X(I)) * ALPHA
! CHECK-NEXT:    10 CONTINUE
! CHECK-NEXT:       CALL MPIETE_TM_LOOP_END([[U]], 0, MPIETE_N0)
! CHECK-NEXT:       CALL MPIETE_ALLREDUCE([[U]], 1,
! CHECK-NEXT:      &                   MPI_IN_PLACE, Y, M, MPI_DOUBLE_PRECISION,
! CHECK-NEXT:      &                   MPI_SUM, MPI_COMM_WORLD, IERR)
! CHECK-NEXT:       CALL MPIETE_TM_BEGIN([[U]], 2)
! CHECK-NEXT:       Z(N) = Y(1)
! CHECK-NEXT:       CALL MPIETE_TM_END([[U]], 2)
! CHECK-NEXT:       END

! --unit-path: the unit id (a hash of the path) and so the lines it pushes past column 72
! stay the same wherever the checkout lies.
