! The decomposition of f90-adi: the n x n interior split into blocks of rows (for the sweeps
! along x) and the same blocks of columns (for the sweeps along y), and the transposes between
! the two layouts (MPI_Alltoallv).
module grid
  use mpi
  implicit none
  private
  public :: dp, n, rank, nproc, rlo, nr, first, count, setup_grid, to_columns, to_rows

  integer, parameter :: dp = kind(1.0d0)
  integer :: n = 0, rank = 0, nproc = 1
  integer :: rlo = 0, nr = 0          ! this rank's rows (or columns) rlo+1 .. rlo+nr
  integer, allocatable :: first(:), count(:)   ! every rank's block: first index - 1, size
  integer, allocatable :: scount(:), sdispl(:)
  real(dp), allocatable :: sbuf(:), rbuf(:)

contains

  !> Blocks as even as possible, the first ranks taking one more.
  subroutine setup_grid(nn)
    integer, intent(in) :: nn
    integer :: ierr, p
    n = nn
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
    allocate(first(0:nproc - 1), count(0:nproc - 1), scount(0:nproc - 1), sdispl(0:nproc - 1))
    do p = 0, nproc - 1
      count(p) = n / nproc
      if (p < mod(n, nproc)) count(p) = count(p) + 1
      first(p) = p * (n / nproc) + min(p, mod(n, nproc))
    end do
    rlo = first(rank)
    nr = count(rank)
    do p = 0, nproc - 1
      scount(p) = nr * count(p)
      sdispl(p) = nr * first(p)
    end do
    allocate(sbuf(n * nr), rbuf(n * nr))
  end subroutine setup_grid

  !> Row layout a(i, jl) (value at column i of row rlo+jl) to column layout b(j, il) (value at
  !> row j of column rlo+il).
  subroutine to_columns(a, b)
    real(dp), intent(in) :: a(n, nr)
    real(dp), intent(out) :: b(n, nr)
    call transpose_blocks(a, b)
  end subroutine to_columns

  !> The way back; the same exchange, as the layouts mirror each other.
  subroutine to_rows(b, a)
    real(dp), intent(in) :: b(n, nr)
    real(dp), intent(out) :: a(n, nr)
    call transpose_blocks(b, a)
  end subroutine to_rows

  subroutine transpose_blocks(a, b)
    real(dp), intent(in) :: a(n, nr)
    real(dp), intent(out) :: b(n, nr)
    integer :: p, i, jl, k, ierr
    ! To rank p: my lines x p's block of the other index, line by line.
    k = 0
    do p = 0, nproc - 1
      do jl = 1, nr
        do i = first(p) + 1, first(p) + count(p)
          k = k + 1
          sbuf(k) = a(i, jl)
        end do
      end do
    end do
    call mpi_alltoallv(sbuf, scount, sdispl, MPI_DOUBLE_PRECISION, rbuf, scount, sdispl, &
                       MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    ! From rank p: p's lines (my index j) x my block (local il).
    k = 0
    do p = 0, nproc - 1
      do jl = first(p) + 1, first(p) + count(p)
        do i = 1, nr
          k = k + 1
          b(jl, i) = rbuf(k)
        end do
      end do
    end do
  end subroutine transpose_blocks

end module grid
