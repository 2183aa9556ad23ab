! layout_kernel.f90: computation without MPI calls (e2e.wrapper.place_loops).
subroutine fsmooth(v, u, n, reps)
  implicit none
  integer, intent(in) :: n, reps
  double precision, intent(inout) :: v(n)
  double precision, intent(in) :: u(n)
  integer :: r, i
  do r = 1, reps
    do i = 2, n - 1
      v(i) = 0.25d0 * u(i - 1) + 0.5d0 * u(i) + 0.25d0 * u(i + 1) + dble(r)
    end do
  end do
end subroutine fsmooth
