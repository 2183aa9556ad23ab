! An internal READ reads its character variable: the count parsed from a command argument
! keeps the call that fetched the argument, while an internal WRITE nothing reads goes.
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      PROGRAM ARGS
      INCLUDE 'mpif.h'
      INTEGER IERR, N
      CHARACTER*32 ARG, MSG
      DOUBLE PRECISION A(100)
      CALL MPI_INIT(IERR)
      N = 10
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
        CALL GET_COMMAND_ARGUMENT(1, ARG)
        READ(ARG, *) N
      END IF
      WRITE(MSG, '(I8)') N
      CALL MPI_BCAST(A, N, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               IERR)
      CALL MPI_FINALIZE(IERR)
      END

! CHECK:      CALL MPIETE_INIT{{.*}}
! CHECK-NEXT:      N = 10
! CHECK-NEXT:      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
! CHECK-NEXT:        CALL GET_COMMAND_ARGUMENT(1, ARG)
! CHECK-NEXT:        READ(ARG, *) N
! CHECK-NEXT:      END IF
! CHECK-EMPTY:
! CHECK-NEXT:      CALL MPIETE_BCAST({{.*}}
