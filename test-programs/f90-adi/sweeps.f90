! The numerics of f90-adi: the explicit half of each Peaceman-Rachford half step and the
! implicit line solves (Thomas algorithm), along whole lines held by this rank. No MPI here.
module sweeps
  use grid, only: dp
  implicit none
  private
  public :: explicit_part, implicit_lines

contains

  !> rhs = w + (r/2) (w(i-1) - 2 w(i) + w(i+1)) along each of the nl lines of length m, with
  !> zero values beyond both ends.
  subroutine explicit_part(w, rhs, m, nl, r)
    integer, intent(in) :: m, nl
    real(dp), intent(in) :: w(m, nl), r
    real(dp), intent(out) :: rhs(m, nl)
    integer :: i, l
    real(dp) :: left, right, half
    half = 0.5_dp * r
    do l = 1, nl
      do i = 1, m
        left = 0.0_dp
        right = 0.0_dp
        if (i > 1) left = w(i - 1, l)
        if (i < m) right = w(i + 1, l)
        rhs(i, l) = w(i, l) + half * (left - 2.0_dp * w(i, l) + right)
      end do
    end do
  end subroutine explicit_part

  !> Solves (1 + r) x(i) - (r/2) (x(i-1) + x(i+1)) = d(i) along each line (zero beyond the
  !> ends), overwriting d with x: forward elimination, then back substitution.
  subroutine implicit_lines(d, m, nl, r)
    integer, intent(in) :: m, nl
    real(dp), intent(inout) :: d(m, nl)
    real(dp), intent(in) :: r
    real(dp) :: a(m), b(m), c(m), cp(m), dp_(m), den
    integer :: i, l
    do l = 1, nl
      do i = 1, m
        a(i) = -0.5_dp * r
        b(i) = 1.0_dp + r
        c(i) = -0.5_dp * r
      end do
      a(1) = 0.0_dp
      c(m) = 0.0_dp
      cp(1) = c(1) / b(1)
      dp_(1) = d(1, l) / b(1)
      do i = 2, m
        den = b(i) - a(i) * cp(i - 1)
        cp(i) = c(i) / den
        dp_(i) = (d(i, l) - a(i) * dp_(i - 1)) / den
      end do
      d(m, l) = dp_(m)
      do i = m - 1, 1, -1
        d(i, l) = dp_(i) - cp(i) * d(i + 1, l)
      end do
    end do
  end subroutine implicit_lines

end module sweeps
