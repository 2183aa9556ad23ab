! f90-transpose: 2-D discrete Fourier transforms of four n x n complex matrices, each by row
! transforms, a distributed transpose (MPI_Alltoall on a group's communicator) and row
! transforms again. Groups of ranks share out the four problems.
! usage: f90-transpose [n]   (default 32; n must be even)
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
! Prints, per problem, the spectrum's energy as a fixed-point checksum and whether it matches
! the input's (Parseval); independent of the number of ranks.
program fft_transpose
  use mpi
  use layout
  use fourier
  use transpose
  implicit none
  integer, parameter :: nprob = 4
  integer :: n, nr, k, r, c, ierr
  integer(8) :: ein(nprob), eout(nprob), gin(nprob), gout(nprob), tin(nprob), tout(nprob)
  complex(8), allocatable :: x(:, :)
  character(len=32) :: arg
  real(8) :: t0, t1
  integer :: tpst

  call mpi_init(ierr)
  t0 = mpi_wtime()
  call setup_groups()
  n = 32
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  if (n < 2 .or. mod(n, gsize) /= 0) then
    if (rank == 0) print '(A,I0)', 'f90-transpose: unsupported n=', n
    call mpi_finalize(ierr)
    stop
  end if
  if (rank == 0) print '(A,I0,A,I0,A,I0)', 'f90-transpose: ', nprob, ' transforms of ', n, &
      ' x ', n
  nr = n / gsize
  allocate(x(n, nr))
  call init_twiddles(n)

  ein = 0
  eout = 0
  do k = group + 1, nprob, ngroups
    ! Problem k's matrix: entry (row R, column C), this rank holding rows grank*nr + 1...
    do r = 1, nr
      do c = 1, n
        x(c, r) = input(k, grank * nr + r, c)
      end do
    end do
    ein(k) = energy(x)
    call dft_rows(x)
    call transpose_rows(x)
    call dft_rows(x)
    eout(k) = energy(x)
  end do
  ! Group sums, then every group's problems together on rank 0.
  call mpi_reduce(ein, gin, nprob, MPI_INTEGER8, MPI_SUM, 0, grp, ierr)
  call mpi_reduce(eout, gout, nprob, MPI_INTEGER8, MPI_SUM, 0, grp, ierr)
  if (grank /= 0) then
    gin = 0
    gout = 0
  end if
  call mpi_reduce(gin, tin, nprob, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call mpi_reduce(gout, tout, nprob, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do k = 1, nprob
      print '(A,I0,A,I0,A,L1)', 'problem ', k, ': spectrum energy checksum ', tout(k), &
          ', parseval ', abs(real(tout(k), 8) / (real(n, 8)**2) - real(tin(k), 8)) <= &
          1d-6 * real(tin(k), 8) + real(n, 8)**2
    end do
  end if
  call mpi_comm_free(grp, ierr)
  t1 = mpi_wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-transpose: elapsed ', t1 - t0, ' s'
  call mpi_finalize(ierr)

contains

  complex(8) function input(k, row, col)
    integer, intent(in) :: k, row, col
    input = cmplx(cos(0.1d0 * k * row + 0.3d0 * col), sin(0.05d0 * k * row * col), 8)
  end function input

  !> Sum of |x|^2 in fixed point (units of 1e-3), exact in any order of addition.
  integer(8) function energy(x)
    complex(8), intent(in) :: x(:, :)
    energy = sum(nint(abs(x)**2 * 1d3, 8))
  end function energy

end program fft_transpose
