c     The compute part of f77-sor: right-hand side and start, one
c     red-black SOR half-sweep, the residual, the error and a checksum.
c     The nested DO loops share one labelled CONTINUE, as older codes
c     write them.

c     u = 0 with a zero boundary; f = 2 pi**2 sin(pi x) sin(pi y), whose
c     solution of -lap u = f is sin(pi x) sin(pi y).
      subroutine setup(u, f)
      implicit none
      include 'sor.inc'
      double precision u(0:n+1, 0:nloc+1), f(0:n+1, 0:nloc+1), pi
      parameter (pi = 3.14159265358979323846d0)
      integer i, j
      do 10 j = 0, nloc + 1
      do 10 i = 0, n + 1
        u(i, j) = 0.0d0
        f(i, j) = 2.0d0 * pi * pi * sin(pi * i * h)
     &            * sin(pi * (j0 + j) * h)
   10 continue
      end

c     Over-relaxes the points of one colour (ic = 0: i + global j even,
c     ic = 1: odd); they depend only on points of the other colour, so
c     the result does not depend on the decomposition.
      subroutine colour(u, f, ic)
      implicit none
      include 'sor.inc'
      double precision u(0:n+1, 0:nloc+1), f(0:n+1, 0:nloc+1), gs
      integer i, j, ic
      do 10 j = 1, nloc
      do 10 i = 1 + mod(j0 + j + ic + 1, 2), n, 2
        gs = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1)
     &                 + h * h * f(i, j))
        u(i, j) = u(i, j) + omega * (gs - u(i, j))
   10 continue
      end

c     Largest |f + lap u| on this rank (needs fresh ghost rows).
      double precision function resid(u, f)
      implicit none
      include 'sor.inc'
      double precision u(0:n+1, 0:nloc+1), f(0:n+1, 0:nloc+1), r
      integer i, j
      r = 0.0d0
      do 10 j = 1, nloc
      do 10 i = 1, n
        r = max(r, abs(f(i, j) + (u(i-1, j) + u(i+1, j) + u(i, j-1)
     &        + u(i, j+1) - 4.0d0 * u(i, j)) / (h * h)))
   10 continue
      resid = r
      end

c     Largest |u - c sin(pi x) sin(pi y)| on this rank, where c (near 1)
c     makes that the exact solution of the discrete equations, and the
c     owned values' sum in fixed point (units of 1e-12), which adds up
c     to the same total in any order.
      subroutine errsum(u, err, lsum)
      implicit none
      include 'sor.inc'
      double precision u(0:n+1, 0:nloc+1), err, pi, c
      parameter (pi = 3.14159265358979323846d0)
      integer*8 lsum
      integer i, j
      c = (pi * h)**2 / (4.0d0 * sin(0.5d0 * pi * h)**2)
      err = 0.0d0
      lsum = 0
      do 10 j = 1, nloc
      do 10 i = 1, n
        err = max(err, abs(u(i, j) - c * sin(pi * i * h)
     &                     * sin(pi * (j0 + j) * h)))
        lsum = lsum + nint(u(i, j) * 1.0d12, 8)
   10 continue
      end
