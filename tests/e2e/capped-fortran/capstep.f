C     The communication of capmain.f's loop: a ring sendrecv every step and an allreduce
C     every second one; WORK computes only.
      SUBROUTINE STEP(X, T)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      DOUBLE PRECISION X, Y, S
      INTEGER T, RANK, NP, IERR
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      S = 0
      CALL MPI_SENDRECV(X, 1, MPI_DOUBLE_PRECISION, MOD(RANK+1, NP),
     &     0, Y, 1, MPI_DOUBLE_PRECISION, MOD(RANK+NP-1, NP), 0,
     &     MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      IF (MOD(T, 2) .EQ. 1) CALL MPI_ALLREDUCE(Y, S, 1,
     &     MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, IERR)
      CALL WORK(Y, T)
      X = Y + S
      END

      SUBROUTINE WORK(X, T)
      IMPLICIT NONE
      DOUBLE PRECISION X
      INTEGER T, K
      DO 10 K = 1, 2000
         X = X * 0.999D0 + MOD(T, 7)
   10 CONTINUE
      END
