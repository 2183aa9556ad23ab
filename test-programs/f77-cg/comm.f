c     Communication of f77-cg: the ghost-row exchange and the
c     hand-written sum reduction.

c     Ghost rows of p from the neighbours (zero at the grid's edges).
      subroutine halo(p)
      implicit none
      include 'mpif.h'
      include 'cg.inc'
      double precision p(n, 0:nloc+1)
      integer status(MPI_STATUS_SIZE), ierr
      call mpi_sendrecv(p(1, 1), n, MPI_DOUBLE_PRECISION, up, 3,
     &                  p(1, nloc+1), n, MPI_DOUBLE_PRECISION, down, 3,
     &                  MPI_COMM_WORLD, status, ierr)
      call mpi_sendrecv(p(1, nloc), n, MPI_DOUBLE_PRECISION, down, 4,
     &                  p(1, 0), n, MPI_DOUBLE_PRECISION, up, 4,
     &                  MPI_COMM_WORLD, status, ierr)
      end

c     res = sum of every rank's s, added on rank 0 in rank order (so the
c     result does not depend on message timing) and sent back.
      subroutine gsum(s, res)
      implicit none
      include 'mpif.h'
      include 'cg.inc'
      double precision s, res, part(0:255)
      integer req(255), status(MPI_STATUS_SIZE), k, ierr
      if (rank .eq. 0) then
        do 10 k = 1, nproc - 1
          call mpi_irecv(part(k), 1, MPI_DOUBLE_PRECISION, k, 7,
     &                   MPI_COMM_WORLD, req(k), ierr)
   10   continue
        res = s
        do 20 k = 1, nproc - 1
          call mpi_wait(req(k), status, ierr)
          res = res + part(k)
   20   continue
        do 30 k = 1, nproc - 1
          call mpi_send(res, 1, MPI_DOUBLE_PRECISION, k, 8,
     &                  MPI_COMM_WORLD, ierr)
   30   continue
      else
        call mpi_send(s, 1, MPI_DOUBLE_PRECISION, 0, 7,
     &                MPI_COMM_WORLD, ierr)
        call mpi_irecv(res, 1, MPI_DOUBLE_PRECISION, 0, 8,
     &                 MPI_COMM_WORLD, req(1), ierr)
        call mpi_wait(req(1), MPI_STATUS_IGNORE, ierr)
      end if
      end
