! The distributed transpose of f90-transpose: an n x n matrix held by rows in equal blocks over
! a group (local x(:, r) is global row r0 + r) becomes its transpose, held the same way, with
! one MPI_Alltoall on the group's communicator.
module transpose
  use mpi
  use layout
  implicit none
  private
  public :: transpose_rows

contains

  subroutine transpose_rows(x)
    complex(8), intent(inout) :: x(:, :)
    complex(8), allocatable :: sbuf(:, :, :), rbuf(:, :, :)
    integer :: n, nr, p, r, c, ierr
    n = size(x, 1)
    nr = size(x, 2)
    allocate(sbuf(nr, nr, 0:gsize - 1), rbuf(nr, nr, 0:gsize - 1))
    ! To member p: the columns of its row block, from each of my rows.
    do p = 0, gsize - 1
      do r = 1, nr
        do c = 1, nr
          sbuf(c, r, p) = x(p * nr + c, r)
        end do
      end do
    end do
    call mpi_alltoall(sbuf, nr * nr, MPI_DOUBLE_COMPLEX, rbuf, nr * nr, MPI_DOUBLE_COMPLEX, &
                      grp, ierr)
    ! From member p: its rows' entries in my columns.
    do p = 0, gsize - 1
      do r = 1, nr
        do c = 1, nr
          x(p * nr + r, c) = rbuf(c, r, p)
        end do
      end do
    end do
  end subroutine transpose_rows

end module transpose
