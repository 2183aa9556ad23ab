c     f77-rng: an embarrassingly parallel tally of Gaussian pairs. Each
c     of nbatch batches draws npairs uniform pairs from one global
c     random sequence (the generator in lcg.f, called in the hot loop),
c     turns the pairs inside the unit circle into Gaussian deviates
c     (Marsaglia's polar method) and counts them by the annulus
c     max(|X|,|Y|) falls in; the ranks share each batch in contiguous
c     slices and add their integer tallies with one MPI_ALLREDUCE per
c     batch; the largest deviate is reduced to rank 0 at the end.
c     usage: f77-rng [npairs [nbatch]]   (defaults 200000 and 4)
c     TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
c     The output does not depend on the number of ranks (each pair is
c     drawn from the same place in the sequence whoever draws it).
c     Verification: the accepted fraction is pi/4 and the share of
c     annulus 0 is erf(1/sqrt(2))**2, both within 5 standard errors;
c     exits with status 1 otherwise.
      program rngtal
      implicit none
      include 'mpif.h'
      integer nq
      parameter (nq = 10)
      integer*8 tally(nq + 2), bsum(nq + 2), total(nq + 2), lo, hi, np
      integer*8 seed
      integer rank, nproc, ierr, nbatch, ib, k, nargs, params(2), tpst
      character*32 arg
      double precision t0, t1, pacc, p0, f, se, pi, dmax, gdmax
      logical ok
      parameter (pi = 3.14159265358979323846d0)

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      if (rank .eq. 0) then
        params(1) = 200000
        params(2) = 4
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
      np = params(1)
      nbatch = params(2)
      if (rank .eq. 0) print '(A,I0,A,I0,A)', 'f77-rng: ', nbatch,
     &   ' batches of ', np, ' pairs'

c     total(1..nq): pairs per annulus; nq+1: pairs accepted; nq+2:
c     pairs drawn.
      do 20 k = 1, nq + 2
        total(k) = 0
   20 continue
      seed = 314159265
      dmax = 0.0d0
      do 40 ib = 1, nbatch
c       This rank's slice [lo, hi) of the batch's pairs, two draws per
c       pair, after the pairs of the batches before.
        lo = (np * rank) / nproc
        hi = (np * (rank + 1)) / nproc
        call lcgjmp(seed, 2 * (np * (ib - 1) + lo))
        call gtally(hi - lo, nq, tally, dmax)
        call mpi_allreduce(tally, bsum, nq + 2, MPI_INTEGER8, MPI_SUM,
     &                     MPI_COMM_WORLD, ierr)
        do 30 k = 1, nq + 2
          total(k) = total(k) + bsum(k)
   30   continue
        if (rank .eq. 0) print '(A,I4,A,I0,A,I0)', 'batch', ib,
     &    ': accepted ', bsum(nq + 1), ', annulus 0: ', bsum(1)
   40 continue

      call mpi_reduce(dmax, gdmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0,
     &                MPI_COMM_WORLD, ierr)
      ok = .true.
      if (rank .eq. 0) then
        print '(A,F12.8)', 'largest |deviate|: ', gdmax
        do 50 k = 1, nq
          print '(A,I2,A,I0)', 'annulus ', k - 1, ': ', total(k)
   50   continue
c       Binomial standard errors of the two shares.
        pacc = dble(total(nq + 1)) / dble(total(nq + 2))
        se = sqrt(pi / 4 * (1 - pi / 4) / dble(total(nq + 2)))
        ok = abs(pacc - pi / 4) .lt. 5 * se
        p0 = erf(1.0d0 / sqrt(2.0d0))**2
        f = dble(total(1)) / dble(total(nq + 1))
        se = sqrt(p0 * (1 - p0) / dble(total(nq + 1)))
        ok = ok .and. abs(f - p0) .lt. 5 * se
        if (ok) then
          print '(A)', 'verification: acceptance pi/4 and annulus 0 '//
     &      'share within 5 standard errors: passed'
        else
          print '(A,F10.7,A,F10.7,A)', 'verification: acceptance ',
     &      pacc, ', annulus 0 share ', f, ': FAILED'
        end if
      end if
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-rng: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      if (.not. ok) stop 1
      end

c     Draws npair uniform pairs in [-1,1)**2 with urand; for those
c     inside the unit circle makes the Gaussian pair (X, Y) and counts
c     it in annulus floor(max(|X|,|Y|)) (the last one takes the rest).
c     tally(nq+1) counts the accepted pairs, tally(nq+2) all pairs;
c     dmax is raised to the largest max(|X|,|Y|).
      subroutine gtally(npair, nq, tally, dmax)
      implicit none
      integer*8 npair, tally(nq + 2), i
      integer nq, k, l
      double precision urand, x, y, t, gx, gy, d, dmax
      external urand
      do 10 k = 1, nq + 2
        tally(k) = 0
   10 continue
      do 20 i = 1, npair
        x = 2.0d0 * urand() - 1.0d0
        y = 2.0d0 * urand() - 1.0d0
        t = x * x + y * y
        if (t .le. 1.0d0 .and. t .gt. 0.0d0) then
          t = sqrt(-2.0d0 * log(t) / t)
          gx = x * t
          gy = y * t
          d = max(abs(gx), abs(gy))
          if (d .gt. dmax) dmax = d
          l = int(d)
          if (l .gt. nq - 1) l = nq - 1
          tally(l + 1) = tally(l + 1) + 1
          tally(nq + 1) = tally(nq + 1) + 1
        end if
   20 continue
      tally(nq + 2) = npair
      end
