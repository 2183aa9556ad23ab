! Fixed form: a call that the edit pushes past column 72 is re-broken after the inserted
! arguments, the rest keeping its columns (text past column 72, such as sequence numbers, is
! dropped); an inline comment becomes a comment line; a name split across lines is no problem
! when the edit does not touch it.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --unit-path=fixed-form-continuation.f %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
      SUBROUTINE HALO(U, N, LEFT, RIGHT)
      INCLUDE 'mpif.h'
      INTEGER N, LEFT, RIGHT, IERR, REQ(2)
      DOUBLE PRECISION U(0:N+1)
      CALL MPI_IRECV(U(0), 1, MPI_DOUBLE_PRECISION, LEFT, 7,            HALO0010
     &               MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_ISEND(U(N), 1, MPI_DOUBLE_PRECISION, RIGHT, 7, MPI_COMM_W
C     the name continues on the next line
     &ORLD, REQ(2), IERR)
      CALL MPI_WAITALL(2, REQ, MPI_STATUSES_IGNORE, IERR) ! both
      END

! CHECK:            DOUBLE PRECISION U(0:N+1)
! CHECK-NEXT:       CALL MPIETE_IRECV([[U:-?[0-9]+]], 0,
! CHECK-NEXT:      &               U(0), 1, MPI_DOUBLE_PRECISION, LEFT, 7,
! CHECK-NEXT:      &               MPI_COMM_WORLD, REQ(1), IERR)
! CHECK-NEXT:       CALL MPIETE_ISEND([[U]], 1,
! CHECK-NEXT:      &               U(N), 1, MPI_DOUBLE_PRECISION, RIGHT, 7, MPI_COMM_W
! CHECK-NEXT: C     the name continues on the next line
! CHECK-NEXT:      &ORLD, REQ(2), IERR)
! CHECK-NEXT:       CALL MPIETE_WAITALL([[U]], 2,
! CHECK-NEXT:      &                 2, REQ, MPI_STATUSES_IGNORE, IERR)
! CHECK-NEXT: ! both
! CHECK-NEXT:       END

! --unit-path: the unit id (a hash of the path) and so the lines it pushes past column 72
! stay the same wherever the checkout lies.
