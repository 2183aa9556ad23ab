! The shared data of f90-moddata (module field_data: grid sizes, the decomposition, the two
! temperature arrays) and, in the same file after the module, the halo exchange that uses it.
! A file that defines a module and uses it is a common Fortran layout: compiled alone, it needs
! no module file but its own.
module field_data
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  ! r = dt / h**2 of the explicit scheme; at most 1/4 for stability.
  real(dp), parameter :: rcoef = 0.2_dp
  integer :: n = 0          ! interior points per side of the global grid
  integer :: nloc = 0       ! rows this rank owns
  integer :: j0 = 0         ! global index of the row before this rank's first row
  integer :: rank = 0, nproc = 1, up = -1, down = -1
  ! Temperature now and after the step, with a ghost row above and below the owned rows
  ! (columns 0 and n+1 are the global boundary, held at zero).
  real(dp), allocatable :: t(:, :), tnew(:, :)
end module field_data

!> Fills the ghost rows 0 and nloc+1 with the neighbours' boundary rows (MPI_Sendrecv up,
!> then down; MPI_PROC_NULL at the global edges leaves the zero boundary in place).
subroutine exchange_halo()
  use mpi
  use field_data
  implicit none
  integer :: ierr, st(MPI_STATUS_SIZE)
  call mpi_sendrecv(t(0, 1), n + 2, MPI_DOUBLE_PRECISION, up, 11, &
                    t(0, nloc + 1), n + 2, MPI_DOUBLE_PRECISION, down, 11, &
                    MPI_COMM_WORLD, st, ierr)
  call mpi_sendrecv(t(0, nloc), n + 2, MPI_DOUBLE_PRECISION, down, 12, &
                    t(0, 0), n + 2, MPI_DOUBLE_PRECISION, up, 12, &
                    MPI_COMM_WORLD, st, ierr)
end subroutine exchange_halo
