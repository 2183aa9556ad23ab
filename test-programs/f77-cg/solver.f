c     The vector kernels of f77-cg. p carries a ghost row on each side:
c     p(n*(nloc+2)), owned rows in p(n+1 .. n*(nloc+1)).

      subroutine fill(v, m, val)
      implicit none
      integer m, k
      double precision v(m), val
      do 10 k = 1, m
        v(k) = val
   10 continue
      end

      subroutine copy(a, b, m)
      implicit none
      integer m, k
      double precision a(m), b(m)
      do 10 k = 1, m
        b(k) = a(k)
   10 continue
      end

c     y = y + a * x
      subroutine axpy(a, x, y, m)
      implicit none
      integer m, k
      double precision a, x(m), y(m)
      do 10 k = 1, m
        y(k) = y(k) + a * x(k)
   10 continue
      end

c     y = x + b * y
      subroutine xpay(x, b, y, m)
      implicit none
      integer m, k
      double precision b, x(m), y(m)
      do 10 k = 1, m
        y(k) = x(k) + b * y(k)
   10 continue
      end

c     q = A p for the 5-point Laplacian (4 on the diagonal, -1 for each
c     neighbour inside the grid), after filling p's ghost rows.
      subroutine matvec(p, q)
      implicit none
      include 'cg.inc'
      double precision p(n, 0:nloc+1), q(n, nloc), s
      integer i, j
      call halo(p)
      do 20 j = 1, nloc
        do 10 i = 1, n
          s = 4.0d0 * p(i, j) - p(i, j-1) - p(i, j+1)
          if (i .gt. 1) s = s - p(i-1, j)
          if (i .lt. n) s = s - p(i+1, j)
          q(i, j) = s
   10   continue
   20 continue
      end

c     Global dot product: local part, then the hand-written reduction.
      subroutine dot(a, b, m, res)
      implicit none
      integer m, k
      double precision a(m), b(m), res, s
      s = 0.0d0
      do 10 k = 1, m
        s = s + a(k) * b(k)
   10 continue
      call gsum(s, res)
      end
