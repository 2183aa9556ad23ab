! The skeleton never removes what decides a trace: the loop that counts M runs to a bound read
! from an array element, and M is a later MPI count, so the statements that fill the array,
! the loop and its count stay; only the sum no call reads goes.
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      PROGRAM BOUND
      INCLUDE 'mpif.h'
      INTEGER IERR, I, CNT(4), M, JUNK
      DOUBLE PRECISION A(100)
      CALL MPI_INIT(IERR)
      JUNK = 0
      DO 10 I = 1, 4
        CNT(I) = I * 5
   10 CONTINUE
      M = 0
      DO 20 I = 1, CNT(3)
        M = M + 1
        JUNK = JUNK + I
   20 CONTINUE
      CALL MPI_BCAST(A, M, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               IERR)
      CALL MPI_FINALIZE(IERR)
      END

! CHECK:      CALL MPIETE_INIT{{.*}}
! CHECK-EMPTY:
! CHECK-NEXT:      DO 10 I = 1, 4
! CHECK-NEXT:        CNT(I) = I * 5
! CHECK-NEXT:   10 CONTINUE
! CHECK-NEXT:      M = 0
! CHECK-NEXT:      DO 20 I = 1, CNT(3)
! CHECK-NEXT:        M = M + 1
! CHECK-EMPTY:
! CHECK-NEXT:   20 CONTINUE
! CHECK-NEXT:      CALL MPIETE_BCAST({{.*}}
! CHECK-NEXT:     &               A, M, {{.*}}
