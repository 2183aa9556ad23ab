! Directive lines stay next to the loop they bind to: whole-loop hooks go above an OpenMP DO
! directive and below its end directive. ASSOCIATE and BLOCK constructs that communicate are
! partitioned in place.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --variant=timing %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: cd %T && %mpif90-syntax -fopenmp %t.f90
subroutine update(u, n, comm)
  use mpi
  implicit none
  integer, intent(in) :: n, comm
  double precision, intent(inout) :: u(n)
  integer :: i, ierr
  !$omp parallel do
  do i = 1, n
    u(i) = u(i) + 1
  end do
  !$omp end parallel do
  associate (first => u(1))
    first = first * 2
    call MPI_Bcast(u, n, MPI_DOUBLE_PRECISION, 0, comm, ierr)
  end associate
  block
    double precision :: s
    s = sum(u)
    call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    u(1) = s
  end block
end subroutine update

! CHECK:        integer :: i, ierr
! CHECK-NEXT:   mpiete_n0 = 0
! CHECK-NEXT:   call mpiete_tm_begin([[U:-?[0-9]+]], 0)
! CHECK-NEXT:   !$omp parallel do
! CHECK-NEXT:   do i = 1, n
! CHECK-NEXT:     mpiete_n0 = mpiete_n0 + 1
! CHECK-NEXT:     u(i) = u(i) + 1
! CHECK-NEXT:   end do
! CHECK-NEXT:   !$omp end parallel do
! CHECK-NEXT:   call mpiete_tm_loop_end([[U]], 0, mpiete_n0)
! CHECK-NEXT:   associate (first => u(1))
! CHECK-NEXT:     call mpiete_tm_begin([[U]], 1)
! CHECK-NEXT:     first = first * 2
! CHECK-NEXT:     call mpiete_tm_end([[U]], 1)
! CHECK-NEXT:     call mpiete_bcast([[U]], 2, u, n, MPI_DOUBLE_PRECISION, 0, comm, ierr)
! CHECK-NEXT:   end associate
! CHECK-NEXT:   block
! CHECK-NEXT:     double precision :: s
! CHECK-NEXT:     call mpiete_tm_begin([[U]], 3)
! CHECK-NEXT:     s = sum(u)
! CHECK-NEXT:     call mpiete_tm_end([[U]], 3)
! CHECK-NEXT:     call mpiete_allreduce([[U]], 4, MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
! CHECK-NEXT:     call mpiete_tm_begin([[U]], 5)
! CHECK-NEXT:     u(1) = s
! CHECK-NEXT:     call mpiete_tm_end([[U]], 5)
! CHECK-NEXT:   end block
