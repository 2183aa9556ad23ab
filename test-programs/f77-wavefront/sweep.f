c     The sweeps of f77-wavefront. a(0:nxl+1, 0:n+1): columns 0 and
c     nxl+1 are ghosts filled by the neighbours (or the fixed edges),
c     rows 0 and n+1 are fixed edges.

c     Warm left and bottom edges, cold right and top edges.
      subroutine setup(a)
      implicit none
      include 'wave.inc'
      double precision a(0:nxl+1, 0:n+1)
      integer i, j
      do 20 j = 0, n + 1
        do 10 i = 0, nxl + 1
          a(i, j) = 0.0d0
   10   continue
        if (i0 .eq. 0) a(0, j) = 1.0d0
   20 continue
      do 30 i = 0, nxl + 1
        a(i, 0) = 0.5d0
   30 continue
      end

c     Lower sweep, from the bottom-left corner: a point takes the mean
c     of itself and its left and lower neighbours, already updated.
c     Each block of nb rows waits for the left neighbour's last column.
      subroutine forward(a)
      implicit none
      include 'mpif.h'
      include 'wave.inc'
      double precision a(0:nxl+1, 0:n+1), buf(maxb)
      integer i, j, jb, m, ierr, status(MPI_STATUS_SIZE)
      do 40 jb = 1, n, nb
        m = min(nb, n - jb + 1)
        if (left .ne. MPI_PROC_NULL) then
          call mpi_recv(buf, m, MPI_DOUBLE_PRECISION, left, 10,
     &                  MPI_COMM_WORLD, status, ierr)
          do 10 j = 1, m
            a(0, jb + j - 1) = buf(j)
   10     continue
        end if
        do 30 j = jb, jb + m - 1
          do 20 i = 1, nxl
            a(i, j) = (a(i, j) + a(i-1, j) + a(i, j-1)) / 3.0d0
   20     continue
   30   continue
        if (right .ne. MPI_PROC_NULL) then
          do 35 j = 1, m
            buf(j) = a(nxl, jb + j - 1)
   35     continue
          call mpi_send(buf, m, MPI_DOUBLE_PRECISION, right, 10,
     &                  MPI_COMM_WORLD, ierr)
        end if
   40 continue
      end

c     Upper sweep, from the top-right corner, mirroring the lower one.
      subroutine backward(a)
      implicit none
      include 'mpif.h'
      include 'wave.inc'
      double precision a(0:nxl+1, 0:n+1), buf(maxb)
      integer i, j, jb, m, ierr, status(MPI_STATUS_SIZE)
      do 40 jb = n, 1, -nb
        m = min(nb, jb)
        if (right .ne. MPI_PROC_NULL) then
          call mpi_recv(buf, m, MPI_DOUBLE_PRECISION, right, 20,
     &                  MPI_COMM_WORLD, status, ierr)
          do 10 j = 1, m
            a(nxl + 1, jb - j + 1) = buf(j)
   10     continue
        end if
        do 30 j = jb, jb - m + 1, -1
          do 20 i = nxl, 1, -1
            a(i, j) = (a(i, j) + a(i+1, j) + a(i, j+1)) / 3.0d0
   20     continue
   30   continue
        if (left .ne. MPI_PROC_NULL) then
          do 35 j = 1, m
            buf(j) = a(1, jb - j + 1)
   35     continue
          call mpi_send(buf, m, MPI_DOUBLE_PRECISION, left, 20,
     &                  MPI_COMM_WORLD, ierr)
        end if
   40 continue
      end

c     Sum of the owned points in fixed point (units of 1e-12), exact in
c     any order of addition.
      subroutine checksum(a, lsum)
      implicit none
      include 'wave.inc'
      double precision a(0:nxl+1, 0:n+1)
      integer*8 lsum
      integer i, j
      lsum = 0
      do 20 j = 1, n
        do 10 i = 1, nxl
          lsum = lsum + nint(a(i, j) * 1.0d12, 8)
   10   continue
   20 continue
      end
