! f08-halo: Jacobi sweeps on a periodic N x N grid (grid.f90) from values of the global
! coordinates, the residual summed with an in-place MPI_Allreduce every tenth sweep and
! printed to 5 digits (the same at any rank count whose process grid divides N).
! Usage: f08-halo N STEPS
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
program f08halo
  use mpi_f08
  use grid
  implicit none
  integer :: n, steps, s, i, j, tpst
  character(len=32) :: arg
  double precision :: res, total, t0
  call MPI_Init()
  t0 = MPI_Wtime()
  n = 256
  steps = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  call setup(n)
  do j = 0, ny + 1
    do i = 0, nx + 1
      u(i, j) = mod((coords(1) * nx + i) * 3 + (coords(2) * ny + j) * 7, 11)
    end do
  end do
  total = 0
  do s = 1, steps
    call exchange()
    res = 0
    do j = 1, ny
      do i = 1, nx
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        res = res + abs(v(i, j) - u(i, j))
      end do
    end do
    u(1:nx, 1:ny) = v(1:nx, 1:ny)
    if (mod(s, 10) == 0) then
      call MPI_Allreduce(MPI_IN_PLACE, res, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart)
      total = res
    end if
  end do
  if (me == 0) write (*, '(a, es12.5)') 'residual ', total
  call MPI_Type_free(row)
  call MPI_Comm_free(cart)
  call get_environment_variable('TP_TIMING', status=tpst)
  if (me == 0 .and. tpst == 0) write (0, '(a, f0.6, a)') 'f08-halo: elapsed ', MPI_Wtime() - t0, ' s'
  call MPI_Finalize()
end program f08halo
