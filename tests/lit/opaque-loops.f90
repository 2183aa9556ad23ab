! Segments: a DO loop with no MPI call the unit can see that CALLs a subroutine it cannot
! (external, here in another file) gets the opaque hooks, which only the timing probe's cap
! uses; so does such a loop inside an IF. A loop that only references an external function
! (an expression evaluated per element), a loop of intrinsics and a loop left by RETURN get
! none; the procedure declares the hook's type.
! REQUIRES: fortran
! RUN: %mpiete-instrument %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
subroutine run(a, n, steps)
  use mpi
  implicit none
  integer, intent(in) :: n, steps
  double precision, intent(inout) :: a(n)
  double precision, external :: f
  integer :: t, i, ierr
  do t = 1, steps
    call exchange(a, n)
  end do
  if (steps > 0) then
    do t = 1, steps
      call exchange(a, n)
    end do
  end if
  do i = 1, n
    a(i) = f(a(i))
  end do
  do i = 1, n
    a(i) = sqrt(a(i))
  end do
  do t = 1, steps
    call exchange(a, n)
    if (a(1) < 0) return
  end do
  call mpi_barrier(mpi_comm_world, ierr)
end subroutine run

! CHECK-LABEL: subroutine run(a, n, steps)
! CHECK-NEXT:   use mpi
! CHECK-NEXT:   implicit none
! CHECK-NEXT:   integer :: mpiete_iter_opaque_capped
! CHECK-NEXT:   integer, intent(in) :: n, steps
! CHECK-NEXT:   double precision, intent(inout) :: a(n)
! CHECK-NEXT:   double precision, external :: f
! CHECK-NEXT:   integer :: t, i, ierr
! CHECK-NEXT:   do t = 1, steps
! CHECK-NEXT:     if (mpiete_iter_opaque_capped({{-?[0-9]+}}, 0) .ne. 0) exit
! CHECK-NEXT:     call exchange(a, n)
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_loop_exit_opaque({{-?[0-9]+}}, 0)
! CHECK-NEXT:   if (steps > 0) then
! CHECK-NEXT:     do t = 1, steps
! CHECK-NEXT:       if (mpiete_iter_opaque_capped({{-?[0-9]+}}, 1) .ne. 0) exit
! CHECK-NEXT:       call exchange(a, n)
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_loop_exit_opaque({{-?[0-9]+}}, 1)
! CHECK-NEXT:   end if
! CHECK-NEXT:   do i = 1, n
! CHECK-NEXT:     a(i) = f(a(i))
! CHECK-NEXT:   end do
! CHECK-NEXT:   do i = 1, n
! CHECK-NEXT:     a(i) = sqrt(a(i))
! CHECK-NEXT:   end do
! CHECK-NEXT:   do t = 1, steps
! CHECK-NEXT:     call exchange(a, n)
! CHECK-NEXT:     if (a(1) < 0) return
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_barrier({{-?[0-9]+}}, 2, mpi_comm_world, ierr)
! CHECK-NEXT: end subroutine run
