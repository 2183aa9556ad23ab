! Non-blocking collectives in Fortran: renamed to the runtime's entry points with their unit
! and block, the request and ierror as written; one collective block each.
! REQUIRES: fortran
! RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
! RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
subroutine overlap(x, n, comm)
  use mpi
  implicit none
  integer, intent(in) :: n, comm
  double precision, intent(inout) :: x(n)
  double precision :: s(2)
  integer :: ierr, req(2), counts(4)
  call MPI_Iallreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE_PRECISION, MPI_SUM, comm, req(1), ierr)
  call MPI_Ibcast(x, n, MPI_DOUBLE_PRECISION, 0, comm, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call MPI_Ialltoall(counts, 1, MPI_INTEGER, counts(3), 1, MPI_INTEGER, comm, req(1), ierr)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
end subroutine overlap

! CHECK:      subroutine overlap(x, n, comm)
! CHECK:        call mpiete_iallreduce([[U:-?[0-9]+]], 0, MPI_IN_PLACE, s, 2, MPI_DOUBLE_PRECISION, MPI_SUM, comm, req(1), ierr)
! CHECK-NEXT:   call mpiete_ibcast([[U]], 1, x, n, MPI_DOUBLE_PRECISION, 0, comm, req(2), ierr)
! CHECK-NEXT:   call mpiete_waitall([[U]], 2, 2, req, MPI_STATUSES_IGNORE, ierr)
! CHECK-NEXT:   call mpiete_ialltoall([[U]], 3, counts, 1, MPI_INTEGER, counts(3), 1, MPI_INTEGER, comm, req(1), ierr)
! CHECK-NEXT:   call mpiete_wait([[U]], 4, req(1), MPI_STATUS_IGNORE, ierr)
! CHECK-NEXT: end subroutine overlap

! MAP:      - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:   kind: collective
! MAP:        routine: MPI_Iallreduce
! MAP:      - id: [[U]]:1
! MAP-NEXT:   kind: collective
! MAP:        routine: MPI_Ibcast
! MAP:      - id: [[U]]:3
! MAP-NEXT:   kind: collective
! MAP:        routine: MPI_Ialltoall
