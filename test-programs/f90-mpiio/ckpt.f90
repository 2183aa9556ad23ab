! Checkpoints of a distributed 1-D field with MPI-IO (f90-mpiio): a header of two integers
! written by rank 0 alone, then every rank's block through its file view, collectively.
module ckpt
  use mpi
  implicit none
  private
  public :: write_ckpt, read_ckpt

contains

  subroutine write_ckpt(fname, u, n, rank, nprocs, step)
    character(len=*), intent(in) :: fname
    integer, intent(in) :: n, rank, nprocs, step
    double precision, intent(in) :: u(n)
    integer :: fh, ierr, hdr(2)
    integer(kind=MPI_OFFSET_KIND) :: disp, zero
    call MPI_File_open(MPI_COMM_WORLD, fname, ior(MPI_MODE_CREATE, MPI_MODE_WRONLY), &
                       MPI_INFO_NULL, fh, ierr)
    if (rank == 0) then
      hdr(1) = n * nprocs
      hdr(2) = step
      zero = 0
      call MPI_File_write_at(fh, zero, hdr, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    end if
    disp = 8_MPI_OFFSET_KIND + int(rank, MPI_OFFSET_KIND) * int(n, MPI_OFFSET_KIND) * 8
    call MPI_File_set_view(fh, disp, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, 'native', &
                           MPI_INFO_NULL, ierr)
    call MPI_File_write_all(fh, u, n, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
    call MPI_File_close(fh, ierr)
  end subroutine write_ckpt

  subroutine read_ckpt(fname, w, n, rank, hdr)
    character(len=*), intent(in) :: fname
    integer, intent(in) :: n, rank
    double precision, intent(out) :: w(n)
    integer, intent(out) :: hdr(2)
    integer :: fh, ierr
    integer(kind=MPI_OFFSET_KIND) :: disp, zero
    call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    zero = 0
    call MPI_File_read_at_all(fh, zero, hdr, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    disp = 8_MPI_OFFSET_KIND + int(rank, MPI_OFFSET_KIND) * int(n, MPI_OFFSET_KIND) * 8
    call MPI_File_read_at_all(fh, disp, w, n, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
    call MPI_File_close(fh, ierr)
  end subroutine read_ckpt

end module ckpt
