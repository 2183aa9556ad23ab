! f90-moddata: explicit heat equation on an n x n grid, rows split among the ranks; the
! grid and the decomposition live in a module (fields.f90) that the same file's halo
! exchange, the numerics (physics.f90) and this program all use.
! usage: f90-moddata [n [steps]]   (defaults 128 and 100)
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
! Prints the largest change every steps/5 steps, a checksum and a verification line against
! the exact discrete solution; the output does not depend on the number of ranks. Exits
! with status 1 if the verification fails.
program moddata
  use mpi
  use field_data
  use physics
  implicit none
  integer :: ierr, params(2), steps, s, base, extra, every, tpst
  character(len=32) :: arg
  real(dp) :: t0, t1, change, gchange, err, gerr
  integer(8) :: lsum, gsum
  logical :: ok

  call mpi_init(ierr)
  t0 = mpi_wtime()
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (rank == 0) then
    params = [128, 100]
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read(arg, *) params(1)
    end if
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read(arg, *) params(2)
    end if
  end if
  call mpi_bcast(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  n = params(1)
  steps = params(2)
  if (n < nproc .or. steps < 1) then
    if (rank == 0) print '(A)', 'usage: f90-moddata [n >= ranks [steps >= 1]]'
    call mpi_finalize(ierr)
    stop 1
  end if

  ! Rows split as evenly as possible, the first ranks taking one more.
  base = n / nproc
  extra = mod(n, nproc)
  nloc = base
  if (rank < extra) nloc = base + 1
  j0 = rank * base + min(rank, extra)
  up = rank - 1
  down = rank + 1
  if (rank == 0) up = MPI_PROC_NULL
  if (rank == nproc - 1) down = MPI_PROC_NULL
  allocate(t(0:n + 1, 0:nloc + 1), tnew(0:n + 1, 0:nloc + 1))
  if (rank == 0) print '(A,I0,A,I0,A,I0,A)', 'f90-moddata: grid ', n, ' x ', n, ', ', steps, &
                                               ' steps'

  call set_initial()
  every = max(1, steps / 5)
  do s = 1, steps
    call exchange_halo()
    change = advance()
    if (mod(s, every) == 0) then
      call mpi_allreduce(change, gchange, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
      if (rank == 0) print '(A,I7,A,ES12.5)', 'step', s, ': largest change', gchange
    end if
  end do

  lsum = fixed_sum()
  err = mode_error(steps)
  call mpi_reduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call mpi_reduce(err, gerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  ok = .true.
  if (rank == 0) then
    print '(A,I0)', 'checksum: ', gsum
    ok = gerr < 1.0e-12_dp
    if (ok) then
      print '(A)', 'verification: the exact discrete mode within 1e-12: passed'
    else
      print '(A,ES10.3,A)', 'verification: deviation ', gerr, ' from the exact discrete mode: FAILED'
    end if
  end if
  deallocate(t, tnew)
  t1 = mpi_wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-moddata: elapsed ', t1 - t0, ' s'
  call mpi_finalize(ierr)
  if (.not. ok) stop 1
end program moddata
