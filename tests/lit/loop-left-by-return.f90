! Segments, Fortran: the timing probe's cap leaves a loop by EXIT and goes on after it, so a DO
! loop the program leaves by RETURN or STOP gets the plain iteration hook (followed, never
! capped); a loop that ends where it stands gets the one that can leave it.
! REQUIRES: fortran
! RUN: %mpiete-instrument %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
subroutine worker(done)
  use mpi
  implicit none
  integer :: done, msg, ierr, st(MPI_STATUS_SIZE)
  done = 0
  do
    call MPI_Recv(msg, 1, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    if (st(MPI_TAG) == 2) return
    call MPI_Send(msg, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
    done = done + 1
  end do
end subroutine worker

subroutine steps(x, n)
  use mpi
  implicit none
  integer :: n, t, ierr
  double precision :: x
  do t = 1, n
    call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (x > 1d300) stop 1
  end do
  do t = 1, n
    call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (x > 1d300) exit
  end do
end subroutine steps

! CHECK:      subroutine worker(done)
! CHECK:        do
! CHECK-NEXT:     call mpiete_iter([[U:-?[0-9]+]], [[W:[0-9]+]])
! CHECK:          if (st(MPI_TAG) == 2) return
! CHECK:        call mpiete_loop_exit([[U]], [[W]])
! CHECK:      subroutine steps(x, n)
! CHECK:        integer :: mpiete_iter_capped
! CHECK:        do t = 1, n
! CHECK-NEXT:     call mpiete_iter([[U]], [[S:[0-9]+]])
! CHECK:          if (x > 1d300) stop 1
! CHECK:        call mpiete_loop_exit([[U]], [[S]])
! CHECK:        do t = 1, n
! CHECK-NEXT:     if (mpiete_iter_capped([[U]], [[C:[0-9]+]]) .ne. 0) exit
! CHECK:          if (x > 1d300) exit
! CHECK:        call mpiete_loop_exit([[U]], [[C]])
