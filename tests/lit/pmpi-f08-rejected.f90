! `use pmpi_f08` is rejected with a located error before Flang's semantics runs.
! REQUIRES: fortran
! RUN: not %mpiete-instrument --seed-blocks %s -- %mpi-fflags 2>&1 | FileCheck %s
program profiler
  use pmpi_f08
! CHECK: pmpi-f08-rejected.f90:[[@LINE-1]]:7: error: 'use pmpi_f08' is not supported: mpiete instruments programs written against 'use mpi_f08', 'use mpi' or 'include "mpif.h"' [mpiete-unsupported]
  implicit none
  call PMPI_Init()
end program profiler
