! The sampled probe test's Fortran kernel, a module in its own file: rows 1 .. n of a lower
! triangle, row i costing i + 20000 inner steps (tens of microseconds, long enough to time
! against the sampling hooks); counts the rows that ran.
module rows
  implicit none
  private
  public :: tri

contains

  subroutine tri(n, s, nrun)
    integer, intent(in) :: n
    double precision, intent(out) :: s
    integer(8), intent(inout) :: nrun
    integer :: i, j
    double precision :: r
    s = 0d0
    do i = 1, n
      r = 0d0
      do j = 1, i + 20000
        r = r + dble(mod(i * 31 + j, 7)) * 0.5d0
      end do
      s = s + r
      nrun = nrun + 1
    end do
  end subroutine tri

end module rows
