! f90-farm: a master/worker farm of n tasks with one parameter in free-form Fortran 90
! (farm-1d's farm, test-programs/farm-1d): task i (1..n) costs about
! base * (1 + 3 sin^2(pi (i - 1/2) / n)) steps. The tasks live in the module farm_costs
! (farm_costs.f90, no MPI), where the directives !$mpiete task(i) / !$mpiete end task mark the
! task's body (docs/taskfarm.md); a plain compiler takes them for comments. Every MPI call is
! in this file.
! usage: mpirun -np P f90-farm [ntasks [base]]   (defaults 256 400000)
! Rank 0 is the master: it hands the tasks out in increasing order to whichever worker returns
! first (MPI_ANY_SOURCE receives); ranks 1..P-1 are the workers, and one rank alone does every
! task itself. Results are stored by task, so the output does not depend on which worker ran
! which task, nor on P. TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
program f90farm
  use mpi
  use farm_costs
  implicit none
  integer, parameter :: tag_work = 1, tag_result = 2, tag_stop = 3
  integer :: ierr, rank, nproc, params(2), k, done, total, tpst
  integer :: next, outstanding          ! the master's next task and tasks out
  character(len=32) :: arg
  real(dp) :: t0, total_sum, weighted
  real(dp), allocatable :: results(:)

  call mpi_init(ierr)
  t0 = mpi_wtime()
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (rank == 0) then
    params = [256, 400000]
    do k = 1, min(command_argument_count(), 2)
      call get_command_argument(k, arg)
      read (arg, *) params(k)
    end do
  end if
  call mpi_bcast(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  ntasks = params(1)
  base = params(2)
  if (ntasks < 1 .or. base < 1 .or. base > 500000000) then
    if (rank == 0) print '(A)', 'usage: f90-farm [ntasks >= 1 [base in 1..5e8]]'
    call mpi_finalize(ierr)
    stop 1
  end if

  done = 0
  if (rank == 0) then
    allocate(results(ntasks))
    call master()
    if (nproc == 1) done = ntasks
  else
    call worker()
  end if
  call mpi_reduce(done, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    ! The results in task order, and weighted by the task's number (a result stored under the
    ! wrong task changes it).
    total_sum = 0.0_dp
    weighted = 0.0_dp
    do k = 1, ntasks
      total_sum = total_sum + results(k)
      weighted = weighted + k * results(k)
    end do
    print '(A,I0,A,I0)', 'f90-farm: tasks ', ntasks, ', base ', base
    print '(A,I0,A,I0)', 'tasks done: ', total, ' of ', ntasks
    print '(A,F0.9)', 'result sum: ', total_sum
    print '(A,F0.6)', 'weighted by task: ', weighted
    deallocate(results)
  end if
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write (0, '(A,F0.6,A)') 'f90-farm: elapsed ', &
    mpi_wtime() - t0, ' s'
  call mpi_finalize(ierr)

contains

  ! The master: one task to each worker (an empty stop message to a worker left without one),
  ! then each result, from whichever worker, is stored by its task number and its worker gets
  ! the next task or the stop.
  subroutine master()
    integer :: w, st(MPI_STATUS_SIZE)
    real(dp) :: res(2)

    if (nproc == 1) then
      do next = 1, ntasks
        call run_task(next, results(next))
      end do
      return
    end if
    next = 1
    outstanding = 0
    do w = 1, nproc - 1
      call hand_out(w)
    end do
    do while (outstanding > 0)
      call mpi_recv(res, 2, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, tag_result, &
                    MPI_COMM_WORLD, st, ierr)
      outstanding = outstanding - 1
      results(nint(res(1))) = res(2)
      call hand_out(st(MPI_SOURCE))
    end do
  end subroutine master

  ! The master sends worker w the next task, or the stop when none is left.
  subroutine hand_out(w)
    integer, intent(in) :: w
    integer :: msg(1)
    if (next <= ntasks) then
      msg(1) = next
      next = next + 1
      call mpi_send(msg, 1, MPI_INTEGER, w, tag_work, MPI_COMM_WORLD, ierr)
      outstanding = outstanding + 1
    else
      msg(1) = 0
      call mpi_send(msg, 0, MPI_INTEGER, w, tag_stop, MPI_COMM_WORLD, ierr)
    end if
  end subroutine hand_out

  ! A worker: runs the tasks it receives until the stop message and returns (task, result);
  ! done counts its tasks.
  subroutine worker()
    integer :: msg(1), st(MPI_STATUS_SIZE)
    real(dp) :: res(2)

    do
      call mpi_recv(msg, 1, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
      if (st(MPI_TAG) == tag_stop) exit
      res(1) = msg(1)
      call run_task(msg(1), res(2))
      call mpi_send(res, 2, MPI_DOUBLE_PRECISION, 0, tag_result, MPI_COMM_WORLD, ierr)
      done = done + 1
    end do
  end subroutine worker

end program f90farm
