C     The capped timing probe on a Fortran loop (tests/e2e/capped_probe.py): fixed form,
C     IMPLICIT NONE, mpif.h, a labelled DO loop of STEPS steps, each a ring sendrecv and
C     every second one an allreduce. Usage: mpirun -np N ./capf STEPS. Prints "ran N of STEPS".
      PROGRAM CAPF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, T, STEPS, RAN
      DOUBLE PRECISION X, Y, S
      CHARACTER*16 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      STEPS = 100
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
         CALL GET_COMMAND_ARGUMENT(1, ARG)
         READ (ARG, *) STEPS
      END IF
      RAN = 0
      X = RANK
      S = 0
      DO 10 T = 0, STEPS - 1
         CALL MPI_SENDRECV(X, 1, MPI_DOUBLE_PRECISION, MOD(RANK+1, NP),
     &        0, Y, 1, MPI_DOUBLE_PRECISION, MOD(RANK+NP-1, NP), 0,
     &        MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         IF (MOD(T, 2) .EQ. 1) CALL MPI_ALLREDUCE(Y, S, 1,
     &        MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, IERR)
         X = X + S
         RAN = RAN + 1
   10 CONTINUE
      IF (RANK .EQ. 0) PRINT '(A,I0,A,I0)', 'ran ', RAN, ' of ', STEPS
      CALL MPI_FINALIZE(IERR)
      END
