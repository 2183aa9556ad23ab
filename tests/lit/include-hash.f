! The unit's content hash covers the files it INCLUDEs: the same main file with another include
! file gets another hash, with an identical one the same hash.
! RUN: rm -rf %t && mkdir -p %t/a %t/b %t/c
! RUN: cp %s %t/a/main.f && cp %s %t/b/main.f && cp %s %t/c/main.f
! RUN: printf '      integer n\n      parameter (n = 4)\n' > %t/a/sizes.inc
! RUN: printf '      integer n\n      parameter (n = 8)\n' > %t/b/sizes.inc
! RUN: cp %t/a/sizes.inc %t/c/sizes.inc
! RUN: cd %t/a && %mpiete-instrument --seed-blocks --blocks-out=%t/a.yaml --unit-path=main.f main.f -- %mpi-fflags > /dev/null
! RUN: cd %t/b && %mpiete-instrument --seed-blocks --blocks-out=%t/b.yaml --unit-path=main.f main.f -- %mpi-fflags > /dev/null
! RUN: cd %t/c && %mpiete-instrument --seed-blocks --blocks-out=%t/c.yaml --unit-path=main.f main.f -- %mpi-fflags > /dev/null
! RUN: grep content_hash %t/a.yaml > %t/ha && grep content_hash %t/b.yaml > %t/hb
! RUN: grep content_hash %t/c.yaml > %t/hc
! RUN: not diff %t/ha %t/hb
! RUN: diff %t/ha %t/hc
      program inc
      include 'mpif.h'
      include 'sizes.inc'
      integer ierr, a(n)
      call mpi_init(ierr)
      a(1) = n
      call mpi_finalize(ierr)
      end
