! The kernel of f90-ep: random walks on the square lattice, each independent of the others, and
! their statistics in integers (so totals do not depend on the order they are added in).
module walks
  use rng
  implicit none
  private
  public :: walk_stats, nbins

  integer, parameter :: nbins = 8

contains

  !> Walks first .. nwalks by stride, nsteps steps each: adds the squared end distances to
  !> dist2, their histogram (bins of width binw) to hist, the walks that came back to the
  !> origin to returns, and raises far to the largest squared distance reached on the way.
  subroutine walk_stats(first, stride, nwalks, nsteps, binw, dist2, hist, returns, far)
    integer, intent(in) :: first, stride, nwalks, nsteps, binw
    integer(8), intent(inout) :: dist2, hist(nbins), returns
    integer, intent(inout) :: far
    integer(8) :: s
    integer :: w, k, x, y, d, dir, b
    logical :: back
    do w = first, nwalks, stride
      s = seed_stream(w)
      x = 0
      y = 0
      back = .false.
      do k = 1, nsteps
        call next_bits(s)
        dir = int(iand(ishft(s, -20), 3_8))
        select case (dir)
        case (0)
          x = x + 1
        case (1)
          x = x - 1
        case (2)
          y = y + 1
        case default
          y = y - 1
        end select
        d = x * x + y * y
        if (d > far) far = d
        if (d == 0) back = .true.
      end do
      dist2 = dist2 + d
      b = min(d / binw, nbins - 1) + 1
      hist(b) = hist(b) + 1
      if (back) returns = returns + 1
    end do
  end subroutine walk_stats

end module walks
