c     f77-wavefront: Gauss-Seidel-like forward and backward sweeps over
c     an n x n grid, as in an LU-style solver: each point depends on its
c     already updated neighbours, so the sweeps pipeline across ranks
c     owning blocks of columns (blocking MPI_SEND / MPI_RECV).
c     usage: f77-wavefront [n [iterations]]   (defaults 96 and 12)
c     TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
c     Prints a checksum every 4 iterations; it does not depend on the
c     number of ranks.
      program wavefront
      implicit none
      include 'mpif.h'
      include 'wave.inc'
      double precision a(maxw)
      integer*8 lsum, gsum
      integer iters, it, ierr, nargs, base, extra
      character*32 arg
      double precision t0, t1
      integer tpst

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      n = 96
      iters = 12
      nargs = command_argument_count()
      if (nargs .ge. 1) then
        call get_command_argument(1, arg)
        read(arg, *) n
      end if
      if (nargs .ge. 2) then
        call get_command_argument(2, arg)
        read(arg, *) iters
      end if
      nb = 8

      base = n / nproc
      extra = mod(n, nproc)
      nxl = base
      if (rank .lt. extra) nxl = base + 1
      i0 = rank * base + min(rank, extra)
      left = rank - 1
      right = rank + 1
      if (rank .eq. 0) left = MPI_PROC_NULL
      if (rank .eq. nproc - 1) right = MPI_PROC_NULL
      if (n .lt. nproc .or. (nxl + 2) * (n + 2) .gt. maxw) then
        if (rank .eq. 0) print '(A,I0)',
     &    'f77-wavefront: unsupported n=', n
        call mpi_finalize(ierr)
        stop
      end if
      if (rank .eq. 0) print '(A,I0,A,I0,A,I0,A)',
     &  'f77-wavefront: grid ', n, ' x ', n, ', ', iters, ' iterations'

      call setup(a)
      do 10 it = 1, iters
        call forward(a)
        call backward(a)
        if (mod(it, 4) .eq. 0) then
          call checksum(a, lsum)
          call mpi_reduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, 0,
     &                    MPI_COMM_WORLD, ierr)
          if (rank .eq. 0) print '(A,I4,A,I0)', 'iteration', it,
     &      ': checksum ', gsum
        end if
   10 continue
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-wavefront: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      end
