! The skeleton keeps a call to a procedure of another file (it may communicate, and may read
! anything it is given), with the statements that compute its arguments; a local variable only
! printed goes.
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      PROGRAM OTHER
      INCLUDE 'mpif.h'
      INTEGER IERR, N, M
      DOUBLE PRECISION A(10)
      CALL MPI_INIT(IERR)
      N = 10
      M = 3
      A(2) = 1.0D0
      CALL EXCHANGE(A, N)
      PRINT *, M
      CALL MPI_FINALIZE(IERR)
      END

! CHECK:      N = 10
! CHECK-EMPTY:
! CHECK-NEXT:      A(2) = 1.0D0
! CHECK-NEXT:      CALL EXCHANGE(A, N)
! CHECK-EMPTY:
! CHECK-NEXT:      CALL MPIETE_FINALIZE{{.*}}
