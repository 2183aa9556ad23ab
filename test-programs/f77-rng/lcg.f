c     The random-number kernel of f77-rng, in its own file as codes keep
c     their generator: a linear congruential generator whose state is in
c     COMMON /lcgst/, a uniform deviate per call, and a jump ahead so
c     that each rank starts at its own place in one global sequence.

c     Next uniform deviate in (0, 1).
      double precision function urand()
      implicit none
      include 'rng.inc'
      lcgx = mod(lcga * lcgx, lcgm)
      urand = dble(lcgx) / dble(lcgm)
      end

c     Sets the state to the one k draws after seed: seed * a**k mod m,
c     by binary powers of a.
      subroutine lcgjmp(seed, k)
      implicit none
      include 'rng.inc'
      integer*8 seed, k, p, e, x
      x = mod(seed, lcgm)
      p = lcga
      e = k
   10 if (e .gt. 0) then
        if (mod(e, 2_8) .eq. 1) x = mod(x * p, lcgm)
        p = mod(p * p, lcgm)
        e = e / 2
        goto 10
      end if
      lcgx = x
      end
