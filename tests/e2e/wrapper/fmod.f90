! fmod.f90: a module defined and used in one file (the module, then its users), built with the
! Makefile idiom: gfortran writes fstate.mod into the current folder.
module fstate
  implicit none
  integer :: total = 0
end module fstate

subroutine accumulate(value)
  use fstate
  use mpi
  implicit none
  integer, intent(in) :: value
  integer :: ierr, step, got
  do step = 1, 3
    call mpi_allreduce(value * step, got, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
    total = total + got
  end do
end subroutine accumulate

program fmain
  use fstate
  use mpi
  implicit none
  integer :: ierr, rank, nranks
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nranks, ierr)
  call accumulate(rank + 1)
  if (rank == 0) print '(a,i0,a,i0)', 'fmod: size=', nranks, ' total=', total
  call mpi_finalize(ierr)
end program fmain
