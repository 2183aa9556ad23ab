C     Segments, fixed form: sampled loops of Fortran 77 (sampled-loops.f90 has the rules). The
C     outer loop of a nest sharing its labelled end is sampled, its exit hook after the shared
C     terminal statement; an inner loop sharing the end of an enclosing loop is not (there is
C     no place after it only); a GOTO to the loop's own terminal statement stays in it; an
C     arithmetic IF or an END= branch out of it does not; a hook that would pass column 72
C     starts in column 7. COMMON variables are data like any other.
C REQUIRES: fortran
C RUN: %mpiete-instrument --sample-loops --variant=timing %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
C RUN: %mpif90-syntax %t.f
C RUN: %mpiete-instrument %s -- %mpi-fflags | FileCheck --check-prefix=TRACE %s
      PROGRAM SMPL
      INCLUDE 'mpif.h'
      INTEGER N, I, J, IERR
      PARAMETER (N = 16)
      DOUBLE PRECISION A(N, N), W
      COMMON /COEF/ W
      CALL MPI_INIT(IERR)
      W = 0.5D0
      DO 100 J = 1, N
      DO 100 I = 1, N
        A(I, J) = I + J
  100 CONTINUE
      CALL RELAX(A, N, 3)
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE RELAX(A, N, M)
      INTEGER N, M, I, J, K
      DOUBLE PRECISION A(N, N), W
      COMMON /COEF/ W
      DO 10 J = 1, N
      DO 10 I = 1, N
        A(I, J) = A(I, J) * W
   10 CONTINUE
      DO 20 K = 1, M
        CALL HALO(A, N)
      DO 20 J = 1, N
      DO 25 I = 1, N
        A(I, J) = A(I, J) + W
   25 CONTINUE
   20 CONTINUE
      DO 40 J = 2, N
         DO 30 I = 1, N, 2
            IF (A(I, J) .LT. 0) GOTO 40
            A(I, J) = A(I, J - 1) * W
   30    CONTINUE
   40 CONTINUE
      DO 60 J = 1, N
         DO 50 I = 1, N
            IF (A(I, J)) 70, 50, 50
   50    CONTINUE
   60 CONTINUE
   70 CONTINUE
      DO 80 J = 1, N
         DO 80 I = 1, N
            READ (5, *, END=90) A(I, J)
   80 CONTINUE
   90 CONTINUE
      IF (M .GT. 1) THEN
         IF (N .GT. 2) THEN
            IF (W .GT. 0) THEN
                           DO 95 K = 1, M
                              DO 95 J = 1, N
                                 A(1, J) = A(1, J) + K
   95                      CONTINUE
            END IF
         END IF
      END IF
      END

