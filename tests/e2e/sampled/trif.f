C     The sampled probe test's fixed-form kernel: the same triangle, F77 style, with the
C     inner and outer DO loops ending on their own labelled CONTINUE and a COMMON counter
C     (row I costs I + 20000 inner steps).
      SUBROUTINE TRIF(N, S)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION S, R
      INTEGER I, J
      INTEGER*8 NRUNF
      COMMON /CNT/ NRUNF
      S = 0D0
      DO 20 I = 1, N
         R = 0D0
         DO 10 J = 1, I + 20000
            R = R + DBLE(MOD(I * 31 + J, 7)) * 0.5D0
   10    CONTINUE
         S = S + R
         NRUNF = NRUNF + 1
   20 CONTINUE
      END
