! A module defined and used in one file, with gfortran's module file of it in the current
! folder (the native compile wrote it there): the analysis reads the module from the file itself.
! REQUIRES: fortran
! RUN: rm -rf %t && mkdir %t && cd %t && %mpif90 -c %s -o native.o && ls state.mod
! RUN: cd %t && %mpiete-instrument --module-dir=%t/fmod %s -- %mpi-fflags | FileCheck %s
module state
  implicit none
  double precision :: total = 0
end module state

subroutine accumulate(x)
  use state
  use mpi
  implicit none
  double precision, intent(in) :: x
  integer :: ierr
  call mpi_allreduce(x, total, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
end subroutine accumulate
! CHECK: call mpiete_allreduce({{-?[0-9]+}}, 0, x, total, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
