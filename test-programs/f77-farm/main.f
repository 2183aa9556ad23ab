c     f77-farm: a master/worker farm over a grid of Mandelbrot tiles in
c     fixed-form Fortran 77 (farm-2d's farm, test-programs/farm-2d):
c     task (I, J) counts the iterations of tile (I, J), so its cost
c     follows the set. The task is marked in tile.f by the comment
c     directives C$MPIETE TASK FROM MESSAGE and C$MPIETE END TASK
c     around the tile's computation (docs/taskfarm.md), which a plain
c     compiler ignores: its parameters are the work message's elements
c     that C$MPIETE TASK MESSAGE(MSG(1), MSG(2)) names in WORKER (and
c     the loop's I and J when one rank does every tile). This file
c     holds every MPI call, tile.f none.
c     usage: mpirun -np P f77-farm [ni [nj [tile [iters]]]]
c            defaults 32 32 16 4000; at most MAXT = 4096 tiles.
c     The plane [-2, 0.5] x [-1.25, 1.25] is cut into ni x nj tiles of
c     tile x tile points, numbered from 1. Rank 0 is the master: it
c     hands the tiles out row by row (I, then J) to whichever worker
c     returns first (MPI_ANY_SOURCE receives); ranks 1..P-1 are the
c     workers, and one rank alone does every tile itself. Results are
c     stored by tile, so the output does not depend on which worker ran
c     which tile, nor on P. TP_TIMING set: rank 0's
c     MPI_Init..MPI_Finalize time on stderr.
      PROGRAM F77FRM
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER MAXT
      PARAMETER (MAXT = 4096)
      INTEGER NI, NJ, NTILE, MAXIT
      COMMON /FARMP/ NI, NJ, NTILE, MAXIT
      INTEGER ITER(MAXT)
      COMMON /FARMR/ ITER
      INTEGER RANK, NPROC, IERR, PARAMS(4), NARGS, K, I, J, DONE
      INTEGER TOTAL, TPST
      INTEGER*8 SUM, WSUM
      CHARACTER*32 ARG
      DOUBLE PRECISION T0

      CALL MPI_INIT(IERR)
      T0 = MPI_WTIME()
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      IF (RANK .EQ. 0) THEN
        PARAMS(1) = 32
        PARAMS(2) = 32
        PARAMS(3) = 16
        PARAMS(4) = 4000
        NARGS = MIN(COMMAND_ARGUMENT_COUNT(), 4)
        DO 10 K = 1, NARGS
          CALL GET_COMMAND_ARGUMENT(K, ARG)
          READ (ARG, *) PARAMS(K)
   10   CONTINUE
      END IF
      CALL MPI_BCAST(PARAMS, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      NI = PARAMS(1)
      NJ = PARAMS(2)
      NTILE = PARAMS(3)
      MAXIT = PARAMS(4)
c     A tile's count is a default INTEGER: at most tile**2 * iters.
      IF (NI .LT. 1 .OR. NJ .LT. 1 .OR. NTILE .LT. 1 .OR. MAXIT .LT. 1
     &    .OR. NI * NJ .GT. MAXT
     &    .OR. DBLE(NTILE)**2 * MAXIT .GT. 2.0D9) THEN
        IF (RANK .EQ. 0) PRINT '(A,I0,A)', 'usage: f77-farm [ni [nj '//
     &    '[tile [iters]]]] (all >= 1, ni * nj <= ', MAXT,
     &    ', tile**2 * iters <= 2e9)'
        CALL MPI_FINALIZE(IERR)
        STOP 1
      END IF

      DONE = 0
      IF (RANK .EQ. 0) THEN
        CALL MASTER(NPROC)
        IF (NPROC .EQ. 1) DONE = NI * NJ
      ELSE
        CALL WORKER(DONE)
      END IF
      CALL MPI_REDUCE(DONE, TOTAL, 1, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
c       The iterations over the grid, and a sum weighted by the tile's
c       number (a result stored under the wrong tile changes it).
        SUM = 0
        WSUM = 0
        DO 20 I = 1, NI
        DO 20 J = 1, NJ
          K = (I - 1) * NJ + J
          SUM = SUM + ITER(K)
          WSUM = WSUM + K * ITER(K)
   20   CONTINUE
        PRINT '(A,I0,A,I0,A,I0,A,I0)', 'f77-farm: tiles ', NI, ' x ',
     &    NJ, ', tile ', NTILE, ', iterations at most ', MAXIT
        PRINT '(A,I0,A,I0)', 'tasks done: ', TOTAL, ' of ', NI * NJ
        PRINT '(A,I0)', 'iterations: ', SUM
        PRINT '(A,I0)', 'weighted by tile: ', WSUM
      END IF
      CALL GET_ENVIRONMENT_VARIABLE('TP_TIMING', STATUS=TPST)
      IF (RANK .EQ. 0 .AND. TPST .EQ. 0) WRITE (0, '(A,F0.6,A)')
     &  'f77-farm: elapsed ', MPI_WTIME() - T0, ' s'
      CALL MPI_FINALIZE(IERR)
      END

c     The master: the first round sends one tile to each worker (an
c     empty stop message to a worker left without one), then each
c     result that arrives, from whichever worker, is stored by its
c     tile's number and its worker gets the next tile or the stop. Tiles
c     go out in increasing (I, J), J fastest: task (I - 1) * NJ + J.
      SUBROUTINE MASTER(NPROC)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NPROC
      INTEGER MAXT, TAGWRK, TAGRES, TAGSTP
      PARAMETER (MAXT = 4096, TAGWRK = 1, TAGRES = 2, TAGSTP = 3)
      INTEGER NI, NJ, NTILE, MAXIT
      COMMON /FARMP/ NI, NJ, NTILE, MAXIT
      INTEGER ITER(MAXT)
      COMMON /FARMR/ ITER
      INTEGER NEXT, N, NOUT, W, I, J, IERR, MSG(2)
      INTEGER STAT(MPI_STATUS_SIZE), RES(2)

      N = NI * NJ
      IF (NPROC .EQ. 1) THEN
C$MPIETE TASK MESSAGE(I, J)
        DO 10 I = 1, NI
        DO 10 J = 1, NJ
          CALL MANTIL(I, J, ITER((I - 1) * NJ + J))
   10   CONTINUE
        RETURN
      END IF
      NEXT = 0
      NOUT = 0
      DO 20 W = 1, NPROC - 1
        IF (NEXT .LT. N) THEN
          MSG(1) = NEXT / NJ + 1
          MSG(2) = MOD(NEXT, NJ) + 1
          NEXT = NEXT + 1
          CALL MPI_SEND(MSG, 2, MPI_INTEGER, W, TAGWRK, MPI_COMM_WORLD,
     &                  IERR)
          NOUT = NOUT + 1
        ELSE
          CALL MPI_SEND(MSG, 0, MPI_INTEGER, W, TAGSTP, MPI_COMM_WORLD,
     &                  IERR)
        END IF
   20 CONTINUE
   30 IF (NOUT .GT. 0) THEN
        CALL MPI_RECV(RES, 2, MPI_INTEGER, MPI_ANY_SOURCE, TAGRES,
     &                MPI_COMM_WORLD, STAT, IERR)
        NOUT = NOUT - 1
        ITER(RES(1)) = RES(2)
        W = STAT(MPI_SOURCE)
        IF (NEXT .LT. N) THEN
          MSG(1) = NEXT / NJ + 1
          MSG(2) = MOD(NEXT, NJ) + 1
          NEXT = NEXT + 1
          CALL MPI_SEND(MSG, 2, MPI_INTEGER, W, TAGWRK, MPI_COMM_WORLD,
     &                  IERR)
          NOUT = NOUT + 1
        ELSE
          CALL MPI_SEND(MSG, 0, MPI_INTEGER, W, TAGSTP, MPI_COMM_WORLD,
     &                  IERR)
        END IF
        GOTO 30
      END IF
      END

c     A worker: receives tiles (I, J) until the stop message, computes
c     each (MANTIL, tile.f) and returns (task number, iterations); DONE
c     counts its tiles.
      SUBROUTINE WORKER(DONE)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER DONE
      INTEGER TAGWRK, TAGRES, TAGSTP
      PARAMETER (TAGWRK = 1, TAGRES = 2, TAGSTP = 3)
      INTEGER NI, NJ, NTILE, MAXIT
      COMMON /FARMP/ NI, NJ, NTILE, MAXIT
      INTEGER MSG(2), IERR, STAT(MPI_STATUS_SIZE), RES(2)

      DONE = 0
C$MPIETE TASK MESSAGE(MSG(1), MSG(2))
   10 CALL MPI_RECV(MSG, 2, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
     &              STAT, IERR)
      IF (STAT(MPI_TAG) .EQ. TAGSTP) RETURN
      RES(1) = (MSG(1) - 1) * NJ + MSG(2)
      CALL MANTIL(MSG(1), MSG(2), RES(2))
      CALL MPI_SEND(RES, 2, MPI_INTEGER, 0, TAGRES, MPI_COMM_WORLD,
     &              IERR)
      DONE = DONE + 1
      GOTO 10
      END
