C Task directives come in pairs, without nesting (docs/taskfarm.md); a fixed-form directive
C starts in column 1 (C, c, * or !).
C REQUIRES: fortran
C RUN: not %mpiete-instrument --variant=timing %s -- %mpi-fflags 2>&1 | FileCheck %s
C RUN: sed -e 's/^C.MPIETE TASK.*/C/' %s > %t.f
C RUN: not %mpiete-instrument --variant=timing %t.f -- %mpi-fflags 2>&1 | FileCheck --check-prefix=ALONE %s
C RUN: sed -e 's/^C.MPIETE END TASK.*/C/' -e 's/^C.MPIETE TASK(J)/C/' %s > %t2.f
C RUN: not %mpiete-instrument --variant=timing %t2.f -- %mpi-fflags 2>&1 | FileCheck --check-prefix=OPEN %s
      SUBROUTINE PAIRS(A, N)
      INTEGER N, J, K
      DOUBLE PRECISION A(N)
C$MPIETE TASK(N)
      DO 10 J = 1, N
C$MPIETE TASK(J)
      K = J
   10 A(J) = A(J) + K
C$MPIETE END TASK
C CHECK: task-unpaired.f:[[@LINE-4]]:1: error: a task inside the task opened at line [[@LINE-6]]: tasks do not nest [mpiete-task]
C ALONE: {{.*}}.f:[[@LINE-2]]:1: error: 'end task' without a 'task' before it [mpiete-task]
C OPEN: {{.*}}.f:[[@LINE-8]]:1: error: this task has no 'end task' [mpiete-task]
      END
