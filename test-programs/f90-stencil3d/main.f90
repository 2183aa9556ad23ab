! f90-stencil3d: diffusion on an n x n x n grid split over a 3-D Cartesian process grid.
! usage: f90-stencil3d [n [steps]]   (defaults 24 and 40)
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
! Every 10 steps prints the field's checksum and its largest interior value,
! both independent of the number of ranks.
program stencil3d
  use mpi
  use decomp
  use halo
  use kernel
  implicit none
  integer :: n, steps, s, ierr
  integer(8) :: lsum, gsum
  real(8) :: slabmax, gmax
  real(8), allocatable :: u(:, :, :), v(:, :, :)
  character(len=32) :: arg
  real(8) :: t0, t1
  integer :: tpst

  call mpi_init(ierr)
  t0 = mpi_wtime()
  n = 24
  steps = 40
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read(arg, *) steps
  end if
  call setup_grid(n)
  if (any(nl < 1)) then
    if (rank == 0) print '(A,I0)', 'f90-stencil3d: unsupported n=', n
    call mpi_finalize(ierr)
    stop
  end if
  if (rank == 0) print '(A,I0,A,I0,A,I0,A,I0,A)', 'f90-stencil3d: grid ', n, ' x ', n, ' x ', &
      n, ', ', steps, ' steps'

  allocate(u(0:nl(1) + 1, 0:nl(2) + 1, 0:nl(3) + 1), v(0:nl(1) + 1, 0:nl(2) + 1, 0:nl(3) + 1))
  call init_field(u)
  v = u
  do s = 1, steps
    call exchange(u)
    call step(u, v)
    if (mod(s, 10) == 0) then
      lsum = local_sum(u)
      call mpi_allreduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, cart, ierr)
      ! The slab's largest value, then the largest over the slabs.
      call mpi_allreduce(local_max(u), slabmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, slab, ierr)
      call mpi_allreduce(slabmax, gmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
      if (rank == 0) print '(A,I4,A,I0,A,F10.7)', 'step', s, ': checksum ', gsum, &
          ', largest value ', gmax
    end if
  end do
  call free_grid()
  t1 = mpi_wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-stencil3d: elapsed ', t1 - t0, ' s'
  call mpi_finalize(ierr)
end program stencil3d
