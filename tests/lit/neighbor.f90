! Neighbourhood collectives in Fortran, with `use mpi` and with `use mpi_f08` (no ierror):
! renamed to the runtime's entry points (in the case written) with their unit and block, one
! collective block each.
! REQUIRES: fortran
! RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: cd %T && %mpif90-syntax %t.f90
subroutine faces(s, r, n, cart)
  use mpi
  implicit none
  integer, intent(in) :: n, cart
  double precision, intent(inout) :: s(4*n), r(4*n)
  integer :: ierr, req, counts(4), displs(4), types(4)
  integer(kind=MPI_ADDRESS_KIND) :: bytes(4)
  call MPI_Neighbor_alltoall(s, n, MPI_DOUBLE_PRECISION, r, n, MPI_DOUBLE_PRECISION, cart, ierr)
  counts = n
  displs = (/ 0, n, 2*n, 3*n /)
  call MPI_NEIGHBOR_ALLTOALLV(s, counts, displs, MPI_DOUBLE_PRECISION, r, counts, displs, &
                              MPI_DOUBLE_PRECISION, cart, ierr)
  call MPI_Ineighbor_allgather(s, 1, MPI_DOUBLE_PRECISION, r, 1, MPI_DOUBLE_PRECISION, cart, &
                               req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  types = MPI_DOUBLE_PRECISION
  bytes = (/ 0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND*n, 16_MPI_ADDRESS_KIND*n, 24_MPI_ADDRESS_KIND*n /)
  call MPI_Neighbor_alltoallw(s, counts, bytes, types, r, counts, bytes, types, cart, ierr)
  call MPI_Alltoallw(s, counts, displs, types, r, counts, displs, types, MPI_COMM_WORLD, ierr)
  call MPI_Ialltoallw(s, counts, displs, types, r, counts, displs, types, MPI_COMM_WORLD, req, &
                      ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
end subroutine faces

subroutine sizes(mine, theirs, cart)
  use mpi_f08
  implicit none
  integer, intent(in) :: mine
  integer, intent(out) :: theirs(4)
  type(MPI_Comm), intent(in) :: cart
  call MPI_Neighbor_allgather(mine, 1, MPI_INTEGER, theirs, 1, MPI_INTEGER, cart)
end subroutine sizes

! CHECK:      subroutine faces(s, r, n, cart)
! CHECK:        call mpiete_neighbor_alltoall([[U:-?[0-9]+]], 0, s, n, MPI_DOUBLE_PRECISION, r, n, MPI_DOUBLE_PRECISION, cart, ierr)
! CHECK:        call MPIETE_NEIGHBOR_ALLTOALLV([[U]], 1, s, counts, displs, MPI_DOUBLE_PRECISION, r, counts, displs, &
! CHECK:        call mpiete_ineighbor_allgather([[U]], 2, s, 1, MPI_DOUBLE_PRECISION, r, 1, MPI_DOUBLE_PRECISION, cart, &
! CHECK:        call mpiete_wait([[U]], 3, req, MPI_STATUS_IGNORE, ierr)
! CHECK:        call mpiete_neighbor_alltoallw([[U]], 4, s, counts, bytes, types, r, counts, bytes, types, cart, ierr)
! CHECK-NEXT:   call mpiete_alltoallw([[U]], 5, s, counts, displs, types, r, counts, displs, types, MPI_COMM_WORLD, ierr)
! CHECK-NEXT:   call mpiete_ialltoallw([[U]], 6, s, counts, displs, types, r, counts, displs, types, MPI_COMM_WORLD, req, &
! CHECK:      subroutine sizes(mine, theirs, cart)
! CHECK:        call mpiete_neighbor_allgather([[U]], -9, mine, 1, MPI_INTEGER, theirs, 1, MPI_INTEGER, cart)
