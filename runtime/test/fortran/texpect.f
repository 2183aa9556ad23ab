c     Helpers of the Fortran runtime tests: checks, and the blocks this
c     rank must have recorded, written to $MPIETE_OUTDIR/rank<N>.expect
c     for fortran_check.py (one line per block: <unit hex>:<index>
c     <kind> <count> [<trips>]).
      block data texpbd
      integer nexp
      common /texpn/ nexp
      data nexp /0/
      end

c     Stops the whole job with a message when cond is false.
      subroutine tcheck(cond, msg)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) msg
      integer rank, ierr
      logical done
      if (cond) return
      call mpi_finalized(done, ierr)
      if (done) then
        write(0, '(A,A)') 'FAIL after MPI_Finalize: ', msg
        stop 1
      end if
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      write(0, '(A,I0,A,A)') 'FAIL rank ', rank, ': ', msg
      call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      stop 1
      end

c     Expects n more executions of block (iunit, idx) of the given kind.
      subroutine texp(iunit, idx, kind, n)
      implicit none
      integer iunit, idx, n
      character*(*) kind
      call texpl(iunit, idx, kind, n, 0_8)
      end

c     The same, with loop trips.
      subroutine texpl(iunit, idx, kind, n, trips)
      implicit none
      integer iunit, idx, n
      integer*8 trips
      character*(*) kind
      integer maxexp
      parameter (maxexp = 200)
      integer nexp, eunit(maxexp), eidx(maxexp), ecount(maxexp)
      integer*8 etrips(maxexp)
      character*12 ekind(maxexp)
      common /texpn/ nexp
      common /texpi/ eunit, eidx, ecount, etrips
      common /texpc/ ekind
      integer i
      do 10 i = 1, nexp
        if (eunit(i) .eq. iunit .and. eidx(i) .eq. idx) then
          call tcheck(ekind(i) .eq. kind, 'one block, two kinds')
          ecount(i) = ecount(i) + n
          etrips(i) = etrips(i) + trips
          return
        end if
   10 continue
      call tcheck(nexp .lt. maxexp, 'too many expectations')
      nexp = nexp + 1
      eunit(nexp) = iunit
      eidx(nexp) = idx
      ekind(nexp) = kind
      ecount(nexp) = n
      etrips(nexp) = trips
      end

c     A blocking send or receive site: its start and its wait.
      subroutine tsplit(iunit, idx)
      implicit none
      integer iunit, idx
      call texp(iunit, idx, 'start', 1)
      call texp(iunit, idx + 1, 'wait', 1)
      end

c     A Sendrecv site: two starts and a waitall.
      subroutine tsendrecv(iunit, idx)
      implicit none
      integer iunit, idx
      call texp(iunit, idx, 'start', 1)
      call texp(iunit, idx + 1, 'start', 1)
      call texp(iunit, idx + 2, 'wait', 1)
      end

c     Writes the expectations (after MPI_Finalize: the timing variant
c     creates the directory then).
      subroutine twrite(rank)
      implicit none
      integer rank
      integer maxexp
      parameter (maxexp = 200)
      integer nexp, eunit(maxexp), eidx(maxexp), ecount(maxexp)
      integer*8 etrips(maxexp)
      character*12 ekind(maxexp)
      common /texpn/ nexp
      common /texpi/ eunit, eidx, ecount, etrips
      common /texpc/ ekind
      character*4096 dir
      character*32 name
      integer i, dlen, st
      call get_environment_variable('MPIETE_OUTDIR', dir, dlen, st)
      call tcheck(st .eq. 0 .and. dlen .gt. 0, 'MPIETE_OUTDIR unset')
      write(name, '(A,I0,A)') '/rank', rank, '.expect'
      open(unit=41, file=dir(1:dlen)//trim(name), status='replace',
     &     action='write', iostat=st)
      call tcheck(st .eq. 0, 'cannot open the .expect file')
      do 20 i = 1, nexp
        if (ekind(i) .eq. 'loop') then
          write(41, '(Z8.8,A,I0,A,A,A,I0,A,I0)') eunit(i), ':', eidx(i),
     &      ' ', trim(ekind(i)), ' ', ecount(i), ' ', etrips(i)
        else
          write(41, '(Z8.8,A,I0,A,A,A,I0)') eunit(i), ':', eidx(i),
     &      ' ', trim(ekind(i)), ' ', ecount(i)
        end if
   20 continue
      close(41)
      end
