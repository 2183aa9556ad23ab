C     Segments: loops made by a backward GOTO, Fortran 77's WHILE. The head's label moves onto
C     the timing probe's iteration hook, which leaves the loop by jumping to the statement
C     after it (its label, or a new label's CONTINUE): loop 10 (an IF construct whose block
C     jumps back; MPI inside), loop 20 (left by GOTO 30; its MPI calls in EXCHANGE, another
C     file's: the opaque hook), loop 40 (a logical IF jumps back: it falls through). Loop 50
C     is left by RETURN: no hooks.
C REQUIRES: fortran
C RUN: %mpiete-instrument %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
C RUN: %mpif90-syntax %t.f
      SUBROUTINE SOLVE(A, N, MAXIT, TOL)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N, MAXIT, IT, IERR
      DOUBLE PRECISION A(N), R, G, TOL
      IT = 0
      G = 1D30
   10 IF (IT .LT. MAXIT .AND. G .GE. TOL) THEN
         IT = IT + 1
         CALL RELAX(A, N, R)
         CALL MPI_ALLREDUCE(R, G, 1, MPI_DOUBLE_PRECISION, MPI_MAX,
     &        MPI_COMM_WORLD, IERR)
         GOTO 10
      END IF
      IT = 0
   20 CONTINUE
      CALL EXCHANGE(A, N)
      IT = IT + 1
      IF (IT .GE. MAXIT) GOTO 30
      GOTO 20
   30 CONTINUE
      IT = 0
   40 CONTINUE
      IT = IT + 1
      CALL EXCHANGE(A, N)
      IF (IT .LT. MAXIT) GOTO 40
      IT = 0
   50 CONTINUE
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (IT .GT. 5) RETURN
      IT = IT + 1
      GOTO 50
      END
C CHECK-LABEL:       SUBROUTINE SOLVE(A, N, MAXIT, TOL)
C CHECK-NEXT:       IMPLICIT NONE
C CHECK-NEXT:       INTEGER MPIETE_ITER_CAPPED
C CHECK-NEXT:       INTEGER MPIETE_ITER_OPAQUE_CAPPED
C CHECK-NEXT:       INCLUDE 'mpif.h'
C CHECK-NEXT:       INTEGER N, MAXIT, IT, IERR
C CHECK-NEXT:       DOUBLE PRECISION A(N), R, G, TOL
C CHECK-NEXT:       IT = 0
C CHECK-NEXT:       G = 1D30
C CHECK-NEXT:    10 IF (MPIETE_ITER_CAPPED({{-?[0-9]+}}, 0) .NE. 0) GOTO 99999
C CHECK-NEXT:       IF (IT .LT. MAXIT .AND. G .GE. TOL) THEN
C CHECK-NEXT:          IT = IT + 1
C CHECK-NEXT:          CALL RELAX(A, N, R)
C CHECK-NEXT:          CALL MPIETE_ALLREDUCE({{-?[0-9]+}}, 3,
C CHECK-NEXT:      &                      R, G, 1, MPI_DOUBLE_PRECISION, MPI_MAX,
C CHECK-NEXT:      &        MPI_COMM_WORLD, IERR)
C CHECK-NEXT:          GOTO 10
C CHECK-NEXT:       END IF
C CHECK-NEXT: 99999 CONTINUE
C CHECK-NEXT:       IT = 0
C CHECK-NEXT:    20 IF (MPIETE_ITER_OPAQUE_CAPPED({{-?[0-9]+}}, 1) .NE. 0) GOTO 30
C CHECK-NEXT:       CONTINUE
C CHECK-NEXT:       CALL EXCHANGE(A, N)
C CHECK-NEXT:       IT = IT + 1
C CHECK-NEXT:       IF (IT .GE. MAXIT) GOTO 30
C CHECK-NEXT:       GOTO 20
C CHECK-NEXT:    30 CONTINUE
C CHECK-NEXT:       IT = 0
C CHECK-NEXT:    40 IF (MPIETE_ITER_OPAQUE_CAPPED({{-?[0-9]+}}, 2) .NE. 0) GOTO 99998
C CHECK-NEXT:       CONTINUE
C CHECK-NEXT:       IT = IT + 1
C CHECK-NEXT:       CALL EXCHANGE(A, N)
C CHECK-NEXT:       IF (IT .LT. MAXIT) GOTO 40
C CHECK-NEXT: 99998 CONTINUE
C CHECK-NEXT:       IT = 0
C CHECK-NEXT:    50 CONTINUE
C CHECK-NEXT:       CALL MPIETE_BARRIER({{-?[0-9]+}}, 4, MPI_COMM_WORLD, IERR)
C CHECK-NEXT:       IF (IT .GT. 5) RETURN
C CHECK-NEXT:       IT = IT + 1
C CHECK-NEXT:       GOTO 50
C CHECK-NEXT:       END
