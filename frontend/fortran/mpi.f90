! The `mpi` module mpiete's Fortran frontend reads (with Flang) instead of the MPI library's own,
! which Flang cannot read: Open MPI's mpif.h constants and nothing else. It is used only for the
! analysis; the program itself is always compiled against the MPI library's real module.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
