c     The compute part of f77-jacobi: initial grid, one Jacobi sweep,
c     and a checksum that does not depend on the decomposition.

c     Interior zero; the global top edge (row 0) hot.
      subroutine setup(u, v)
      implicit none
      include 'jacobi.inc'
      double precision u(0:n+1, 0:nloc+1), v(0:n+1, 0:nloc+1)
      integer i, j
      do 20 j = 0, nloc + 1
        do 10 i = 0, n + 1
          u(i, j) = 0.0d0
          v(i, j) = 0.0d0
   10   continue
   20 continue
      if (j0 .eq. 0) then
        do 30 i = 1, n
          u(i, 0) = 1.0d0
          v(i, 0) = 1.0d0
   30   continue
      end if
      end

c     v = average of u's four neighbours; u = v; change = largest
c     update on this rank.
      subroutine sweep(u, v, change)
      implicit none
      include 'jacobi.inc'
      double precision u(0:n+1, 0:nloc+1), v(0:n+1, 0:nloc+1), change
      integer i, j
      change = 0.0d0
      do 20 j = 1, nloc
        do 10 i = 1, n
          v(i, j) = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1)
     &                        + u(i, j+1))
          change = max(change, abs(v(i, j) - u(i, j)))
   10   continue
   20 continue
      do 40 j = 1, nloc
        do 30 i = 1, n
          u(i, j) = v(i, j)
   30   continue
   40 continue
      end

c     Sum of the interior in fixed point (units of 1e-12): integers add
c     up to the same total in any order.
      subroutine checksum(u, lsum)
      implicit none
      include 'jacobi.inc'
      double precision u(0:n+1, 0:nloc+1)
      integer*8 lsum
      integer i, j
      lsum = 0
      do 20 j = 1, nloc
        do 10 i = 1, n
          lsum = lsum + nint(u(i, j) * 1.0d12, 8)
   10   continue
   20 continue
      end
