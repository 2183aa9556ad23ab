! The skeleton keeps what feeds an MPI count through a COMMON block: the call of a procedure
! of the same file that sets it stays; the other member of the block, which no MPI call reads,
! is not needed (members are told apart by their place in the block).
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      SUBROUTINE SETN(K)
      INTEGER K, N, JUNK
      COMMON /SIZES/ N, JUNK
      N = 2 * K
      JUNK = K * K
      END

      PROGRAM CNT
      INCLUDE 'mpif.h'
      INTEGER IERR, NN, JJ, K
      COMMON /SIZES/ NN, JJ
      DOUBLE PRECISION A(100)
      CALL MPI_INIT(IERR)
      K = 5
      CALL SETN(K)
      JJ = 7
      CALL MPI_BCAST(A, NN, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               IERR)
      CALL MPI_FINALIZE(IERR)
      END

! CHECK:      K = 5
! CHECK-NEXT:      CALL SETN(K)
! CHECK-EMPTY:
! CHECK-NEXT:      CALL MPIETE_BCAST({{.*}}
