! MPI routines mpiete cannot model are rejected with a located error naming them, or passed
! through with a warning on request (profiling entry points cannot be).
! REQUIRES: fortran
! RUN: not %mpiete-instrument --seed-blocks %s -- %mpi-fflags 2>&1 | FileCheck %s
! RUN: not %mpiete-instrument --seed-blocks --pass-through=MPI_Win_fence %s -- %mpi-fflags 2>&1 | FileCheck --check-prefix=PASS %s
subroutine fence(win, x, comm)
  use mpi
  implicit none
  integer :: win, comm, ierr
  double precision :: x
  call MPI_Win_fence(0, win, ierr)
! CHECK: unsupported-routine.f90:[[@LINE-1]]:8: error: 'MPI_Win_fence' (one-sided communication) is not supported by mpiete; pass it through uninstrumented with --mpiete-pass-through=MPI_Win_fence (predictions then ignore it) [mpiete-unsupported]
! PASS: unsupported-routine.f90:[[@LINE-2]]:8: warning: 'MPI_Win_fence' (one-sided communication) is passed through uninstrumented; predictions ignore its cost [mpiete-pass-through]
  call PMPI_Barrier(comm, ierr)
! CHECK: unsupported-routine.f90:[[@LINE-1]]:8: error: direct call to profiling routine 'PMPI_Barrier' is not supported; call 'MPI_Barrier' instead [mpiete-unsupported]
! PASS: unsupported-routine.f90:[[@LINE-2]]:8: error: direct call to profiling routine 'PMPI_Barrier'
  call MPI_Bcast(x, 1, MPI_DOUBLE_PRECISION, 0, comm, ierr)
end subroutine fence
