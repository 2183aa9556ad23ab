! `use mpi_f08` is rejected with a located error before Flang's semantics runs.
! REQUIRES: fortran
! RUN: not %mpiete-instrument --seed-blocks %s -- %mpi-fflags 2>&1 | FileCheck %s
program modern
  use mpi_f08
! CHECK: mpi-f08-rejected.f90:[[@LINE-1]]:7: error: 'use mpi_f08' is not supported: mpiete instruments programs written against 'use mpi' or 'include "mpif.h"' [mpiete-unsupported]
  implicit none
  call MPI_Init()
  call MPI_Finalize()
end program modern
