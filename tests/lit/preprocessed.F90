! A preprocessed source (.F90): Flang preprocesses with the user's -D; the edits apply to the
! file as written, so the directives stay for the native compiler, and the unit id depends on
! the macros.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks %s -- %mpi-fflags -DUSE_BARRIER | tee %t.F90 | FileCheck --match-full-lines %s
! RUN: cd %T && %mpif90-syntax -DUSE_BARRIER %t.F90
! RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=PLAIN %s
#define NX 64
subroutine step(u, comm)
  use mpi
  implicit none
  integer, intent(in) :: comm
  double precision, intent(inout) :: u(NX)
  integer :: ierr
  u = u * 0.5d0
#ifdef USE_BARRIER
  call MPI_Barrier(comm, ierr)
#endif
  u(1) = u(NX)
end subroutine step

! CHECK:        u = u * 0.5d0
! CHECK-NEXT: #ifdef USE_BARRIER
! CHECK-NEXT:   call mpiete_barrier({{-?[0-9]+}}, 1, comm, ierr)
! CHECK-NEXT: #endif
! CHECK-NEXT:   call mpiete_tr_block({{-?[0-9]+}}, 2)
! CHECK-NEXT:   u(1) = u(NX)

! Without the macro the procedure does not communicate: no blocks.
! PLAIN:      procedures: []
! PLAIN-NOT:  kind:
