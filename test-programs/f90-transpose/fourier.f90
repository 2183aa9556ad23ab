! Discrete Fourier transforms of f90-transpose: a direct O(n^2) transform of each locally held
! row, with a table of twiddle factors.
module fourier
  implicit none
  private
  public :: init_twiddles, dft_rows
  complex(8), allocatable :: w(:)

contains

  subroutine init_twiddles(n)
    integer, intent(in) :: n
    integer :: k
    real(8), parameter :: pi = 3.14159265358979323846d0
    if (allocated(w)) deallocate(w)
    allocate(w(0:n - 1))
    do k = 0, n - 1
      w(k) = cmplx(cos(2d0 * pi * k / n), -sin(2d0 * pi * k / n), 8)
    end do
  end subroutine init_twiddles

  !> x(:, r) = DFT of x(:, r) for every local row r.
  subroutine dft_rows(x)
    complex(8), intent(inout) :: x(:, :)
    complex(8), allocatable :: y(:)
    integer :: n, r, j, k
    n = size(x, 1)
    allocate(y(0:n - 1))
    do r = 1, size(x, 2)
      do k = 0, n - 1
        y(k) = (0d0, 0d0)
        do j = 0, n - 1
          y(k) = y(k) + x(j + 1, r) * w(mod(j * k, n))
        end do
      end do
      x(:, r) = y
    end do
  end subroutine dft_rows

end module fourier
