! f08-mpiio: f90-mpiio's heat equation and checkpoints against `use mpi_f08` (handles of
! derived types, ierror left out), in one file.
! Usage: f08-mpiio [n] [steps] [every]   (points per rank, time steps, checkpoint interval)
program heat08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, n, steps, every, s, i, left, right, last, hdr(2), same, allsame
  double precision, allocatable :: u(:), v(:), w(:)
  double precision :: lsum, gsum
  character(len=32) :: a
  type(MPI_File) :: fh
  integer(kind=MPI_OFFSET_KIND) :: disp, zero

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  n = 200000
  steps = 200
  every = 50
  if (command_argument_count() >= 3) then
    call get_command_argument(1, a)
    read (a, *) n
    call get_command_argument(2, a)
    read (a, *) steps
    call get_command_argument(3, a)
    read (a, *) every
  end if
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL
  allocate(u(0:n+1), v(0:n+1), w(n))
  do i = 0, n + 1
    u(i) = dble(mod(rank * n + i, 89)) / 89.0d0
  end do
  v = u
  last = -1
  zero = 0
  disp = 8_MPI_OFFSET_KIND + int(rank, MPI_OFFSET_KIND) * int(n, MPI_OFFSET_KIND) * 8
  do s = 1, steps
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 0, u(n+1), 1, &
                      MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, &
                      MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    do i = 1, n
      v(i) = u(i) + 0.25d0 * (u(i-1) - 2.0d0 * u(i) + u(i+1))
    end do
    u(1:n) = v(1:n)
    if (every > 0 .and. mod(s, every) == 0) then
      call MPI_File_open(MPI_COMM_WORLD, 'heat08.ckpt', ior(MPI_MODE_CREATE, MPI_MODE_WRONLY), &
                         MPI_INFO_NULL, fh)
      if (rank == 0) then
        hdr = [n * nprocs, s]
        call MPI_File_write_at(fh, zero, hdr, 2, MPI_INTEGER, MPI_STATUS_IGNORE)
      end if
      call MPI_File_write_at_all(fh, disp, u(1:n), n, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE)
      call MPI_File_close(fh)
      last = s
    end if
  end do

  same = 1
  if (last > 0) then
    call MPI_File_open(MPI_COMM_WORLD, 'heat08.ckpt', MPI_MODE_RDONLY, MPI_INFO_NULL, fh)
    call MPI_File_read_at_all(fh, zero, hdr, 2, MPI_INTEGER, MPI_STATUS_IGNORE)
    call MPI_File_read_at_all(fh, disp, w, n, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE)
    call MPI_File_close(fh)
    if (hdr(1) /= n * nprocs .or. hdr(2) /= last) same = 0
    if (any(w /= u(1:n))) same = 0
  end if
  lsum = sum(u(1:n))
  call MPI_Reduce(lsum, gsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD)
  call MPI_Allreduce(same, allsame, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  if (rank == 0) then
    if (allsame == 1) then
      write (*, '(a,i0,a,es18.10,a,i0,a)') 'f08-mpiio: ', nprocs, ' ranks, sum ', gsum, &
        ', last checkpoint step ', last, ' read back equal'
    else
      write (*, '(a)') 'f08-mpiio: READ BACK DIFFERENT'
    end if
  end if
  deallocate(u, v, w)
  call MPI_Finalize()
end program heat08
