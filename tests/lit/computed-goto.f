! Jumps: GOTO, computed GOTO, arithmetic IF and alternate returns end compute blocks, and a
! labelled statement they jump to starts a new one. A jump target that is CONTINUE is no work;
! the block after it starts after it, where every path into it runs the begin hook. ENTRY
! starts a block too. The timing hooks stay balanced on every path; a jump target that does
! work (20 X = X - 1) keeps its label and stays outside every block (docs/fortran.md).
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      SUBROUTINE STEPS(K, X, *)
      INCLUDE 'mpif.h'
      INTEGER K, IERR
      DOUBLE PRECISION X
      X = X + 1
      GO TO (10, 20) K
      X = 0
   10 CONTINUE
      X = X * 2
      IF (X - 100) 20, 20, 30
   20 X = X - 1
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      RETURN
   30 CONTINUE
      RETURN 1
      ENTRY RESTEP(K, X, *)
      X = 1
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      END

! CHECK:            CALL MPIETE_TM_BEGIN([[U:-?[0-9]+]], 0)
! CHECK-NEXT:       X = X + 1
! CHECK-NEXT:       CALL MPIETE_TM_END([[U]], 0)
! CHECK-NEXT:       GO TO (10, 20) K
! CHECK-NEXT:       CALL MPIETE_TM_BEGIN([[U]], 1)
! CHECK-NEXT:       X = 0
! CHECK-NEXT:       CALL MPIETE_TM_END([[U]], 1)
! CHECK-NEXT:    10 CONTINUE
! CHECK-NEXT:       CALL MPIETE_TM_BEGIN([[U]], 2)
! CHECK-NEXT:       X = X * 2
! CHECK-NEXT:       CALL MPIETE_TM_END([[U]], 2)
! CHECK-NEXT:       IF (X - 100) 20, 20, 30
! CHECK-NEXT:    20 X = X - 1
! CHECK-NEXT:       CALL MPIETE_BARRIER([[U]], 3, MPI_COMM_WORLD, IERR)
! CHECK-NEXT:       RETURN
! CHECK-NEXT:    30 CONTINUE
! CHECK-NEXT:       RETURN 1
! CHECK-NEXT:       ENTRY RESTEP(K, X, *)
! CHECK-NEXT:       CALL MPIETE_TM_BEGIN([[U]], 4)
! CHECK-NEXT:       X = 1
! CHECK-NEXT:       CALL MPIETE_TM_END([[U]], 4)
! CHECK-NEXT:       CALL MPIETE_BARRIER([[U]], 5, MPI_COMM_WORLD, IERR)
! CHECK-NEXT:       END
