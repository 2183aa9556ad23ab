! The process layout of f90-transpose: the ranks form groups of two (one when the rank count is
! odd), each with its own communicator from MPI_Comm_split; a group owns the rows of its
! problems' matrices in equal blocks.
module layout
  use mpi
  implicit none
  private
  public :: setup_groups
  integer, public :: rank, nproc, grp, grank, gsize, group, ngroups

contains

  subroutine setup_groups()
    integer :: ierr
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
    gsize = 2
    if (mod(nproc, 2) /= 0) gsize = 1
    group = rank / gsize
    ngroups = nproc / gsize
    call mpi_comm_split(MPI_COMM_WORLD, group, rank, grp, ierr)
    call mpi_comm_rank(grp, grank, ierr)
  end subroutine setup_groups

end module layout
