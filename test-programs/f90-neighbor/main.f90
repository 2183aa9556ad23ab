! f90-neighbor: an integer diffusion on an N x N plate split over a Cartesian grid of ranks
! (periodic along x, walls of zeros along y), exchanging halos with neighbourhood collectives
! (halo.f90). Exact arithmetic modulo a prime, so the checksum is the same at any rank count.
! Usage: f90-neighbor [N [STEPS]] (defaults 600 300). Set TP_TIMING to get rank 0's time from
! MPI_Init to MPI_Finalize on stderr.
program f90_neighbor
  use halo_mod
  implicit none
  integer :: n, steps, step, i, j, ierr, rank, gx, gy, x0, y0, tpst
  integer(8) :: local, total
  double precision :: t0
  character(len=32) :: arg
  call MPI_INIT(ierr)
  t0 = MPI_WTIME()
  n = 600
  steps = 300
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  call setup(n)
  call MPI_COMM_RANK(cart, rank, ierr)
  x0 = coords(1) * (n / dims(1)) + min(coords(1), mod(n, dims(1)))
  y0 = coords(2) * (n / dims(2)) + min(coords(2), mod(n, dims(2)))
  u = 0
  v = 0
  do j = 1, ny
    do i = 1, nx
      gx = x0 + i
      gy = y0 + j
      u(i, j) = mod(gx * 131 + gy * 71 + gx * gy, 997)
    end do
  end do
  do step = 1, steps
    call exchange(step)
    do j = 1, ny
      do i = 1, nx
        v(i, j) = mod(u(i, j) * 3 + u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1), prime)
      end do
    end do
    u(1:nx, 1:ny) = v(1:nx, 1:ny)
  end do
  local = 0
  do j = 1, ny
    do i = 1, nx
      local = mod(local + int(u(i, j), 8) * int(mod((x0 + i) * 7 + (y0 + j) * 13, 101) + 1, 8), &
                  2147483647_8)
    end do
  end do
  call MPI_REDUCE(local, total, 1, MPI_INTEGER8, MPI_SUM, 0, cart, ierr)
  if (rank == 0) then
    write (*, '(A, I0)') 'checksum: ', mod(total, 2147483647_8)
    if (any(allcoords(:, 0) /= 0)) write (*, '(A)') 'coordinates: wrong'
    if (any(nbsize > 0 .and. nbsize /= (n / dims(1)) * (n / dims(2)) .and. &
            mod(n, dims(1)) == 0 .and. mod(n, dims(2)) == 0)) write (*, '(A)') 'sizes: wrong'
  end if
  call MPI_COMM_FREE(cart, ierr)
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-neighbor: elapsed ', &
      MPI_WTIME() - t0, ' s'
  call MPI_FINALIZE(ierr)
end program f90_neighbor
