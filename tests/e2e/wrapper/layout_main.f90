! layout_main.f90: MPI calls around loops of pure computation in one program unit
! (e2e.wrapper.place_loops): its hot loops lie where the program's do in the timing probe too.
program layout
  use mpi
  implicit none
  integer, parameter :: n = 1000
  double precision :: u(n), v(n), local, total
  integer :: ierr, rank, nranks, i, step
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nranks, ierr)
  do i = 1, n
    u(i) = dble(mod(i * 7 + rank, 13))
    v(i) = u(i)
  end do
  do step = 1, 4
    call mpi_bcast(u, 1, mpi_double_precision, 0, mpi_comm_world, ierr)
    do i = 2, n - 1
      v(i) = u(i) + 0.1d0 * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
    end do
    call fsmooth(u, v, n, 2)
  end do
  local = sum(u)
  call mpi_reduce(local, total, 1, mpi_double_precision, mpi_sum, 0, mpi_comm_world, ierr)
  if (rank == 0) print '(a,i0,a,es14.6)', 'flayout: ', nranks, ' ranks, sum ', total
  call mpi_finalize(ierr)
end program layout
