c     Halo exchange of f77-jacobi: the first and last owned rows go to
c     the neighbours above and below, whose rows fill the ghost rows 0
c     and nloc+1. Non-blocking, completed with one MPI_WAITALL.
      subroutine exchange(u)
      implicit none
      include 'mpif.h'
      include 'jacobi.inc'
      double precision u(0:n+1, 0:nloc+1)
      integer req(4), stats(MPI_STATUS_SIZE, 4), ierr
      call mpi_irecv(u(0, 0), n + 2, MPI_DOUBLE_PRECISION, up, 1,
     &               MPI_COMM_WORLD, req(1), ierr)
      call mpi_irecv(u(0, nloc+1), n + 2, MPI_DOUBLE_PRECISION, down,
     &               2, MPI_COMM_WORLD, req(2), ierr)
      call mpi_isend(u(0, 1), n + 2, MPI_DOUBLE_PRECISION, up, 2,
     &               MPI_COMM_WORLD, req(3), ierr)
      call mpi_isend(u(0, nloc), n + 2, MPI_DOUBLE_PRECISION, down, 1,
     &               MPI_COMM_WORLD, req(4), ierr)
      call mpi_waitall(4, req, stats, ierr)
      end
