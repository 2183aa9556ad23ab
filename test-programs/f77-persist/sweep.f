c     The compute part of f77-persist (no MPI): initial field, periodic
c     ghost columns, explicit heat step on a range of rows, checksum.

c     u: a fixed pattern of the global indices in [0, 1); v zero.
      subroutine setup(u, v)
      implicit none
      include 'persist.inc'
      double precision u(0:n+1, 0:nloc+1), v(0:n+1, 0:nloc+1)
      integer i, j, r, c
      do 10 j = 0, nloc + 1
      do 10 i = 0, n + 1
        u(i, j) = 0.0d0
        v(i, j) = 0.0d0
   10 continue
      do 20 j = 1, nloc
      do 20 i = 1, n
        r = j0 + j - 1
        c = i - 1
        u(i, j) = dble(mod(r * 37 + c * 91 + mod(r * c, 53), 1000))
     &            / 1000.0d0
   20 continue
      end

c     Periodic in the columns: ghost columns 0 and n+1 of owned rows.
      subroutine ghostc(u)
      implicit none
      include 'persist.inc'
      double precision u(0:n+1, 0:nloc+1)
      integer j
      do 10 j = 1, nloc
        u(0, j) = u(n, j)
        u(n+1, j) = u(1, j)
   10 continue
      end

c     One explicit heat step u -> v on rows j1..j2 (none if j2 < j1);
c     chg becomes the largest of itself and the changes there.
      subroutine rows(u, v, j1, j2, chg)
      implicit none
      include 'persist.inc'
      double precision u(0:n+1, 0:nloc+1), v(0:n+1, 0:nloc+1), chg
      integer j1, j2, i, j
      do 10 j = j1, j2
      do 10 i = 1, n
        v(i, j) = u(i, j) + 0.2d0 * (((u(i, j-1) + u(i, j+1))
     &            + (u(i-1, j) + u(i+1, j))) - 4.0d0 * u(i, j))
        chg = max(chg, abs(v(i, j) - u(i, j)))
   10 continue
      end

c     Sum of floor(value * 1e6) weighted by the global position, modulo
c     modp: integers, so the same in any order and decomposition.
      subroutine cksum(u, lsum)
      implicit none
      include 'persist.inc'
      double precision u(0:n+1, 0:nloc+1)
      integer*8 lsum
      integer i, j, r
      lsum = 0
      do 20 j = 1, nloc
        r = j0 + j - 1
        do 10 i = 1, n
          lsum = lsum + floor(u(i, j) * 1.0d6, 8)
     &                * (1 + mod(r * 131 + (i - 1) * 71, 1000))
   10   continue
        lsum = mod(lsum, modp)
   20 continue
      end
