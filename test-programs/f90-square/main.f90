! f90-square: a dense matrix product C = A B (n x n) on a q x q process grid, q the largest
! integer with q*q <= ranks: it uses 1 rank of 2, 4 of 4, 4 of 5 ...; the ranks beyond q*q
! skip the work and wait in the final MPI_Barrier, as codes that need a square count do.
! usage: f90-square [n [reps]]   (defaults 120 and 1; n a multiple of q)
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
! stdout (rank 0 only) does not depend on the number of ranks; the ranks used are on stderr.
! Verification: two checksums of C (sum of C(i,j), sum of i*j*C(i,j)), computed exactly in
! integers, against the same sums obtained from A's column sums and B's row sums without
! forming C. Exits with status 1 if they differ.
program square
  use mpi
  use summa
  implicit none
  integer :: ierr, rank, nproc, q, n, reps, nb, r, i, j, gi, gj, tpst, color, comm, me
  integer :: prow, pcol, rowc, colc, stat
  character(len=32) :: arg
  real(dp), allocatable :: a(:, :), b(:, :), c(:, :)
  integer(8) :: local(2), total(2), expect(2), sa, sb, wa, wb
  integer :: l
  real(dp) :: t0, t1
  logical :: ok

  call mpi_init(ierr)
  t0 = mpi_wtime()
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
  n = 120
  reps = 1
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read(arg, *) reps
  end if
  q = int(sqrt(real(nproc, dp)) + 0.5_dp)
  if (q * q > nproc) q = q - 1
  stat = 0
  if (n < q .or. mod(n, q) /= 0 .or. reps < 1) then
    if (rank == 0) write(0, '(A,I0)') 'usage: f90-square [n: a multiple of ', q, '] [reps >= 1]'
    call mpi_finalize(ierr)
    stop 1
  end if
  if (rank == 0) then
    print '(A,I0,A,I0,A,I0,A)', 'f90-square: C = A B, ', n, ' x ', n, ', ', reps, ' times'
    write(0, '(A,I0,A,I0,A,I0,A,I0,A)') 'f90-square: ', q * q, ' of ', nproc, &
      ' ranks in a ', q, ' x ', q, ' grid'
  end if

  ! The grid's ranks get a communicator of their own; the others one they never use.
  color = 1
  if (rank < q * q) color = 0
  call mpi_comm_split(MPI_COMM_WORLD, color, rank, comm, ierr)
  ok = .true.
  if (rank < q * q) then
    call mpi_comm_rank(comm, me, ierr)
    call grid_comms(comm, q, prow, pcol, rowc, colc)
    nb = n / q
    allocate(a(nb, nb), b(nb, nb), c(nb, nb))
    do j = 1, nb
      do i = 1, nb
        a(i, j) = entry_a(prow * nb + i, pcol * nb + j)
        b(i, j) = entry_b(prow * nb + i, pcol * nb + j)
      end do
    end do
    do r = 1, reps
      call multiply(a, b, c, nb, q, prow, pcol, rowc, colc)
    end do
    local = 0
    do j = 1, nb
      do i = 1, nb
        gi = prow * nb + i
        gj = pcol * nb + j
        local(1) = local(1) + nint(c(i, j), 8)
        local(2) = local(2) + int(gi, 8) * gj * nint(c(i, j), 8)
      end do
    end do
    call mpi_reduce(local, total, 2, MPI_INTEGER8, MPI_SUM, 0, comm, ierr)
    if (me == 0) then
      ! sum_ij C = sum_l (sum_i A(i,l)) (sum_j B(l,j)); the same with weights i and j.
      expect = 0
      do l = 1, n
        sa = 0
        sb = 0
        wa = 0
        wb = 0
        do i = 1, n
          sa = sa + nint(entry_a(i, l), 8)
          wa = wa + i * nint(entry_a(i, l), 8)
          sb = sb + nint(entry_b(l, i), 8)
          wb = wb + i * nint(entry_b(l, i), 8)
        end do
        expect(1) = expect(1) + sa * sb
        expect(2) = expect(2) + wa * wb
      end do
      ok = all(total == expect)
      print '(A,I0,A,I0)', 'checksums: ', total(1), ' ', total(2)
      if (ok) then
        print '(A)', 'verification: both checksums equal the ones from A and B: passed'
      else
        print '(A,I0,A,I0,A)', 'verification: expected ', expect(1), ' ', expect(2), ': FAILED'
      end if
    end if
    deallocate(a, b, c)
    call mpi_comm_free(rowc, ierr)
    call mpi_comm_free(colc, ierr)
  end if
  call mpi_comm_free(comm, ierr)
  ! Everybody, idle or not, meets here.
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  t1 = mpi_wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-square: elapsed ', t1 - t0, ' s'
  call mpi_finalize(ierr)
  if (.not. ok) stop 1
end program square
