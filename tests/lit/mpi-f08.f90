! `use mpi_f08`: handles are derived types and ierror is optional. A call with its ierror keeps
! it and gets the site's index; a call without one gets -(index + 1), so the runtime writes no
! error code; a last `ierror=` loses its keyword. Local routines and the handle types stay as
! written.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: cd %T && %mpif90-syntax %t.f90
program modern
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  type(MPI_Request) :: req
  type(MPI_Status) :: st
  integer :: me, ierr
  double precision :: v
  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_rank(comm, me)
  v = me
  call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
  call MPI_Irecv(v, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 0, comm, req)
  call MPI_Send(v, 1, MPI_DOUBLE_PRECISION, me, 0, comm, ierr)
  call MPI_Wait(req, st)
  call MPI_Barrier(comm, ierror = ierr)
  call MPI_Barrier(comm, IERROR= &
                   ierr)
  if (st%MPI_SOURCE /= me .or. comm == MPI_COMM_NULL) stop 1
  call MPI_Comm_free(comm)
  call MPI_Finalize(ierr)
end program modern

! CHECK:        call mpiete_init([[U:-?[0-9]+]], -1)
! CHECK-NEXT:   call mpiete_comm_dup([[U]], 1, MPI_COMM_WORLD, comm, ierr)
! CHECK-NEXT:   call mpiete_tr_block([[U]], 2)
! CHECK-NEXT:   call MPI_Comm_rank(comm, me)
! CHECK-NEXT:   v = me
! CHECK-NEXT:   call mpiete_allreduce([[U]], -4, MPI_IN_PLACE, v, 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm)
! CHECK-NEXT:   call mpiete_irecv([[U]], -5, v, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 0, comm, req)
! CHECK-NEXT:   call mpiete_send([[U]], 5, v, 1, MPI_DOUBLE_PRECISION, me, 0, comm, ierr)
! CHECK-NEXT:   call mpiete_wait([[U]], -8, req, st)
! CHECK-NEXT:   call mpiete_barrier([[U]], 8, comm, ierr)
! CHECK-NEXT:   call mpiete_barrier([[U]], 9, comm, &
! CHECK-NEXT:                    ierr)
! CHECK-NEXT:   if (st%MPI_SOURCE /= me .or. comm == MPI_COMM_NULL) stop 1
! CHECK-NEXT:   call mpiete_comm_free([[U]], -11, comm)
! CHECK-NEXT:   call mpiete_finalize([[U]], 11, ierr)
