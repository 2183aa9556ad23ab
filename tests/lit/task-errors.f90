! Task directives the probes cannot honour get a located error each (docs/taskfarm.md): the
! directives must enclose whole executable statements of one block, a body calls no MPI and is
! left only at its end, and the directive itself must read `task(1 to 8 parameters)` or
! `end task`. A comment that merely mentions !$mpiete after other text is no directive.
! REQUIRES: fortran
! RUN: not %mpiete-instrument --variant=timing %s -- %mpi-fflags 2>&1 | FileCheck %s
! RUN: not %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-fflags 2>&1 | FileCheck --check-prefix=SEED %s
! SEED: task-errors.f90:[[@LINE+11]]:3: error: task directives need the default partition (segments); seed 004's fine partition (--seed-blocks) does not place blocks around them [mpiete-task]
subroutine bad(a, n, comm)
  include 'mpif.h'
  integer, intent(in) :: n, comm
  double precision, intent(inout) :: a(n)
  integer :: i, ierr
  ! A comment about !$mpiete task(i) is no directive.

  ! Across the end of a DO loop.
  do i = 1, n
    a(i) = a(i) + 1
  !$mpiete task(i)
    a(i) = a(i) * 2
  end do
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: this statement is not whole inside the task of lines [[@LINE-3]]-[[@LINE+2]]: the directives must enclose whole executable statements of one block (not part of a DO, IF or other construct, nor declarations) [mpiete-task]
  a(1) = 0
  !$mpiete end task

  ! Across an ELSE: both ends in one IF construct, but in two of its blocks.
  if (n > 2) then
  !$mpiete task(n)
    a(1) = 1
  else
    a(1) = 2
  !$mpiete end task
  end if
! CHECK-DAG: task-errors.f90:[[@LINE-4]]:3: error: this statement is not whole inside the task of lines [[@LINE-6]]-[[@LINE-2]]

  ! An MPI call in the body.
  !$mpiete task(n)
  a(1) = 3
  call MPI_Barrier(comm, ierr)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: this statement of the task of lines [[@LINE-3]]-[[@LINE+1]] calls MPI (or a procedure that does): a task's body only computes [mpiete-task]
  !$mpiete end task

  ! A GOTO out of the body, and one into it.
  !$mpiete task(n)
  if (a(1) > 0) goto 10
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:17: error: GOTO to label 10 leaves the task of lines [[@LINE-2]]-[[@LINE+2]]: a task is left only at its end ('end task') [mpiete-task]
  a(1) = 4
  !$mpiete end task
10 continue
  if (a(2) > 0) goto 20
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:17: error: GOTO to label 20 jumps into the task of lines [[@LINE+1]]-[[@LINE+4]]
  !$mpiete task(n)
20 a(2) = 5
  a(3) = 6
  !$mpiete end task

  ! EXIT of a loop outside the body; RETURN.
  do i = 1, n
    !$mpiete task(i)
    if (a(i) < 0) exit
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:19: error: EXIT leaves the task of lines [[@LINE-2]]-[[@LINE+2]] (its loop is not inside it): a task is left only at its end ('end task') [mpiete-task]
    a(i) = 7
    !$mpiete end task
  end do
  !$mpiete task(n)
  if (n < 0) return
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:14: error: RETURN leaves the task of lines [[@LINE-2]]-[[@LINE+1]]
  !$mpiete end task

  ! Malformed directives, and an empty task.
  !$mpiete task
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: expected '(' and the task's parameters after 'task' [mpiete-task]
  !$mpiete task(1, 2, 3, 4, 5, 6, 7, 8, 9)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: a task has 1 to 8 parameters, this one 9 [mpiete-task]
  !$mpiete task(n,)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: an empty task parameter [mpiete-task]
  !$mpiete task(n
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: the task's parameters have no closing ')' on the directive's line (a directive is not continued) [mpiete-task]
  !$mpiete run(n)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: unknown mpiete directive 'run(n)': the directives are 'task(parameters)', 'task message(elements)', 'task from message' and 'end task' [mpiete-task]
  !$mpiete task(n) extra
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: unexpected 'extra' after the directive [mpiete-task]
  !$mpiete task(n)
  !$mpiete end task
! CHECK-DAG: task-errors.f90:[[@LINE-2]]:3: error: the task of lines [[@LINE-2]]-[[@LINE-1]] holds no statement [mpiete-task]
end subroutine bad

! Parameters the hook cannot convert with INT, located at the parameter (task-directives.f90
! has those that pass: elements, expressions, intrinsic functions).
subroutine params(a, n, name, flag, w)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  character(len=*), intent(in) :: name
  logical, intent(in) :: flag
  double precision, intent(in) :: w
  integer :: i
  !$mpiete task(n, name)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:20: error: 'name' is CHARACTER: a task parameter is an integer or real value (the hook converts it with INT) [mpiete-task]
  a(1) = 1
  !$mpiete end task
  !$mpiete task(flag)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:17: error: 'flag' is LOGICAL: a task parameter is an integer or real value (the hook converts it with INT) [mpiete-task]
  a(1) = 2
  !$mpiete end task
  !$mpiete task( a )
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:18: error: 'a' is an array: a task parameter is one value (an element, or a scalar expression) [mpiete-task]
  a(1) = 3
  !$mpiete end task
  !$mpiete task(nn)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:17: error: 'nn' is no name this procedure knows: a task parameter is an integer or real expression of its variables [mpiete-task]
  a(1) = 4
  !$mpiete end task
end subroutine params

! The work message's elements (`task message(...)`): the runtime keeps their addresses, so
! each is an INTEGER variable or array element, never an expression, a whole array or another
! type; the directive goes before an executable statement (its calls go there), not among the
! declarations nor before a CASE.
subroutine messages(a, t, n)
  integer, intent(in) :: n
  !$mpiete task message(n)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: a 'task message' directive goes before an executable statement of a procedure (its calls are placed there), not among declarations, before an END or before a CASE [mpiete-task]
  double precision, intent(inout) :: a(n)
  integer, intent(inout) :: t(n)
  !$mpiete task message(n + 1)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:25: error: 'n + 1' is no variable: the work message's elements are named as INTEGER variables or array elements (the runtime reads them by address when each task begins) [mpiete-task]
  a(1) = 1
  !$mpiete task message(t(1), a(2))
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:31: error: 'a' is not INTEGER: a task's parameters are integers [mpiete-task]
  a(1) = 2
  !$mpiete task message(t)
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:25: error: 't' is an array: name its elements, one per parameter (t(2), t(3)) [mpiete-task]
  a(1) = 3
  !$mpiete task message()
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: an empty element of the work message [mpiete-task]
  !$mpiete task from
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: expected 'task from message' [mpiete-task]
  select case (n)
  !$mpiete task message(t(1))
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: a 'task message' directive goes before an executable statement
  case (1)
    a(1) = 4
  end select
end subroutine messages

pure subroutine pured(t, n)
  integer, intent(in) :: n
  integer, intent(inout) :: t(n)
  !$mpiete task message(t(1))
! CHECK-DAG: task-errors.f90:[[@LINE-1]]:3: error: this 'task message' is in the PURE or ELEMENTAL procedure 'pured', which cannot call the runtime [mpiete-task]
  t(1) = 1
end subroutine pured
