! A last `ierror=` whose keyword and `=` are on different lines: mpiete cannot drop the text
! `ierror =` with its line edits, and says where.
! REQUIRES: fortran
! RUN: not %mpiete-instrument --seed-blocks %s -- %mpi-fflags 2>&1 | FileCheck %s
program split
  use mpi_f08
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierror &
                   = ierr)
! CHECK: mpi-ierror-split.f90:[[@LINE-2]]:8: error: the 'ierror' keyword of this call to 'MPI_Barrier' and its '=' are on different lines; mpiete cannot drop the keyword
  call MPI_Finalize(ierr)
end program split
