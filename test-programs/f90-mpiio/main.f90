! f90-mpiio: a 1-D heat equation that checkpoints its field with MPI-IO every EVERY steps
! (module ckpt, its own file) and reads the last checkpoint back to check it.
! Usage: f90-mpiio [n] [steps] [every]   (points per rank, time steps, checkpoint interval)
program heat
  use mpi
  use ckpt
  implicit none
  integer :: rank, nprocs, ierr, n, steps, every, s, i, left, right, last, hdr(2)
  integer :: same, allsame
  double precision, allocatable :: u(:), v(:), w(:)
  double precision :: lsum, gsum
  character(len=32) :: a

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = 200000
  steps = 200
  every = 50
  if (command_argument_count() >= 1) then
    call get_command_argument(1, a)
    read (a, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, a)
    read (a, *) steps
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, a)
    read (a, *) every
  end if
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL

  allocate(u(0:n+1), v(0:n+1), w(n))
  do i = 0, n + 1
    u(i) = dble(mod(rank * n + i, 97)) / 97.0d0
  end do
  v = u
  last = -1
  do s = 1, steps
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 0, u(n+1), 1, &
                      MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, &
                      MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do i = 1, n
      v(i) = u(i) + 0.25d0 * (u(i-1) - 2.0d0 * u(i) + u(i+1))
    end do
    u(1:n) = v(1:n)
    if (every > 0 .and. mod(s, every) == 0) then
      call write_ckpt('heat90.ckpt', u(1:n), n, rank, nprocs, s)
      last = s
    end if
  end do

  same = 1
  if (last > 0) then
    call read_ckpt('heat90.ckpt', w, n, rank, hdr)
    if (hdr(1) /= n * nprocs .or. hdr(2) /= last) same = 0
    if (any(w /= u(1:n))) same = 0
  end if
  lsum = sum(u(1:n))
  call MPI_Reduce(lsum, gsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(same, allsame, 1, MPI_INTEGER, MPI_MIN, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (allsame == 1) then
      write (*, '(a,i0,a,es18.10,a,i0,a)') 'f90-mpiio: ', nprocs, ' ranks, sum ', gsum, &
        ', last checkpoint step ', last, ' read back equal'
    else
      write (*, '(a)') 'f90-mpiio: READ BACK DIFFERENT'
    end if
  end if
  deallocate(u, v, w)
  call MPI_Finalize(ierr)
end program heat
