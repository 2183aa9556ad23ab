! The numerics of f90-moddata, on the module's arrays: the initial mode, one explicit step of
! the heat equation, and the error against the exact discrete solution. No MPI here.
module physics
  use field_data
  implicit none
  private
  public :: set_initial, advance, mode_error, fixed_sum

contains

  !> t = sin(pi x) sin(pi y) on the interior, zero on the boundary: an eigenvector of the
  !> 5-point Laplacian, so the explicit scheme only scales it (see mode_error).
  subroutine set_initial()
    integer :: i, j
    real(dp) :: h
    h = 1.0_dp / (n + 1)
    t = 0.0_dp
    tnew = 0.0_dp
    do j = 1, nloc
      do i = 1, n
        t(i, j) = sin(pi * i * h) * sin(pi * (j0 + j) * h)
      end do
    end do
  end subroutine set_initial

  !> One step t <- t + r (sum of the four neighbours - 4 t); returns this rank's largest change.
  real(dp) function advance()
    integer :: i, j
    real(dp) :: change
    change = 0.0_dp
    do j = 1, nloc
      do i = 1, n
        tnew(i, j) = t(i, j) + rcoef * (t(i - 1, j) + t(i + 1, j) + t(i, j - 1) + t(i, j + 1) &
                                        - 4.0_dp * t(i, j))
        change = max(change, abs(tnew(i, j) - t(i, j)))
      end do
    end do
    do j = 1, nloc
      do i = 1, n
        t(i, j) = tnew(i, j)
      end do
    end do
    advance = change
  end function advance

  !> Largest |t - g**steps t0| on this rank, where g = 1 - 8 r sin(pi h / 2)**2 is the factor
  !> one step multiplies the initial mode by.
  real(dp) function mode_error(steps)
    integer, intent(in) :: steps
    integer :: i, j
    real(dp) :: h, g, amp, err
    h = 1.0_dp / (n + 1)
    g = 1.0_dp - 8.0_dp * rcoef * sin(0.5_dp * pi * h)**2
    amp = g**steps
    err = 0.0_dp
    do j = 1, nloc
      do i = 1, n
        err = max(err, abs(t(i, j) - amp * sin(pi * i * h) * sin(pi * (j0 + j) * h)))
      end do
    end do
    mode_error = err
  end function mode_error

  !> Sum of the owned values in fixed point (units of 1e-12): integers add up to the same
  !> total in any order, so the checksum does not depend on the decomposition.
  integer(8) function fixed_sum()
    integer :: i, j
    fixed_sum = 0
    do j = 1, nloc
      do i = 1, n
        fixed_sum = fixed_sum + nint(t(i, j) * 1.0e12_dp, 8)
      end do
    end do
  end function fixed_sum

end module physics
