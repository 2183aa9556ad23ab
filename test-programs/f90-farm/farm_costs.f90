! farm_costs: the tasks of f90-farm (main.f90), in a module of their own with no MPI. Task i of
! n (1..n) is a chain of multiply-adds of base * (1 + 3 sin^2(pi (i - 1/2) / n)) steps, farm-1d's
! smooth cost (test-programs/farm-1d): cheap at both ends, four times dearer in the middle. The
! directives !$mpiete task(i) and !$mpiete end task in run_task mark the task's body for
! mpiete (docs/taskfarm.md); to a plain compiler they are comments.
module farm_costs
  implicit none
  private
  integer, parameter, public :: dp = kind(1.0d0)
  ! The farm's size, set by main.f90 on every rank before the first task.
  integer, public :: ntasks = 256, base = 400000
  public :: run_task

contains

  ! The steps of task i.
  integer function steps_of(i)
    integer, intent(in) :: i
    real(dp), parameter :: pi = 3.14159265358979_dp
    real(dp) :: s
    s = sin(pi * (real(i, dp) - 0.5_dp) / real(ntasks, dp))
    steps_of = int(real(base, dp) * (1.0_dp + 3.0_dp * s * s))
  end function steps_of

  ! Task i: r is the chain's mean. A probe that skips the task leaves r at 0.
  subroutine run_task(i, r)
    integer, intent(in) :: i
    real(dp), intent(out) :: r
    real(dp) :: x, acc
    integer :: k, steps

    acc = 0.0_dp
    steps = 0
    !$mpiete task(i)
    x = 1.0_dp + real(i, dp) * 1.0e-3_dp
    steps = steps_of(i)
    do k = 1, steps
      x = x * 0.999999_dp + 1.0e-6_dp
      acc = acc + x
    end do
    !$mpiete end task
    r = acc / real(max(steps, 1), dp)
  end subroutine run_task

end module farm_costs
