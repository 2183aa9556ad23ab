C     fboz.f: gfortran accepts it with -fallow-invalid-boz (a BOZ constant in a PRINT), Flang
C     does not: mpiete-fc builds it natively with a warning, and its MPI calls reach the
C     runtime through the probes' Fortran MPI symbols. Its task directives stay comments
C     (the warning says so).
      PROGRAM FBOZ
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, S, R, STEP, V
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      S = 0
      DO 10 STEP = 1, 4
        V = RANK + STEP
        CALL MPI_ALLREDUCE(V, R, 1, MPI_INTEGER, MPI_SUM,
     &                     MPI_COMM_WORLD, IERR)
C$MPIETE TASK(STEP)
        S = S + R
C$MPIETE END TASK
   10 CONTINUE
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
        PRINT '(A,I0,A,I0)', 'fboz: size=', NP, ' sum=', S
        PRINT *, Z'FF'
      END IF
      CALL MPI_FINALIZE(IERR)
      END
