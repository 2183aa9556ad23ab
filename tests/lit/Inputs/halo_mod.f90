! A module with a procedure that communicates and one that does not (module-across-files.f90).
module halo_mod
  use mpi
  implicit none
contains
  subroutine exchange(u, n, peer)
    integer, intent(in) :: n, peer
    double precision, intent(inout) :: u(n)
    integer :: ierr
    call MPI_Sendrecv_replace(u, n, MPI_DOUBLE_PRECISION, peer, 1, peer, 1, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine exchange
  subroutine scale(u, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: u(n)
    u = 2 * u
  end subroutine scale
end module halo_mod
