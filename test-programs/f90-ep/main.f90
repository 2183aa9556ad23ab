! f90-ep: an embarrassingly parallel kernel. Rank 0 reads the problem size and broadcasts it
! (MPI_Bcast); the ranks share out independent random walks round-robin, then combine their
! integer statistics (MPI_Reduce, MPI_Allreduce).
! usage: f90-ep [walks [steps]]   (defaults 6000 and 400)
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
! The output does not depend on the number of ranks.
program ep
  use mpi
  use walks
  implicit none
  integer :: rank, nproc, ierr, params(3), far, gfar, b
  integer(8) :: dist2, hist(nbins), returns, gdist2, ghist(nbins), greturns
  character(len=32) :: arg
  real(8) :: t0, t1
  integer :: tpst

  call mpi_init(ierr)
  t0 = mpi_wtime()
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (rank == 0) then
    params = [6000, 400, 0]
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read(arg, *) params(1)
    end if
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read(arg, *) params(2)
    end if
    params(3) = max(1, params(2) / 4)  ! histogram bin width in squared distance
  end if
  call mpi_bcast(params, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)

  dist2 = 0
  hist = 0
  returns = 0
  far = 0
  call walk_stats(rank + 1, nproc, params(1), params(2), params(3), dist2, hist, returns, far)

  call mpi_reduce(dist2, gdist2, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call mpi_reduce(hist, ghist, nbins, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call mpi_allreduce(returns, greturns, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call mpi_allreduce(far, gfar, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(A,I0,A,I0,A)', 'f90-ep: ', params(1), ' walks of ', params(2), ' steps'
    print '(A,F12.4)', 'mean squared end distance: ', real(gdist2, 8) / params(1)
    print '(A,I0)', 'walks back at the origin at least once: ', greturns
    print '(A,I0)', 'largest squared distance reached: ', gfar
    do b = 1, nbins
      print '(A,I2,A,I0)', 'end distance bin ', b, ': ', ghist(b)
    end do
  end if
  t1 = mpi_wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-ep: elapsed ', t1 - t0, ' s'
  call mpi_finalize(ierr)
end program ep
