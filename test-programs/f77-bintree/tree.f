c     tree.f: a reduction to rank 0 and a broadcast from it along a
c     binomial tree, written by hand as codes did before they trusted
c     MPI_REDUCE and MPI_BCAST.  Any number of ranks.
c
c     treduc: in round mask = 1, 2, 4, ... a rank whose bit mask is
c     set sends its partial sums to rank - mask and is done; the others
c     add the sums of rank + mask where that rank exists.  Rank 0 ends
c     with the sums of all ranks.
      subroutine treduc(s, m)
      implicit none
      include 'mpif.h'
      include 'bintree.inc'
      integer m, mask, j, ierr
      integer stat(MPI_STATUS_SIZE)
      double precision s(m), t(16)
      mask = 1
   10 if (mask .ge. nproc) goto 30
      if (iand(rank, mask) .ne. 0) then
        call mpi_send(s, m, MPI_DOUBLE_PRECISION, rank - mask, 21,
     &                MPI_COMM_WORLD, ierr)
        goto 30
      end if
      if (rank + mask .lt. nproc) then
        call mpi_recv(t, m, MPI_DOUBLE_PRECISION, rank + mask, 21,
     &                MPI_COMM_WORLD, stat, ierr)
        do 20 j = 1, m
          s(j) = s(j) + t(j)
   20   continue
      end if
      mask = mask * 2
      goto 10
   30 continue
      return
      end

c     tbcast: the rounds back.  A rank other than 0 receives from its
c     parent (rank - mask, mask its lowest set bit), then every rank
c     sends to rank + mask for the masks below that, the largest first,
c     where that rank exists.
      subroutine tbcast(s, m)
      implicit none
      include 'mpif.h'
      include 'bintree.inc'
      integer m, mask, ierr
      integer stat(MPI_STATUS_SIZE)
      double precision s(m)
      mask = 1
   10 if (mask .ge. nproc) goto 20
      if (iand(rank, mask) .ne. 0) then
        call mpi_recv(s, m, MPI_DOUBLE_PRECISION, rank - mask, 22,
     &                MPI_COMM_WORLD, stat, ierr)
        goto 20
      end if
      mask = mask * 2
      goto 10
   20 mask = mask / 2
   30 if (mask .le. 0) goto 40
      if (rank + mask .lt. nproc) then
        call mpi_send(s, m, MPI_DOUBLE_PRECISION, rank + mask, 22,
     &                MPI_COMM_WORLD, ierr)
      end if
      mask = mask / 2
      goto 30
   40 continue
      return
      end
