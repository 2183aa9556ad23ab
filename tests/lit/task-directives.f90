! The task marker of task farms in free form (docs/taskfarm.md): the comment directives
! `!$mpiete task(params)` .. `!$mpiete end task` stay, and both probe variants run the body
! under `if (mpiete_task_begin(N, (/int(p, 8), ../)) .ne. 0) then` .. `call mpiete_task_end()`
! / `end if`, indented like the body, with the hook's type declared after `implicit none`. A
! unit whose only edits are tasks (no MPI call) is instrumented, not built natively; the
! skeleton runs no task (its computation is dropped, as in C). A parameter list too long for
! one line puts each parameter on a continuation line; a loop of the body is never sampled.
! REQUIRES: fortran
! RUN: %mpiete-instrument --sample-loops --variant=timing %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines --strict-whitespace %s
! RUN: %mpif90-syntax %t.f90
! RUN: %mpiete-instrument --variant=trace %s -- %mpi-fflags | FileCheck --match-full-lines --strict-whitespace %s
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | FileCheck --check-prefix=SKEL %s
! RUN: rm -rf %t.d && mkdir %t.d
! RUN: %mpiete-instrument --module-dir=%t.d/fmod --trace-out=%t.d/v.trace.f90 --timing-out=%t.d/v.timing.f90 --blocks-out=%t.d/v.blocks.yaml --native-out=%t.d/v.native %s -- %mpi-fflags
! RUN: not ls %t.d/v.native
! RUN: grep -c "^ *if (mpiete_task_begin(" %t.d/v.timing.f90 | FileCheck --check-prefix=COUNT %s
! COUNT: 4
! SKEL-NOT: {{^ *(if \(mpiete_task_begin|call mpiete_task_end|integer :: mpiete_task)}}
module tiles
  implicit none
contains
  subroutine tile(i, j, n, r)
    implicit none
! CHECK:    implicit none
! CHECK-NEXT:    integer :: mpiete_task_begin
    integer, intent(in) :: i, j, n
    double precision, intent(out) :: r
    integer :: k, m
    r = 0
    !$mpiete task(i, j)
! CHECK:    !$mpiete task(i, j)
! CHECK-NEXT:    if (mpiete_task_begin(2, (/int(i, 8), int(j, 8)/)) .ne. 0) then
    do k = 1, n
      do m = 1, n
        r = r + dble(i * k + j * m)
      end do
    end do
! CHECK:    do k = 1, n
! CHECK-NEXT:      do m = 1, n
    !$mpiete end task
! CHECK:    call mpiete_task_end()
! CHECK-NEXT:    end if
! CHECK-NEXT:    !$mpiete end task
    r = r / n
  end subroutine tile

  ! Blanks and case in the directive do not matter; a trailing comment is allowed; a
  ! parameter may be any integer expression.
  subroutine tile2(t, n)
    integer, intent(inout) :: t(:)
    integer, intent(in) :: n
    integer :: k
    !$MPIETE  Task ( t(1) + 1, max(n, 2) )   ! the task's two parameters
! CHECK:    if (mpiete_task_begin(2, (/int(t(1) + 1, 8), int(max(n, 2), 8)/)) .ne. 0) then
    if (n > 0) then
      k = 1
    else
      k = 2
    end if
    t(1) = t(1) + k
    !$mpiete endtask
! CHECK:    call mpiete_task_end()
! CHECK-NEXT:    end if
! CHECK-NEXT:    !$mpiete endtask
  end subroutine tile2

  subroutine tile8(a, n)
    integer, intent(inout) :: a(:)
    integer, intent(in) :: n
    integer :: first_parameter, second_parameter, third_parameter, fourth_parameter
    first_parameter = 1; second_parameter = 2; third_parameter = 3; fourth_parameter = 4
    !$mpiete task(first_parameter, second_parameter, third_parameter, fourth_parameter, n, n, n, n)
      a(1) = a(1) + n
    !$mpiete end task
! CHECK:    !$mpiete task(first_parameter, second_parameter, third_parameter, fourth_parameter, n, n, n, n)
! CHECK-NEXT:      if (mpiete_task_begin(8, (/int(first_parameter, 8), &
! CHECK-NEXT:          & int(second_parameter, 8), &
! CHECK-NEXT:          & int(third_parameter, 8), &
! CHECK-NEXT:          & int(fourth_parameter, 8), &
! CHECK-NEXT:          & int(n, 8), &
! CHECK-NEXT:          & int(n, 8), &
! CHECK-NEXT:          & int(n, 8), &
! CHECK-NEXT:          & int(n, 8)/)) .ne. 0) then
! CHECK-NEXT:      a(1) = a(1) + n
! CHECK-NEXT:      call mpiete_task_end()
! CHECK-NEXT:      end if
  end subroutine tile8
end module tiles

! A task in a main program without MPI, its body a loop that could be sampled elsewhere.
program farm
  use tiles
  implicit none
! CHECK:  use tiles
! CHECK-NEXT:  implicit none
! CHECK:  integer :: mpiete_task_begin
  double precision :: r, s(100, 100)
  integer :: i, j
  s = 1
  !$mpiete task(7)
  do j = 1, 100
    do i = 1, 100
      s(i, j) = s(i, j) * 0.5d0
    end do
  end do
  !$mpiete end task
! CHECK:  if (mpiete_task_begin(1, (/int(7, 8)/)) .ne. 0) then
! CHECK-NEXT:  do j = 1, 100
! CHECK-NEXT:    do i = 1, 100
! CHECK-NOT: mpiete_sample
! CHECK:  call mpiete_task_end()
! CHECK-NEXT:  end if
  call tile(1, 2, 3, r)
  print *, r, s(1, 1)
end program farm
