c     Persistent requests of f77-persist, as CFD codes use them: the
c     halo requests (MPI_SEND_INIT / MPI_RECV_INIT) are created once per
c     field, started with MPI_STARTALL and completed with MPI_WAITALL
c     every time step; a persistent pair carries a scalar round the
c     ring with MPI_START / MPI_WAIT; completed (inactive) requests are
c     waited on again; MPI_REQUEST_FREE releases them all.

c     Creates every persistent request: field 1 is fa, field 2 fb.
      subroutine hinit(fa, fb)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      double precision fa(*), fb(*)
      integer ierr
      call hset(fa, 1)
      call hset(fb, 2)
      call mpi_recv_init(rin, 1, MPI_DOUBLE_PRECISION, up, tagrg,
     &                   MPI_COMM_WORLD, rreq(1), ierr)
      call mpi_send_init(rout, 1, MPI_DOUBLE_PRECISION, down, tagrg,
     &                   MPI_COMM_WORLD, rreq(2), ierr)
      end

c     Field k's halo requests: receives into ghost rows 0 and nloc+1,
c     sends of the first and last owned rows.
      subroutine hset(u, k)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      double precision u(0:n+1, 0:nloc+1)
      integer k, ierr
      call mpi_recv_init(u(0, 0), n + 2, MPI_DOUBLE_PRECISION, up,
     &                   tagdn, MPI_COMM_WORLD, hreq(1, k), ierr)
      call mpi_recv_init(u(0, nloc+1), n + 2, MPI_DOUBLE_PRECISION,
     &                   down, tagup, MPI_COMM_WORLD, hreq(2, k), ierr)
      call mpi_send_init(u(0, 1), n + 2, MPI_DOUBLE_PRECISION, up,
     &                   tagup, MPI_COMM_WORLD, hreq(3, k), ierr)
      call mpi_send_init(u(0, nloc), n + 2, MPI_DOUBLE_PRECISION,
     &                   down, tagdn, MPI_COMM_WORLD, hreq(4, k), ierr)
      end

      subroutine hstart(k)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      integer k, ierr
      call mpi_startall(nhalo, hreq(1, k), ierr)
      end

c     Completes field k's exchange; the receives must come from the
c     right neighbour with the right tag and length.
      subroutine hwait(k)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      integer k, st(MPI_STATUS_SIZE, nhalo), cnt, i, ierr
      call mpi_waitall(nhalo, hreq(1, k), st, ierr)
      do 10 i = 1, 2
        call mpi_get_count(st(1, i), MPI_DOUBLE_PRECISION, cnt, ierr)
        if (cnt .ne. n + 2) call hfail('halo receive length', k, i,
     &    st(1, i))
   10 continue
      if (st(MPI_SOURCE, 1) .ne. up .or. st(MPI_TAG, 1) .ne. tagdn)
     &  call hfail('halo receive from above', k, 1, st(1, 1))
      if (st(MPI_SOURCE, 2) .ne. down .or. st(MPI_TAG, 2) .ne. tagup)
     &  call hfail('halo receive from below', k, 2, st(1, 2))
      end

c     Waits again on field k's requests, complete and not restarted (or
c     never started): MPI_WAIT on one, then MPI_WAITALL on all. Both
c     return at once with empty statuses; the requests stay allocated.
      subroutine hidle(k)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      integer k, st1(MPI_STATUS_SIZE), st(MPI_STATUS_SIZE, nhalo)
      integer i, ierr
      call mpi_wait(hreq(1, k), st1, ierr)
      call hempty(st1, k, 1)
      call mpi_waitall(nhalo, hreq(1, k), st, ierr)
      do 10 i = 1, nhalo
        call hempty(st(1, i), k, i)
        if (hreq(i, k) .eq. MPI_REQUEST_NULL) call hfail(
     &    'persistent request became MPI_REQUEST_NULL', k, i, st(1, i))
   10 continue
      end

c     An empty status: any source, any tag, no element.
      subroutine hempty(st, k, i)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      integer st(MPI_STATUS_SIZE), k, i, cnt, ierr
      call mpi_get_count(st, MPI_DOUBLE_PRECISION, cnt, ierr)
      if (st(MPI_SOURCE) .ne. MPI_ANY_SOURCE .or. cnt .ne. 0
     &    .or. st(MPI_TAG) .ne. MPI_ANY_TAG) call hfail(
     &  'wait on an inactive request: status not empty', k, i, st)
      end

c     Largest x over all ranks: nproc passes round the ring, each
c     restarting the persistent receive and send with MPI_START and
c     completing them with MPI_WAIT (max is exact: any order).
      subroutine rmax(x, gmax)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      double precision x, gmax
      integer st(MPI_STATUS_SIZE), p, ierr
      gmax = x
      do 10 p = 1, nproc
        rout = gmax
        call mpi_start(rreq(1), ierr)
        call mpi_start(rreq(2), ierr)
        call mpi_wait(rreq(1), st, ierr)
        if (st(MPI_SOURCE) .ne. up .or. st(MPI_TAG) .ne. tagrg)
     &    call hfail('ring receive', 0, 1, st)
        call mpi_wait(rreq(2), MPI_STATUS_IGNORE, ierr)
        gmax = max(gmax, rin)
   10 continue
      end

c     Releases every persistent request (all inactive by now).
      subroutine hfree
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      integer i, k, ierr
      do 10 k = 1, 2
      do 10 i = 1, nhalo
        call mpi_request_free(hreq(i, k), ierr)
   10 continue
      call mpi_request_free(rreq(1), ierr)
      call mpi_request_free(rreq(2), ierr)
      end

      subroutine hfail(what, k, i, st)
      implicit none
      include 'mpif.h'
      include 'persist.inc'
      character*(*) what
      integer k, i, st(MPI_STATUS_SIZE), ierr
      write(0, '(A,I0,A,A,A,I0,A,I0,A,I0,A,I0)') 'f77-persist: rank ',
     &  rank, ': ', what, ': field ', k, ' request ', i, ' source ',
     &  st(MPI_SOURCE), ' tag ', st(MPI_TAG)
      call mpi_abort(MPI_COMM_WORLD, 2, ierr)
      end
