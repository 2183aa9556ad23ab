! Free form, `implicit none` in a module procedure and in an internal procedure: the trip
! counters of whole loops are declared in each procedure's specification part, after its
! USE and IMPLICIT statements; the internal procedure that communicates holds blocks too.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: cd %T && %mpif90-syntax %t.f90
module solver
  implicit none
contains
  subroutine smooth(x, n, comm)
    use mpi
    implicit none
    integer, intent(in) :: n, comm
    double precision, intent(inout) :: x(n)
    integer :: i, ierr
    do i = 2, n - 1
      x(i) = 0.5d0 * (x(i - 1) + x(i + 1))
    end do
    call sync()
  contains
    subroutine sync()
      integer :: k
      do k = 1, n
        x(k) = x(k) * 2
      end do
      call MPI_Barrier(comm, ierr)
    end subroutine sync
  end subroutine smooth
end module solver

! CHECK:        subroutine smooth(x, n, comm)
! CHECK-NEXT:     use mpi
! CHECK-NEXT:     implicit none
! CHECK-NEXT:     integer(kind=8) :: mpiete_n0
! CHECK-NEXT:     integer, intent(in) :: n, comm
! CHECK-NEXT:     double precision, intent(inout) :: x(n)
! CHECK-NEXT:     integer :: i, ierr
! CHECK-NEXT:     mpiete_n0 = 0
! CHECK-NEXT:     do i = 2, n - 1
! CHECK-NEXT:       mpiete_n0 = mpiete_n0 + 1
! CHECK-NEXT:       x(i) = 0.5d0 * (x(i - 1) + x(i + 1))
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_tr_loop([[U:-?[0-9]+]], 0, mpiete_n0)
! CHECK-NEXT:     call sync()
! CHECK-NEXT:   contains
! CHECK-NEXT:     subroutine sync()
! CHECK-NEXT:       integer(kind=8) :: mpiete_n1
! CHECK-NEXT:       integer :: k
! CHECK-NEXT:       mpiete_n1 = 0
! CHECK-NEXT:       do k = 1, n
! CHECK-NEXT:         mpiete_n1 = mpiete_n1 + 1
! CHECK-NEXT:         x(k) = x(k) * 2
! CHECK-NEXT:       end do
! CHECK-NEXT:       call mpiete_tr_loop([[U]], 1, mpiete_n1)
! CHECK-NEXT:       call mpiete_barrier([[U]], 2, comm, ierr)
! CHECK-NEXT:     end subroutine sync
