! A keyword other than a last ierror= in a rewritten call: the analysis modules give the MPI
! routines no explicit interface, so Flang rejects it (mpiete-fc then builds the file natively
! with a warning; mpiete-instrument fails).
! REQUIRES: fortran
! RUN: not %mpiete-instrument --seed-blocks %s -- %mpi-fflags 2>&1 | FileCheck %s
program keywords
  use mpi
  implicit none
  integer :: ierr
  double precision :: v
  call MPI_Init(ierr)
  v = 1
  call MPI_Bcast(buffer=v, count=1, datatype=MPI_DOUBLE_PRECISION, root=0, comm=MPI_COMM_WORLD, ierror=ierr)
! CHECK: mpi-keyword-rejected.f90:[[@LINE-1]]:18: error: Keyword 'buffer=' may not appear in a reference to a procedure with an implicit interface
  call MPI_Finalize(ierr)
end program keywords
