c     f77-sor: red-black successive over-relaxation for -lap u = f on
c     the unit square (n x n interior points, zero boundary), rows split
c     among the ranks. Each sweep exchanges the ghost rows with
c     MPI_SENDRECV before each colour; every 10 sweeps an MPI_ALLREDUCE
c     takes the largest residual, and the iteration stops once it is
c     below tol.
c     usage: f77-sor [n [maxsweeps [tol]]]   (defaults 100, 2000, 1e-6)
c     TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
c     Prints the residual every 100 sweeps, a checksum and a
c     verification line (converged, and the error against the exact
c     solution of the discrete equations below tol, which bounds it
c     once the residual is below tol); the output
c     does not depend on the number of ranks. Exits with status 1 if
c     the verification fails.
      program sor
      implicit none
      include 'mpif.h'
      include 'sor.inc'
      double precision u(maxw), f(maxw), res, gres, err, gerr, tol
      double precision t0, t1, rparam, resid, pi
      parameter (pi = 3.14159265358979323846d0)
      integer*8 lsum, gsum
      integer maxit, it, ierr, nargs, iparam(2), tpst, base, extra
      character*32 arg
      logical ok
      external resid

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
c     Every rank reads the arguments (mpirun passes them to all).
      iparam(1) = 100
      iparam(2) = 2000
      rparam = 1.0d-6
      nargs = command_argument_count()
      if (nargs .ge. 1) then
        call get_command_argument(1, arg)
        read(arg, *) iparam(1)
      end if
      if (nargs .ge. 2) then
        call get_command_argument(2, arg)
        read(arg, *) iparam(2)
      end if
      if (nargs .ge. 3) then
        call get_command_argument(3, arg)
        read(arg, *) rparam
      end if
      n = iparam(1)
      maxit = iparam(2)
      tol = rparam
      h = 1.0d0 / (n + 1)
c     The optimal factor for this problem.
      omega = 2.0d0 / (1.0d0 + sin(pi * h))

      base = n / nproc
      extra = mod(n, nproc)
      nloc = base
      if (rank .lt. extra) nloc = base + 1
      j0 = rank * base + min(rank, extra)
      up = rank - 1
      down = rank + 1
      if (rank .eq. 0) up = MPI_PROC_NULL
      if (rank .eq. nproc - 1) down = MPI_PROC_NULL
      if (n .lt. nproc .or. (n + 2) * (nloc + 2) .gt. maxw) then
        if (rank .eq. 0) print '(A,I0)', 'f77-sor: unsupported n=', n
        call mpi_finalize(ierr)
        stop 1
      end if
      if (rank .eq. 0) print '(A,I0,A,I0,A,ES9.2)', 'f77-sor: grid ',
     &   n, ' x ', n, ', tolerance', tol

      call setup(u, f)
      gres = 1.0d30
      it = 0
   10 if (it .lt. maxit .and. gres .ge. tol) then
        it = it + 1
        call halo(u)
        call colour(u, f, 0)
        call halo(u)
        call colour(u, f, 1)
        if (mod(it, 10) .eq. 0) then
          call halo(u)
          res = resid(u, f)
          call mpi_allreduce(res, gres, 1, MPI_DOUBLE_PRECISION,
     &                       MPI_MAX, MPI_COMM_WORLD, ierr)
          if (rank .eq. 0 .and. mod(it, 100) .eq. 0)
     &      print '(A,I6,A,ES10.3)', 'sweep', it, ': residual', gres
        end if
        goto 10
      end if

      call errsum(u, err, lsum)
      call mpi_reduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)
      call mpi_allreduce(err, gerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX,
     &                   MPI_COMM_WORLD, ierr)
      ok = .true.
      if (rank .eq. 0) then
        print '(A,I0,A)', 'stopped after ', it, ' sweeps'
        print '(A,I0)', 'checksum: ', gsum
        ok = gres .lt. tol .and. gerr .lt. tol
        if (ok) then
          print '(A)', 'verification: converged, error against '//
     &      'the exact discrete solution below tol: passed'
        else
          print '(A,ES10.3,A,ES10.3,A)', 'verification: residual ',
     &      gres, ', error ', gerr, ': FAILED'
        end if
      end if
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-sor: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      if (.not. ok) stop 1
      end

c     Ghost rows 0 and nloc+1 from the neighbours: the first owned row
c     goes up while the row below arrives, then the other way.
      subroutine halo(u)
      implicit none
      include 'mpif.h'
      include 'sor.inc'
      double precision u(0:n+1, 0:nloc+1)
      integer st(MPI_STATUS_SIZE), ierr
      call mpi_sendrecv(u(0, 1), n + 2, MPI_DOUBLE_PRECISION, up, 1,
     &                  u(0, nloc+1), n + 2, MPI_DOUBLE_PRECISION,
     &                  down, 1, MPI_COMM_WORLD, st, ierr)
      call mpi_sendrecv(u(0, nloc), n + 2, MPI_DOUBLE_PRECISION, down,
     &                  2, u(0, 0), n + 2, MPI_DOUBLE_PRECISION, up, 2,
     &                  MPI_COMM_WORLD, st, ierr)
      end
