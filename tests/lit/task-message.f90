! A task whose parameters are read from the work message (docs/taskfarm.md), the C
! MPIETE_TASK_MESSAGE / MPIETE_TASK_FROM_MESSAGE: `!$mpiete task message(work(2), work(3))`
! names the elements once, before the worker's loop; `!$mpiete task from message` ..
! `!$mpiete end task` marks a body that need not see them (here an internal procedure). The
! probes call the runtime before the statement after the first directive, an element per
! call by reference with its size (KIND), and run the body under
! `if (mpiete_task_begin_message() .ne. 0) then`, the hook's type declared in that procedure
! only. The skeleton runs no task and names no message.
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=timing %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines --strict-whitespace %s
! RUN: %mpif90-syntax %t.f90
! RUN: grep -c "^ *integer :: mpiete_task_begin_message" %t.f90 | FileCheck --check-prefix=DECL %s
! DECL: 1
! RUN: %mpiete-instrument --variant=trace %s -- %mpi-fflags | FileCheck --match-full-lines --strict-whitespace %s
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | FileCheck --check-prefix=SKEL %s
! SKEL-NOT: {{^ *(call mpiete_task|if \(mpiete_task|integer :: mpiete_task)}}
subroutine worker(comm)
  use mpi
  implicit none
  integer, intent(in) :: comm
  integer :: work(3), ierr, st(MPI_STATUS_SIZE)
  integer(kind=8) :: first
  double precision :: r
  first = 0
  !$mpiete task message(work(2), work(3))
  do
    call MPI_Recv(work, 3, MPI_INTEGER, 0, MPI_ANY_TAG, comm, st, ierr)
    if (work(1) < 0) exit
    call compute(r)
    call MPI_Send(r, 1, MPI_DOUBLE_PRECISION, 0, 2, comm, ierr)
  end do
! CHECK:  !$mpiete task message(work(2), work(3))
! CHECK-NEXT:  call mpiete_task_message(2)
! CHECK-NEXT:  call mpiete_task_message_at4(1, work(2), kind(work(2)))
! CHECK-NEXT:  call mpiete_task_message_at4(2, work(3), kind(work(3)))
! CHECK-NEXT:  do
  ! A scalar of another kind may be named too.
  !$mpiete task message( first )
  call compute(r)
! CHECK:  !$mpiete task message( first )
! CHECK-NEXT:  call mpiete_task_message(1)
! CHECK-NEXT:  call mpiete_task_message_at8(1, first, kind(first))
! CHECK-NEXT:  call compute(r)
contains
  subroutine compute(r)
    double precision, intent(out) :: r
    integer :: k
! CHECK:  subroutine compute(r)
! CHECK-NEXT:    integer :: mpiete_task_begin_message
    r = 0
    !$mpiete Task From  Message ! blanks and case do not matter
    do k = 1, work(2) * 1000
      r = r + sqrt(dble(k + work(3)))
    end do
    !$mpiete end task
! CHECK:    !$mpiete Task From  Message ! blanks and case do not matter
! CHECK-NEXT:    if (mpiete_task_begin_message() .ne. 0) then
! CHECK-NEXT:    do k = 1, work(2) * 1000
! CHECK:    end do
! CHECK-NEXT:    call mpiete_task_end()
! CHECK-NEXT:    end if
! CHECK-NEXT:    !$mpiete end task
  end subroutine compute
end subroutine worker
