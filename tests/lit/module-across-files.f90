! A program using a module compiled before it, in Makefile order: Flang's module file and
! mpiete's note of which module procedures communicate are kept in the module directory, so
! the call to 'exchange' ends a compute block and the call to 'scale' does not.
! REQUIRES: fortran
! RUN: rm -rf %t.mod && mkdir -p %t.mod
! RUN: %mpiete-instrument --seed-blocks --module-dir=%t.mod %S/Inputs/halo_mod.f90 -- %mpi-fflags > /dev/null
! RUN: cat %t.mod/halo_mod.mpiete | FileCheck --check-prefix=FACTS %s
! RUN: %mpiete-instrument --seed-blocks --module-dir=%t.mod %s -- %mpi-fflags | FileCheck --match-full-lines %s
! RUN: %mpiete-instrument --seed-blocks --module-dir=%t.mod --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
! gfortran's own module file in the working directory (a build without -J) is never read:
! RUN: rm -rf %t.cwd && mkdir -p %t.cwd && cd %t.cwd && %mpif90 -c %S/Inputs/halo_mod.f90
! RUN: cd %t.cwd && %mpiete-instrument --seed-blocks --module-dir=%t.mod %s -- %mpi-fflags | FileCheck --match-full-lines %s
! A module compiled without mpiete, found only as gfortran's module file, is a located error:
! RUN: rm -rf %t.none && mkdir -p %t.none
! RUN: not %mpiete-instrument --seed-blocks --module-dir=%t.none %s -- -I%t.cwd %mpi-fflags 2>&1 | FileCheck --check-prefix=GFORTRAN %s
program main
  use mpi
  use halo_mod, only: exchange, scale
! GFORTRAN: module-across-files.f90:[[@LINE-1]]:7: error: module 'halo_mod': '{{.*}}halo_mod.mod' is not a Flang module file (built by gfortran without mpiete-fc?); compile the file that defines the module with mpiete-fc first [mpiete-module]
  implicit none
  integer :: ierr, rank
  double precision :: u(8)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  u = rank
  call scale(u, 8)
  call exchange(u, 8, 1 - rank)
  u = u + 1
  call MPI_Finalize(ierr)
end program main

! FACTS:      # mpiete: procedures of module 'halo_mod' that communicate
! FACTS-NEXT: exchange
! FACTS-NOT:  scale

! CHECK:        call mpiete_init([[U:-?[0-9]+]], 0, ierr)
! CHECK-NEXT:   call mpiete_tr_block([[U]], 1)
! CHECK-NEXT:   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
! CHECK-NEXT:   u = rank
! CHECK-NEXT:   call scale(u, 8)
! CHECK-NEXT:   call exchange(u, 8, 1 - rank)
! CHECK-NEXT:   call mpiete_tr_block([[U]], 2)
! CHECK-NEXT:   u = u + 1
! CHECK-NEXT:   call mpiete_finalize([[U]], 3, ierr)

! MAP:      - id: [[U:[0-9a-f]+]]:1
! MAP-NEXT:   kind: compute
! MAP:        lines: [24, 26]
! MAP-NEXT:   col: 3
! MAP:        opaque_calls: [scale]
