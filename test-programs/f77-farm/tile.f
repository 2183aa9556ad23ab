c     One task of f77-farm: the Mandelbrot iterations of tile (I, J),
c     1-based, of the plane [-2, 0.5] x [-1.25, 1.25] cut into NI x NJ
c     tiles of NTILE x NTILE points (COMMON /FARMP/, set by main.f), at
c     most MAXIT iterations a point. No MPI here. The directives
c     C$MPIETE TASK FROM MESSAGE and C$MPIETE END TASK mark the task's
c     body for mpiete (docs/taskfarm.md): its parameters are the
c     elements the caller's C$MPIETE TASK MESSAGE named (the tile's I
c     and J); to a plain compiler they are comments. A probe that skips
c     the task leaves COUNT at 0.
      SUBROUTINE MANTIL(I, J, COUNT)
      IMPLICIT NONE
      INTEGER I, J
      INTEGER COUNT
      INTEGER NI, NJ, NTILE, MAXIT
      COMMON /FARMP/ NI, NJ, NTILE, MAXIT
      INTEGER A, B, K, TOTAL
      DOUBLE PRECISION CR, CI, ZR, ZI, T

      TOTAL = 0
C$MPIETE TASK FROM MESSAGE
c     Both point loops end on label 30; a point that escapes leaves the
c     iteration loop for label 25 with K - 1 iterations done (K - 1 =
c     MAXIT when the loop runs out).
      DO 30 A = 1, NTILE
      DO 30 B = 1, NTILE
        CR = -2.0D0 + 2.5D0 * DBLE((I - 1) * NTILE + A - 1) /
     &       DBLE(NI * NTILE)
        CI = -1.25D0 + 2.5D0 * DBLE((J - 1) * NTILE + B - 1) /
     &       DBLE(NJ * NTILE)
        ZR = 0.0D0
        ZI = 0.0D0
        DO 20 K = 1, MAXIT
          IF (ZR * ZR + ZI * ZI .GT. 4.0D0) GOTO 25
          T = ZR * ZR - ZI * ZI + CR
          ZI = 2.0D0 * ZR * ZI + CI
          ZR = T
   20   CONTINUE
   25   TOTAL = TOTAL + (K - 1)
   30 CONTINUE
C$MPIETE END TASK
      COUNT = TOTAL
      END
