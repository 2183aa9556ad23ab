c     f77-jacobi: Jacobi iteration for Laplace's equation on an n x n
c     grid (hot top edge, cold other edges), rows split among the ranks.
c     usage: f77-jacobi [n [iterations]]   (defaults 64 and 200)
c     TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
c     Prints the largest change every 50 iterations and a checksum of
c     the final grid; both are independent of the number of ranks.
      program jacobi
      implicit none
      include 'mpif.h'
      include 'jacobi.inc'
      double precision u(maxw), v(maxw), change, gchange
      integer*8 lsum, gsum
      integer iters, it, ierr, nargs, params(2)
      character*32 arg
      double precision t0, t1
      integer tpst

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)

c     Rank 0 reads the arguments and broadcasts them.
      if (rank .eq. 0) then
        params(1) = 64
        params(2) = 200
        nargs = command_argument_count()
        if (nargs .ge. 1) then
          call get_command_argument(1, arg)
          read(arg, *) params(1)
        end if
        if (nargs .ge. 2) then
          call get_command_argument(2, arg)
          read(arg, *) params(2)
        end if
      end if
      call mpi_bcast(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      n = params(1)
      iters = params(2)

      call decomp
      if (n .lt. nproc .or. (n + 2) * (nloc + 2) .gt. maxw) then
        if (rank .eq. 0) print '(A,I0)', 'f77-jacobi: unsupported n=', n
        call mpi_finalize(ierr)
        stop
      end if
      if (rank .eq. 0) print '(A,I0,A,I0,A,I0,A)', 'f77-jacobi: grid ',
     &   n, ' x ', n, ', ', iters, ' iterations'

      call setup(u, v)
      do 10 it = 1, iters
        call exchange(u)
        call sweep(u, v, change)
        if (mod(it, 50) .eq. 0) then
          call mpi_allreduce(change, gchange, 1, MPI_DOUBLE_PRECISION,
     &                       MPI_MAX, MPI_COMM_WORLD, ierr)
          if (rank .eq. 0) print '(A,I6,A,ES12.5)', 'iteration', it,
     &      ': largest change', gchange
        end if
   10 continue

      call checksum(u, lsum)
      call mpi_reduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A,I0)', 'checksum: ', gsum
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-jacobi: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      end

c     This rank's rows: n split as evenly as possible, the first ranks
c     taking one more.
      subroutine decomp
      implicit none
      include 'mpif.h'
      include 'jacobi.inc'
      integer base, extra
      base = n / nproc
      extra = mod(n, nproc)
      nloc = base
      if (rank .lt. extra) nloc = base + 1
      j0 = rank * base + min(rank, extra)
      up = rank - 1
      down = rank + 1
      if (rank .eq. 0) up = MPI_PROC_NULL
      if (rank .eq. nproc - 1) down = MPI_PROC_NULL
      end
