! Ghost-face exchange of f90-stencil3d: for each dimension, the faces are packed, swapped with
! both neighbours by MPI_Sendrecv and unpacked; faces on the global boundary keep their fixed
! values.
module halo
  use mpi
  use decomp
  implicit none
  private
  public :: exchange

contains

  subroutine exchange(u)
    real(8), intent(inout) :: u(0:, 0:, 0:)
    real(8), allocatable :: sbuf(:, :), rbuf(:, :)
    integer :: nx, ny, nz
    nx = nl(1)
    ny = nl(2)
    nz = nl(3)
    ! x faces
    allocate(sbuf(ny, nz), rbuf(ny, nz))
    sbuf = u(nx, 1:ny, 1:nz)
    call swap(sbuf, rbuf, hi(1), lo(1), 11)
    if (lo(1) /= MPI_PROC_NULL) u(0, 1:ny, 1:nz) = rbuf
    sbuf = u(1, 1:ny, 1:nz)
    call swap(sbuf, rbuf, lo(1), hi(1), 12)
    if (hi(1) /= MPI_PROC_NULL) u(nx + 1, 1:ny, 1:nz) = rbuf
    deallocate(sbuf, rbuf)
    ! y faces
    allocate(sbuf(nx, nz), rbuf(nx, nz))
    sbuf = u(1:nx, ny, 1:nz)
    call swap(sbuf, rbuf, hi(2), lo(2), 21)
    if (lo(2) /= MPI_PROC_NULL) u(1:nx, 0, 1:nz) = rbuf
    sbuf = u(1:nx, 1, 1:nz)
    call swap(sbuf, rbuf, lo(2), hi(2), 22)
    if (hi(2) /= MPI_PROC_NULL) u(1:nx, ny + 1, 1:nz) = rbuf
    deallocate(sbuf, rbuf)
    ! z faces
    allocate(sbuf(nx, ny), rbuf(nx, ny))
    sbuf = u(1:nx, 1:ny, nz)
    call swap(sbuf, rbuf, hi(3), lo(3), 31)
    if (lo(3) /= MPI_PROC_NULL) u(1:nx, 1:ny, 0) = rbuf
    sbuf = u(1:nx, 1:ny, 1)
    call swap(sbuf, rbuf, lo(3), hi(3), 32)
    if (hi(3) /= MPI_PROC_NULL) u(1:nx, 1:ny, nz + 1) = rbuf
    deallocate(sbuf, rbuf)
  end subroutine exchange

  !> Sends sbuf to dest while receiving rbuf from source (either may be MPI_PROC_NULL).
  subroutine swap(sbuf, rbuf, dest, source, tag)
    real(8), intent(in) :: sbuf(:, :)
    real(8), intent(inout) :: rbuf(:, :)
    integer, intent(in) :: dest, source, tag
    integer :: status(MPI_STATUS_SIZE), ierr
    call mpi_sendrecv(sbuf, size(sbuf), MPI_DOUBLE_PRECISION, dest, tag, rbuf, size(rbuf), &
                      MPI_DOUBLE_PRECISION, source, tag, cart, status, ierr)
  end subroutine swap

end module halo
