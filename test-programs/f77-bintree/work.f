c     work.f: the computation of each time step on this rank's points.
c
c     setup: x(i) for this rank's points, from their global index.
      subroutine setup
      implicit none
      include 'bintree.inc'
      integer i
      do 10 i = 1, nloc
        x(i) = dble(i0 + i - 1) / dble(n)
   10 continue
      return
      end

c     psums: this rank's partial sums for step it, shifted by g, the
c     global sums of the step before: s(1) the points, s(2) the sum of
c     their global indices (both known in closed form), s(3) and s(4)
c     sums of a smooth function of the points (the work), s(5) bad.
      subroutine psums(s, it, g, bad)
      implicit none
      include 'bintree.inc'
      integer it, i
      double precision s(5), g(5), bad, v, shift
      shift = 1d-3 * dble(it) + 1d-12 * g(3)
      s(1) = dble(nloc)
      s(2) = 0d0
      s(3) = 0d0
      s(4) = 0d0
      do 10 i = 1, nloc
        v = x(i) + shift
        s(2) = s(2) + dble(i0 + i - 1)
        s(3) = s(3) + sin(v) * exp(-v)
        s(4) = s(4) + 1d0 / (1d0 + v * v)
   10 continue
      s(5) = bad
      return
      end
