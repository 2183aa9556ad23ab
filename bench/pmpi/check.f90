! Known compute for checking pmpiclock.c: rank r spins 10 x (r+1) x 20 ms between MPI calls.
program check
  use mpi
  implicit none
  integer :: ierr, rank, s, steps
  integer(8) :: t0, t1, rate
  double precision :: spin, busy, x, total
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  steps = 10
  spin = 0.02d0 * (rank + 1)
  busy = 0
  x = 1
  call system_clock(count_rate=rate)
  do s = 1, steps
    call system_clock(t0)
    do
      x = x * 1.0000001d0 + 1d-9
      call system_clock(t1)
      if (dble(t1 - t0) / dble(rate) >= spin) exit
    end do
    busy = busy + dble(t1 - t0) / dble(rate)
    call mpi_allreduce(x, total, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
    call mpi_barrier(mpi_comm_world, ierr)
  end do
  write (0, '(a,i0,a,f12.9,a)') 'check: rank ', rank, ' spun ', busy, ' s'
  call mpi_finalize(ierr)
end program check
