C     The capped timing probe on a Fortran loop whose MPI calls are in another file
C     (tests/e2e/capped_probe.py): the labelled DO loop calls the external subroutine STEP of
C     capstep.f, which the unit cannot see, so mpiete-fc gives the loop the opaque hooks; a
C     second loop calls only WORK (computation, also external): never capped. Usage:
C     mpirun -np N ./capmain STEPS. Prints "ran N of STEPS" and "work N of STEPS".
      PROGRAM CAPMAIN
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, T, STEPS, RAN, DONE
      DOUBLE PRECISION X, S
      CHARACTER*16 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      STEPS = 100
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
         CALL GET_COMMAND_ARGUMENT(1, ARG)
         READ (ARG, *) STEPS
      END IF
      RAN = 0
      X = RANK
      DO 10 T = 0, STEPS - 1
         CALL STEP(X, T)
         RAN = RAN + 1
   10 CONTINUE
      DONE = 0
      DO 20 T = 0, STEPS - 1
         CALL WORK(X, T)
         DONE = DONE + 1
   20 CONTINUE
      CALL MPI_ALLREDUCE(X, S, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT '(A,I0,A,I0)', 'ran ', RAN, ' of ', STEPS
      IF (RANK .EQ. 0) PRINT '(A,I0,A,I0)', 'work ', DONE, ' of ', STEPS
      CALL MPI_FINALIZE(IERR)
      END
