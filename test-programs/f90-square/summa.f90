! The q x q process grid of f90-square and its block matrix product (SUMMA: at step k the
! owners of block column k of A and block row k of B broadcast them along their grid row and
! grid column, MPI_Bcast, and every rank adds their product to its block of C).
module summa
  use mpi
  implicit none
  private
  public :: dp, grid_comms, entry_a, entry_b, multiply

  integer, parameter :: dp = kind(1.0d0)

contains

  !> Row and column communicators of the q x q grid comm (rank = prow * q + pcol).
  subroutine grid_comms(comm, q, prow, pcol, rowc, colc)
    integer, intent(in) :: comm, q
    integer, intent(out) :: prow, pcol, rowc, colc
    integer :: me, ierr
    call mpi_comm_rank(comm, me, ierr)
    prow = me / q
    pcol = mod(me, q)
    call mpi_comm_split(comm, prow, pcol, rowc, ierr)
    call mpi_comm_split(comm, pcol, prow, colc, ierr)
  end subroutine grid_comms

  !> Small integers, so that every product and sum is exact in double precision and the
  !> result is the same whatever the order of the additions.
  real(dp) function entry_a(i, j)
    integer, intent(in) :: i, j
    entry_a = real(mod(i + 2 * j, 7) - 2, dp)
  end function entry_a

  real(dp) function entry_b(i, j)
    integer, intent(in) :: i, j
    entry_b = real(mod(3 * i + j, 5) - 1, dp)
  end function entry_b

  !> c = a b for nb x nb blocks on the q x q grid.
  subroutine multiply(a, b, c, nb, q, prow, pcol, rowc, colc)
    integer, intent(in) :: nb, q, prow, pcol, rowc, colc
    real(dp), intent(in) :: a(nb, nb), b(nb, nb)
    real(dp), intent(out) :: c(nb, nb)
    real(dp), allocatable :: ak(:, :), bk(:, :)
    integer :: k, i, j, l, ierr
    allocate(ak(nb, nb), bk(nb, nb))
    c = 0.0_dp
    do k = 0, q - 1
      if (pcol == k) ak = a
      if (prow == k) bk = b
      call mpi_bcast(ak, nb * nb, MPI_DOUBLE_PRECISION, k, rowc, ierr)
      call mpi_bcast(bk, nb * nb, MPI_DOUBLE_PRECISION, k, colc, ierr)
      do j = 1, nb
        do l = 1, nb
          do i = 1, nb
            c(i, j) = c(i, j) + ak(i, l) * bk(l, j)
          end do
        end do
      end do
    end do
    deallocate(ak, bk)
  end subroutine multiply

end module summa
