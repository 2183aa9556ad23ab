! The compute part of f90-stencil3d: explicit diffusion with a 7-point stencil, the global
! bottom face (z = 0) held at 1, every other face at 0.
module kernel
  use decomp
  implicit none
  private
  public :: init_field, step, local_sum, local_max

contains

  subroutine init_field(u)
    real(8), intent(out) :: u(0:, 0:, 0:)
    u = 0d0
    if (off(3) == 0) u(:, :, 0) = 1d0
  end subroutine init_field

  !> One explicit step of du/dt = laplace(u) with coefficient 1/8 (stable below 1/6).
  subroutine step(u, v)
    real(8), intent(inout) :: u(0:, 0:, 0:), v(0:, 0:, 0:)
    integer :: i, j, k
    do k = 1, nl(3)
      do j = 1, nl(2)
        do i = 1, nl(1)
          v(i, j, k) = u(i, j, k) + 0.125d0 * (u(i - 1, j, k) + u(i + 1, j, k) + &
                       u(i, j - 1, k) + u(i, j + 1, k) + u(i, j, k - 1) + u(i, j, k + 1) - &
                       6d0 * u(i, j, k))
        end do
      end do
    end do
    u(1:nl(1), 1:nl(2), 1:nl(3)) = v(1:nl(1), 1:nl(2), 1:nl(3))
  end subroutine step

  !> Sum of the owned points in fixed point (units of 1e-12): exact in any order.
  integer(8) function local_sum(u)
    real(8), intent(in) :: u(0:, 0:, 0:)
    local_sum = sum(nint(u(1:nl(1), 1:nl(2), 1:nl(3)) * 1d12, 8))
  end function local_sum

  real(8) function local_max(u)
    real(8), intent(in) :: u(0:, 0:, 0:)
    local_max = maxval(u(1:nl(1), 1:nl(2), 1:nl(3)))
  end function local_max

end module kernel
