C The task marker in fixed form (docs/taskfarm.md): `C$MPIETE TASK(...)` in column 1; the
C hooks are upper case from column 7 like the body, a hook line past column 72 goes on
C continuation lines (column 6), and a body may hold nested DO loops that share one labelled
C CONTINUE and GOTOs that stay inside it. The variant compiles.
C REQUIRES: fortran
C RUN: %mpiete-instrument --variant=timing %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines --strict-whitespace %s
C RUN: %mpif90-syntax %t.f
      SUBROUTINE TILE(I, J, NI, NJ, R)
      IMPLICIT NONE
      INTEGER I, J, NI, NJ, K, M
      DOUBLE PRECISION R
C CHECK:      IMPLICIT NONE
C CHECK-NEXT:      INTEGER MPIETE_TASK_BEGIN
      R = 0
C$MPIETE TASK(I + NI * (J - 1), MOD(I * 7 + J * 13, NI * NJ + 1))
      DO 10 K = 1, NI
         DO 10 M = 1, NJ
            IF (R .GT. 1.0D9) GOTO 20
            R = R + DBLE(K * M)
   10 CONTINUE
   20 R = R / NI
*$MPIETE END TASK
C CHECK:C$MPIETE TASK(I + NI * (J - 1), MOD(I * 7 + J * 13, NI * NJ + 1))
C CHECK-NEXT:      IF (MPIETE_TASK_BEGIN(2, (/INT(I + NI * (J - 1), 8), INT(MOD(I * 7
C CHECK-NEXT:     & + J * 13, NI * NJ + 1), 8)/)) .NE. 0) THEN
C CHECK-NEXT:      DO 10 K = 1, NI
C CHECK:   20 R = R / NI
C CHECK-NEXT:      CALL MPIETE_TASK_END()
C CHECK-NEXT:      END IF
C CHECK-NEXT:*$MPIETE END TASK
      END
