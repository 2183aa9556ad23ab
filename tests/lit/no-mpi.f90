! A Fortran unit without MPI calls is still analysed (its module files serve other units) but
! gets no variants: only the native note.
! REQUIRES: fortran
! RUN: rm -rf %t && mkdir %t
! RUN: %mpiete-instrument --module-dir=%t/fmod --trace-out=%t/v.trace.f90 --timing-out=%t/v.timing.f90 --blocks-out=%t/v.blocks.yaml --native-out=%t/v.native %s -- %mpi-fflags
! RUN: cat %t/v.native | FileCheck %s
! RUN: ls %t/fmod/kernels.mod
! RUN: not ls %t/v.trace.f90
! RUN: not ls %t/v.blocks.yaml
! CHECK: native: no MPI calls
module kernels
  implicit none
contains
  subroutine scale(a)
    double precision, intent(inout) :: a(:)
    integer :: i
    do i = 1, size(a)
      a(i) = a(i) * 0.5d0
    end do
  end subroutine scale
end module kernels
