c     f77-bintree: a time-stepping loop whose every step sums partial
c     results over the ranks to rank 0 along a binomial tree and
c     broadcasts the global sums back the same way (tree.f), written by
c     hand with blocking MPI_SEND / MPI_RECV.  The points are divided
c     among the ranks (the problem is the whole, any rank count).
c     usage: f77-bintree [n [steps]]   (defaults 200000 and 10)
c     Every rank checks the sums it gets back against their closed form;
c     rank 0 prints the count of failures, which must be 0, and the
c     last sums to 6 digits.  TP_TIMING set: rank 0's time on stderr.
      program bintree
      implicit none
      include 'mpif.h'
      include 'bintree.inc'
      integer steps, it, ierr, nargs, base, extra, j
      character*32 arg
      double precision s(5), g(5), bad, t0, t1, dn
      integer tpst

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      n = 200000
      steps = 10
      nargs = command_argument_count()
      if (nargs .ge. 1) then
        call get_command_argument(1, arg)
        read(arg, *) n
      end if
      if (nargs .ge. 2) then
        call get_command_argument(2, arg)
        read(arg, *) steps
      end if
      base = n / nproc
      extra = mod(n, nproc)
      nloc = base
      if (rank .lt. extra) nloc = base + 1
      i0 = rank * base + min(rank, extra)
      if (n .lt. nproc .or. nloc .gt. maxloc .or. steps .lt. 1) then
        if (rank .eq. 0) print '(A,I0,A,I0)',
     &    'f77-bintree: unsupported n=', n, ' steps=', steps
        call mpi_finalize(ierr)
        stop
      end if
      if (rank .eq. 0) print '(A,I0,A,I0,A)',
     &  'f77-bintree: ', n, ' points, ', steps, ' steps'

      call setup
      dn = dble(n)
      bad = 0d0
      do 5 j = 1, 5
        g(j) = 0d0
    5 continue
      do 10 it = 1, steps
        call psums(s, it, g, bad)
        call treduc(s, 5)
        if (rank .eq. 0) then
          if (s(1) .ne. dn .or. s(2) .ne. dn * (dn - 1d0) / 2d0)
     &      bad = bad + 1d0
          do 8 j = 1, 5
            g(j) = s(j)
    8     continue
        end if
        call tbcast(g, 5)
        if (g(1) .ne. dn .or. g(2) .ne. dn * (dn - 1d0) / 2d0)
     &    bad = bad + 1d0
   10 continue
c     Every rank's failures, the last broadcast's included, summed.
      do 12 j = 1, 4
        s(j) = 0d0
   12 continue
      s(5) = bad
      call treduc(s, 5)
      if (rank .eq. 0) then
        print '(A,I0)', 'failures: ', nint(s(5))
        print '(A,ES13.6,A,ES13.6)', 'last sums: ', g(3), ' ', g(4)
        if (nint(s(5)) .eq. 0) then
          print '(A)', 'verification: tree sums and broadcasts: passed'
        else
          print '(A)', 'verification: tree sums and broadcasts: FAILED'
        end if
      end if
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-bintree: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      end
