! The process grid of f90-stencil3d: a non-periodic 3-D Cartesian communicator over all ranks,
! this rank's block of the global n x n x n grid, its six neighbours, and slab communicators
! (the ranks sharing an x coordinate, made with MPI_Comm_split).
module decomp
  use mpi
  implicit none
  private
  public :: setup_grid, free_grid, block_range
  integer, public :: cart, slab, rank, nproc
  integer, public :: dims(3), coords(3), lo(3), hi(3), nl(3), off(3)

contains

  !> Items start+1 .. start+cnt of 1..n for part c (0-based) of p: even blocks, the first
  !> parts one longer.
  subroutine block_range(n, p, c, cnt, start)
    integer, intent(in) :: n, p, c
    integer, intent(out) :: cnt, start
    cnt = n / p
    if (c < mod(n, p)) cnt = cnt + 1
    start = c * (n / p) + min(c, mod(n, p))
  end subroutine block_range

  subroutine setup_grid(n)
    integer, intent(in) :: n
    logical :: periods(3)
    integer :: d, ierr
    call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
    dims = 0
    call mpi_dims_create(nproc, 3, dims, ierr)
    periods = .false.
    call mpi_cart_create(MPI_COMM_WORLD, 3, dims, periods, .true., cart, ierr)
    call mpi_comm_rank(cart, rank, ierr)
    call mpi_cart_coords(cart, rank, 3, coords, ierr)
    do d = 1, 3
      call mpi_cart_shift(cart, d - 1, 1, lo(d), hi(d), ierr)
      call block_range(n, dims(d), coords(d), nl(d), off(d))
    end do
    call mpi_comm_split(cart, coords(1), rank, slab, ierr)
  end subroutine setup_grid

  subroutine free_grid()
    integer :: ierr
    call mpi_comm_free(slab, ierr)
    call mpi_comm_free(cart, ierr)
  end subroutine free_grid

end module decomp
