! The default partition (segments) in free form: DO and DO WHILE loops with MPI calls (directly
! or through a communicating procedure) get iteration and exit hooks (the iteration hook may
! leave the loop for the timing probe's cap; the procedure declares its type); CYCLE still
! reaches the next iteration's hook; a loop of pure computation gets nothing.
! REQUIRES: fortran
! RUN: %mpiete-instrument %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
module halo
  use mpi
  implicit none
contains
  subroutine swap(a, peer)
    double precision, intent(inout) :: a(:)
    integer, intent(in) :: peer
    integer :: ierr
    call mpi_sendrecv_replace(a, size(a), mpi_double_precision, peer, 0, peer, 0, &
                              mpi_comm_world, mpi_status_ignore, ierr)
  end subroutine swap

  subroutine run(a, peer, steps)
    double precision, intent(inout) :: a(:)
    integer, intent(in) :: peer, steps
    integer :: i, t
    do i = 1, size(a)
      a(i) = a(i) + 1d0
    end do
    t = 0
    do while (t < steps)
      t = t + 1
      if (mod(t, 2) == 0) cycle
      call swap(a, peer)
    end do
  end subroutine run
end module halo

! CHECK:        subroutine run(a, peer, steps)
! CHECK-NEXT:     integer :: mpiete_iter_capped
! CHECK:          do i = 1, size(a)
! CHECK-NEXT:       a(i) = a(i) + 1d0
! CHECK-NEXT:     end do
! CHECK-NEXT:     t = 0
! CHECK-NEXT:     do while (t < steps)
! CHECK-NEXT:       if (mpiete_iter_capped([[U:-?[0-9]+]], 3) .ne. 0) exit
! CHECK-NEXT:       t = t + 1
! CHECK-NEXT:       if (mod(t, 2) == 0) cycle
! CHECK-NEXT:       call swap(a, peer)
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_loop_exit([[U]], 3)
! CHECK-NEXT:   end subroutine run
