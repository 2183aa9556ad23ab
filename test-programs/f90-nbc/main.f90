! f90-nbc: Jacobi iteration for -Laplace(u) = f on an n x n grid (zero boundary, unit mesh
! width), rows split among the ranks, with MPI-3 non-blocking collectives overlapped with the
! halo exchange as real codes do.  The module grid_mod (grid_mod.f90) holds the data; the halo
! exchange and the sweep are in solver.f90.
! usage: f90-nbc [n [steps]]   (defaults 256 and 200; 1024 500 takes about 1.5 s at 2 ranks,
!        64 20 is the small test size)
! Rank 0 reads the arguments and sends them with MPI_Ibcast (then MPI_Wait).  Once, an
! MPI_Ialltoall of one integer per rank pair (rank 1000 * i + j to j) checks the pairing
! (MPI_Wait).  Every step: MPI_Irecv/MPI_Isend of the halo rows with the neighbours
! (MPI_PROC_NULL at the ends); MPI_Wait on the previous step's residual reduction, only now
! that this step's exchange is posted; the rows that need no ghost row computed; MPI_Waitall;
! the first and last rows computed; an MPI_Iallreduce (MPI_MAX) of the largest change started
! right after the update.  After the last step MPI_Wait completes it, and an MPI_Igather
! (MPI_Wait) collects every rank's share of the checksum at rank 0.
! Needs n >= number of ranks (otherwise prints a message and exits 1).  Every cell is
! computed by the same operations at any rank count and the maximum is exact, so the result
! is identical at 1, 2, 3, 4... ranks.  Prints one line, "checksum: <integer>", a fixed-point
! weighted sum of the final iterate (integers, so independent of the summation order) plus a
! hash of the residual history.
! Set TP_TIMING to get rank 0's time from MPI_Init to MPI_Finalize on stderr.
program f90nbc
  use mpi
  use grid_mod
  implicit none
  integer :: ierr, params(2), steps, s, k, tpst, req, st(MPI_STATUS_SIZE)
  integer, allocatable :: sendv(:), recvv(:)
  integer(8), allocatable :: parts(:)
  integer(8) :: lsum, hist, total
  character(len=32) :: arg
  real(dp) :: t0, t1, chg

  call MPI_Init(ierr)
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (rank == 0) then
    params = [256, 200]
    do k = 1, min(2, command_argument_count())
      call get_command_argument(k, arg)
      read(arg, *, iostat=tpst) params(k)
      if (tpst /= 0) params(k) = -1
    end do
  end if
  call MPI_Ibcast(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  n = params(1)
  steps = params(2)
  if (n < 1 .or. n > 46000 .or. steps < 1) then
    if (rank == 0) write(0, '(A)') 'usage: f90-nbc [n >= 1 [steps >= 1]]'
    call MPI_Finalize(ierr)
    stop 1
  end if
  if (n < nproc) then
    if (rank == 0) print '(A,I0,A,I0,A)', 'f90-nbc: unsupported: grid size n=', n, &
                                         ' is smaller than the ', nproc, ' ranks'
    call MPI_Finalize(ierr)
    stop 1
  end if

  ! One integer per rank pair: rank i sends 1000 * i + j to rank j.
  allocate(sendv(0:nproc - 1), recvv(0:nproc - 1), parts(0:nproc - 1))
  do k = 0, nproc - 1
    sendv(k) = 1000 * rank + k
  end do
  recvv = -1
  call MPI_Ialltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call decompose()
  call MPI_Wait(req, st, ierr)
  do k = 0, nproc - 1
    if (recvv(k) /= 1000 * k + rank) then
      write(0, '(A,I0,A,I0)') 'f90-nbc: rank ', rank, ': wrong MPI_Ialltoall value from ', k
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
  end do

  hist = 0
  do s = 1, steps
    if (mod(s, 2) == 1) then
      call halo_post(ua)
    else
      call halo_post(ub)
    end if
    ! The previous step's residual: its reduction ran during this step's halo posting.
    if (s > 1) then
      call MPI_Wait(res_req, st, ierr)
      hist = modulo(hist * 31 + floor(res_glob * 1.0e12_dp + 0.5_dp, kind=8), modulus)
    end if
    chg = 0.0_dp
    if (mod(s, 2) == 1) then
      call sweep_rows(ua, ub, 2, nloc - 1, chg)
      call halo_wait()
      call sweep_rows(ua, ub, 1, 1, chg)
      if (nloc > 1) call sweep_rows(ua, ub, nloc, nloc, chg)
    else
      call sweep_rows(ub, ua, 2, nloc - 1, chg)
      call halo_wait()
      call sweep_rows(ub, ua, 1, 1, chg)
      if (nloc > 1) call sweep_rows(ub, ua, nloc, nloc, chg)
    end if
    res_loc = chg
    call MPI_Iallreduce(res_loc, res_glob, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, &
                        res_req, ierr)
  end do
  call MPI_Wait(res_req, st, ierr)
  hist = modulo(hist * 31 + floor(res_glob * 1.0e12_dp + 0.5_dp, kind=8), modulus)

  if (mod(steps, 2) == 1) then
    call local_checksum(ub, lsum)
  else
    call local_checksum(ua, lsum)
  end if
  parts = 0
  call MPI_Igather(lsum, 1, MPI_INTEGER8, parts, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, st, ierr)
  if (rank == 0) then
    total = hist
    do k = 0, nproc - 1
      total = modulo(total + parts(k), modulus)
    end do
    print '(A,I0)', 'checksum: ', total
  end if

  deallocate(ua, ub, f, sendv, recvv, parts)
  t1 = MPI_Wtime()
  call get_environment_variable('TP_TIMING', status=tpst)
  if (rank == 0 .and. tpst == 0) write(0, '(A,F0.6,A)') 'f90-nbc: elapsed ', t1 - t0, ' s'
  call MPI_Finalize(ierr)
end program f90nbc