C CHECK-LABEL:       PROGRAM SMPL
C CHECK-NEXT:       INTEGER MPIETE_SAMPLE_SKIP
C CHECK-NEXT:       INTEGER*4 MPIETE_SAMPLE_ON
C CHECK-NEXT:       COMMON /MPIETE_SMPL/ MPIETE_SAMPLE_ON
C CHECK-NEXT:       INCLUDE 'mpif.h'
C CHECK-NEXT:       INTEGER N, I, J, IERR
C CHECK-NEXT:       PARAMETER (N = 16)
C CHECK-NEXT:       DOUBLE PRECISION A(N, N), W
C CHECK-NEXT:       COMMON /COEF/ W
C CHECK-NEXT:       CALL MPIETE_INIT([[U:-?[0-9]+]], 0, IERR)
C CHECK-NEXT:       W = 0.5D0
C CHECK-NEXT:       DO 100 J = 1, N
C CHECK-NEXT:       IF (MPIETE_SAMPLE_ON .NE. 0) THEN
C CHECK-NEXT:         IF (MPIETE_SAMPLE_SKIP([[U]], 1) .EQ. 1) CYCLE
C CHECK-NEXT:       END IF
C CHECK-NEXT:       DO 100 I = 1, N
C CHECK-NEXT:         A(I, J) = I + J
C CHECK-NEXT:   100 CONTINUE
C CHECK-NEXT:       CALL MPIETE_SAMPLE_EXIT([[U]], 1)
C CHECK-NEXT:       CALL RELAX(A, N, 3)
C CHECK-NEXT:       CALL MPIETE_FINALIZE([[U]], 2, IERR)
C CHECK-NEXT:       END
C CHECK-EMPTY:
C CHECK-NEXT:       SUBROUTINE RELAX(A, N, M)
C CHECK-NEXT:       INTEGER MPIETE_SAMPLE_SKIP
C CHECK-NEXT:       INTEGER*4 MPIETE_SAMPLE_ON
C CHECK-NEXT:       COMMON /MPIETE_SMPL/ MPIETE_SAMPLE_ON
C CHECK-NEXT:       INTEGER N, M, I, J, K
C CHECK-NEXT:       DOUBLE PRECISION A(N, N), W
C CHECK-NEXT:       COMMON /COEF/ W
C CHECK-NEXT:       DO 10 J = 1, N
C CHECK-NEXT:       IF (MPIETE_SAMPLE_ON .NE. 0) THEN
C CHECK-NEXT:         IF (MPIETE_SAMPLE_SKIP([[U]], 3) .EQ. 1) CYCLE
C CHECK-NEXT:       END IF
C CHECK-NEXT:       DO 10 I = 1, N
C CHECK-NEXT:         A(I, J) = A(I, J) * W
C CHECK-NEXT:    10 CONTINUE
C CHECK-NEXT:       CALL MPIETE_SAMPLE_EXIT([[U]], 3)
C CHECK-NEXT:       DO 20 K = 1, M
C CHECK-NEXT:         CALL HALO(A, N)
C CHECK-NEXT:       DO 20 J = 1, N
C CHECK-NEXT:       DO 25 I = 1, N
C CHECK-NEXT:         A(I, J) = A(I, J) + W
C CHECK-NEXT:    25 CONTINUE
C CHECK-NEXT:    20 CONTINUE
C CHECK-NEXT:       DO 40 J = 2, N
C CHECK-NEXT:          IF (MPIETE_SAMPLE_ON .NE. 0) THEN
C CHECK-NEXT:            IF (MPIETE_SAMPLE_SKIP([[U]], 4) .EQ. 1) CYCLE
C CHECK-NEXT:          END IF
C CHECK-NEXT:          DO 30 I = 1, N, 2
C CHECK-NEXT:             IF (A(I, J) .LT. 0) GOTO 40
C CHECK-NEXT:             A(I, J) = A(I, J - 1) * W
C CHECK-NEXT:    30    CONTINUE
C CHECK-NEXT:    40 CONTINUE
C CHECK-NEXT:       CALL MPIETE_SAMPLE_EXIT([[U]], 4)
C CHECK-NEXT:       DO 60 J = 1, N
C CHECK-NEXT:          DO 50 I = 1, N
C CHECK-NEXT:             IF (A(I, J)) 70, 50, 50
C CHECK-NEXT:    50    CONTINUE
C CHECK-NEXT:    60 CONTINUE
C CHECK-NEXT:    70 CONTINUE
C CHECK-NEXT:       DO 80 J = 1, N
C CHECK-NEXT:          DO 80 I = 1, N
C CHECK-NEXT:             READ (5, *, END=90) A(I, J)
C CHECK-NEXT:    80 CONTINUE
C CHECK-NEXT:    90 CONTINUE
C CHECK-NEXT:       IF (M .GT. 1) THEN
C CHECK-NEXT:          IF (N .GT. 2) THEN
C CHECK-NEXT:             IF (W .GT. 0) THEN
C CHECK-NEXT:                            DO 95 K = 1, M
C CHECK-NEXT:       IF (MPIETE_SAMPLE_ON .NE. 0) THEN
C CHECK-NEXT:         IF (MPIETE_SAMPLE_SKIP([[U]], 5) .EQ. 1) CYCLE
C CHECK-NEXT:       END IF
C CHECK-NEXT:                               DO 95 J = 1, N
C CHECK-NEXT:                                  A(1, J) = A(1, J) + K
C CHECK-NEXT:    95                      CONTINUE
C CHECK-NEXT:                            CALL MPIETE_SAMPLE_EXIT([[U]], 5)
C CHECK-NEXT:             END IF
C CHECK-NEXT:          END IF
C CHECK-NEXT:       END IF
C CHECK-NEXT:       END

C TRACE-LABEL: PROGRAM SMPL
C TRACE-NOT:   MPIETE_SAMPLE
C TRACE:       CALL MPIETE_FINALIZE({{.*}}
C TRACE-NOT:   MPIETE_SAMPLE
C TRACE:       SUBROUTINE RELAX(A, N, M)
C TRACE-NOT:   MPIETE_SAMPLE
C TRACE:       95{{ +}}CONTINUE
