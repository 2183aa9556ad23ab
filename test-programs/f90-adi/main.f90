! f90-adi: the heat equation on the unit square by Peaceman-Rachford ADI (implicit along x,
! then along y, each half step a tridiagonal solve per grid line). The ranks hold blocks of
! rows for the x sweeps and blocks of columns for the y sweeps, with a transpose
! (MPI_Alltoallv) between; after every step rank 0 alone also gathers the diagonal
! (MPI_Gatherv) and computes its sine spectrum, a serial diagnostic the others wait for.
! usage: f90-adi [n [steps]]   (defaults 64 and 20)
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
! Prints the diagnostic every steps/5 steps, a checksum and a verification line (the field
! against the exact discrete solution: the initial mode scaled by the ADI factor); the output
! does not depend on the number of ranks. Exits with status 1 if the verification fails.
program adi
  use mpi
  use grid
  use sweeps
  implicit none
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  real(dp), parameter :: r = 2.0_dp   ! dt / h**2: ADI is stable for any r
  real(dp), allocatable :: u(:, :), w(:, :), diag(:), gdiag(:), spec(:)
  integer, allocatable :: dcount(:), ddispl(:)
  integer :: ierr, params(2), steps, s, i, j, nm, every, tpst
  character(len=32) :: arg
  real(dp) :: t0, t1, h, g, err, gerr
  integer(8) :: lsum, gsum
  logical :: ok

  call mpi_init(ierr)
  t0 = mpi_wtime()
  call mpi_comm_rank(MPI_COMM_WORLD, i, ierr)
  if (i == 0) then
    params = [64, 20]
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
  call setup_grid(params(1))
  steps = params(2)
  if (n < nproc .or. steps < 1) then
    if (rank == 0) print '(A)', 'usage: f90-adi [n >= ranks [steps >= 1]]'
    call mpi_finalize(ierr)
    stop 1
  end if
  h = 1.0_dp / (n + 1)
  nm = max(1, n / 4)
  if (rank == 0) print '(A,I0,A,I0,A,I0,A)', 'f90-adi: grid ', n, ' x ', n, ', ', steps, ' steps'

  ! Column layout u(j, il): the mode sin(pi x) sin(pi y).
  allocate(u(n, nr), w(n, nr), diag(nr), gdiag(n), spec(nm), dcount(0:nproc - 1), &
           ddispl(0:nproc - 1))
  do i = 1, nr
    do j = 1, n
      u(j, i) = sin(pi * j * h) * sin(pi * (rlo + i) * h)
    end do
  end do
  dcount = count
  ddispl = first

  every = max(1, steps / 5)
  do s = 1, steps
    ! Half step 1: explicit along y (whole columns here), implicit along x (whole rows).
    call explicit_part(u, w, n, nr, r)
    call to_rows(w, u)
    call implicit_lines(u, n, nr, r)
    ! Half step 2: explicit along x, implicit along y.
    call explicit_part(u, w, n, nr, r)
    call to_columns(w, u)
    call implicit_lines(u, n, nr, r)
    ! Rank 0's diagnostic: the diagonal's sine coefficients.
    do i = 1, nr
      diag(i) = u(rlo + i, i)
    end do
    call mpi_gatherv(diag, nr, MPI_DOUBLE_PRECISION, gdiag, dcount, ddispl, &
                     MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      call sine_spectrum(gdiag, n, spec, nm)
      if (mod(s, every) == 0) print '(A,I6,A,F14.10,A,F14.10)', 'step', s, &
        ': diagonal mode 1', spec(1), ', mode 3', spec(min(3, nm))
    end if
  end do

  ! The mode decays by g per step: ((1 - r mu / 2) / (1 + r mu / 2))**2, mu = 4 sin(pi h/2)**2.
  g = ((1.0_dp - 2.0_dp * r * sin(0.5_dp * pi * h)**2) / &
       (1.0_dp + 2.0_dp * r * sin(0.5_dp * pi * h)**2))**2
  err = 0.0_dp
  lsum = 0
  do i = 1, nr
    do j = 1, n
      err = max(err, abs(u(j, i) - g**steps * sin(pi * j * h) * sin(pi * (rlo + i) * h)))
      lsum = lsum + nint(u(j, i) * 1.0e12_dp, 8)
    end do
  end do
  call mpi_reduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call mpi_allreduce(err, gerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  ok = gerr < 1.0e-11_dp
  if (rank == 0) then
    print '(A,I0)', 'checksum: ', gsum
    if (ok) then
      print '(A)', 'verification: the exact discrete solution within 1e-11: passed'
    else
      print '(A,ES10.3,A)', 'verification: deviation ', gerr, ' from the exact discrete solution: FAILED'
    end if
  end if
  t1 = mpi_wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-adi: elapsed ', t1 - t0, ' s'
  call mpi_finalize(ierr)
  if (.not. ok) stop 1

contains

  !> spec(k) = 2/(n+1) sum_i d(i) sin(k pi i h), k = 1..nm, term by term.
  subroutine sine_spectrum(d, n, spec, nm)
    integer, intent(in) :: n, nm
    real(dp), intent(in) :: d(n)
    real(dp), intent(out) :: spec(nm)
    integer :: k, i
    real(dp) :: acc
    do k = 1, nm
      acc = 0.0_dp
      do i = 1, n
        acc = acc + d(i) * sin(k * pi * i / (n + 1))
      end do
      spec(k) = 2.0_dp * acc / (n + 1)
    end do
  end subroutine sine_spectrum

end program adi
