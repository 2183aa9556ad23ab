! Free form with `use mpi`: collectives and communicator management are renamed to the
! runtime's entry points with their unit and block; local routines stay as written.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
! RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
subroutine reduce_all(x, n, comm)
  use mpi
  implicit none
  integer, intent(in) :: n, comm
  double precision, intent(inout) :: x(n)
  double precision :: s, t(n)
  integer :: ierr, rank, sub
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Bcast(x, n, MPI_DOUBLE_PRECISION, 0, comm, ierr)
  s = sum(x)
  call MPI_Reduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
  call MPI_Alltoall(x, 1, MPI_DOUBLE_PRECISION, t, 1, MPI_DOUBLE_PRECISION, comm, ierr)
  call MPI_Comm_split(comm, mod(rank, 2), rank, sub, ierr)
  if (rank == 0) call MPI_Barrier(sub, ierr)
  call MPI_Comm_free(sub, ierr)
end subroutine reduce_all

! CHECK:      subroutine reduce_all(x, n, comm)
! CHECK:        call mpiete_tr_block([[U:-?[0-9]+]], 0)
! CHECK-NEXT:   call MPI_Comm_rank(comm, rank, ierr)
! CHECK-NEXT:   call mpiete_bcast([[U]], 1, x, n, MPI_DOUBLE_PRECISION, 0, comm, ierr)
! CHECK-NEXT:   call mpiete_tr_block([[U]], 2)
! CHECK-NEXT:   s = sum(x)
! CHECK-NEXT:   call mpiete_reduce([[U]], 3, s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
! CHECK-NEXT:   call mpiete_allreduce([[U]], 4, MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
! CHECK-NEXT:   call mpiete_alltoall([[U]], 5, x, 1, MPI_DOUBLE_PRECISION, t, 1, MPI_DOUBLE_PRECISION, comm, ierr)
! CHECK-NEXT:   call mpiete_comm_split([[U]], 6, comm, mod(rank, 2), rank, sub, ierr)
! CHECK-NEXT:   if (rank == 0) call mpiete_barrier([[U]], 7, sub, ierr)
! CHECK-NEXT:   call mpiete_comm_free([[U]], 8, sub, ierr)
! CHECK-NEXT: end subroutine reduce_all

! MAP:      procedures: [reduce_all]
! MAP:      - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:   kind: compute
! MAP:      - id: [[U]]:1
! MAP-NEXT:   kind: collective
! MAP:        routine: MPI_Bcast
! MAP:      - id: [[U]]:3
! MAP-NEXT:   kind: collective
! MAP:        routine: MPI_Reduce
! MAP:      - id: [[U]]:6
! MAP-NEXT:   kind: comm-mgmt
! MAP:        routine: MPI_Comm_split
! MAP:      - id: [[U]]:7
! MAP-NEXT:   kind: collective
! MAP:        routine: MPI_Barrier
! MAP:      - id: [[U]]:8
! MAP-NEXT:   kind: comm-mgmt
! MAP:        routine: MPI_Comm_free
! MAP-NOT:  - id:
