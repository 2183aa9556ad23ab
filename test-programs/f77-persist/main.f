c     f77-persist: explicit heat steps on an n x n grid, periodic in
c     both directions, rows split among the ranks. The halo rows travel
c     through persistent requests as in CFD codes: MPI_SEND_INIT and
c     MPI_RECV_INIT once (halo.f), then in every time step MPI_STARTALL,
c     the interior rows computed, MPI_WAITALL, the edge rows computed;
c     MPI_REQUEST_FREE at the end. The two fields alternate, each with
c     its own requests. Every 5th step and the last reduce the largest
c     change round a ring of persistent MPI_START / MPI_WAIT pairs, then
c     wait again on the now inactive halo requests (MPI_WAIT and
c     MPI_WAITALL, which must return at once with empty statuses).
c     usage: f77-persist [n [steps]]   (defaults 256 and 200; 2048 400
c     takes about 1.5 s at 2 ranks)
c     Needs n >= number of ranks. Prints one line, "checksum: <int>", a
c     fixed-point weighted sum of the final grid plus the last largest
c     change, independent of the number of ranks.
c     TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
      program persist
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      double precision fa(maxw), fb(maxw)
      common /pfield/ fa, fb
      double precision chg, gmax, t0, t1
      integer*8 lsum, gsum, cs
      integer steps, it, k, ierr, nargs, params(2), tpst
      character*32 arg

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)

c     Rank 0 reads the arguments and broadcasts them.
      if (rank .eq. 0) then
        params(1) = 256
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
      steps = params(2)

      call decomp
      if (n .lt. nproc .or. steps .lt. 1
     &    .or. (n + 2) * (nloc + 2) .gt. maxw) then
        if (rank .eq. 0) print '(A,I0,A,I0)',
     &    'f77-persist: unsupported n=', n, ' steps=', steps
        call mpi_finalize(ierr)
        stop
      end if

      call setup(fa, fb)
      call hinit(fa, fb)
      gmax = 0.0d0
      do 10 it = 1, steps
        k = mod(it - 1, 2) + 1
        if (k .eq. 1) then
          call tstep(fa, fb, k, chg)
        else
          call tstep(fb, fa, k, chg)
        end if
        if (mod(it, 5) .eq. 0 .or. it .eq. steps) then
          call rmax(chg, gmax)
          call hidle(k)
        end if
   10 continue
c     Both fields' requests are inactive now (one maybe never started).
      call hidle(1)
      call hidle(2)

      if (mod(steps, 2) .eq. 1) then
        call cksum(fb, lsum)
      else
        call cksum(fa, lsum)
      end if
      call mpi_reduce(lsum, gsum, 1, MPI_INTEGER8, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)
      cs = mod(mod(gsum, modp) + floor(gmax * 1.0d9, 8), modp)
      if (rank .eq. 0) print '(A,I0)', 'checksum: ', cs
      call hfree
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-persist: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      end

c     This rank's rows: n split as evenly as possible, the first ranks
c     taking one more. Neighbours periodic: rank 0's up is the last.
      subroutine decomp
      implicit none
      include 'persist.inc'
      integer base, extra
      base = n / nproc
      extra = mod(n, nproc)
      nloc = base
      if (rank .lt. extra) nloc = base + 1
      j0 = rank * base + min(rank, extra)
      up = mod(rank - 1 + nproc, nproc)
      down = mod(rank + 1, nproc)
      end

c     One time step u -> v with field k's requests: ghost columns, start
c     the halo exchange, compute the rows that need no ghost row, wait,
c     compute the first and last rows. chg: the largest change.
      subroutine tstep(u, v, k, chg)
      implicit none
      include 'persist.inc'
      double precision u(0:n+1, 0:nloc+1), v(0:n+1, 0:nloc+1), chg
      integer k
      call ghostc(u)
      call hstart(k)
      chg = 0.0d0
      call rows(u, v, 2, nloc - 1, chg)
      call hwait(k)
      call rows(u, v, 1, 1, chg)
      if (nloc .gt. 1) call rows(u, v, nloc, nloc, chg)
      end
