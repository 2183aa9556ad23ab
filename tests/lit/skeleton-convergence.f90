! The skeleton keeps a convergence loop whole: its DO WHILE and EXIT read an MPI_Allreduce
! result, so the data every rank sends to it steers the program and the computation that feeds
! the send stays; a sum only printed goes.
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
program conv
  use mpi
  implicit none
  integer :: ierr, rank, it
  double precision :: x(100), r, gr, junk
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = rank + 1.0d0
  junk = 0
  gr = 1.0d0
  it = 0
  do while (gr > 1.0d-6)
    it = it + 1
    x = x * 0.5d0
    junk = junk + it
    r = sum(x * x)
    call mpi_allreduce(r, gr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (it > 1000) exit
  end do
  print *, junk
  call mpi_finalize(ierr)
end program conv

! CHECK:      x = rank + 1.0d0
! CHECK-EMPTY:
! CHECK-NEXT:   gr = 1.0d0
! CHECK-NEXT:   it = 0
! CHECK-NEXT:   do while (gr > 1.0d-6)
! CHECK-NEXT:     if (mpiete_iter_capped({{.*}}) .ne. 0) exit
! CHECK-NEXT:     it = it + 1
! CHECK-NEXT:     x = x * 0.5d0
! CHECK-EMPTY:
! CHECK-NEXT:     r = sum(x * x)
! CHECK-NEXT:     call mpiete_allreduce({{.*}}
! CHECK-NEXT:     if (it > 1000) exit
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_loop_exit{{.*}}
! CHECK-EMPTY:
! CHECK-NEXT:   call mpiete_finalize{{.*}}
