// MPI-IO's collective routines called from Fortran through `use mpi` or mpif.h (docs/mpiete-cc.md,
// "MPI-IO"). Open MPI's Fortran bindings (mpi_file_open_ in libmpi_mpifh) call PMPI_File_open
// directly, past the C definitions of Interpose.cpp, so under the token machine one rank would
// wait in it for the others forever. The probes define the Fortran symbols of the collective
// ones (gfortran's `mpi_file_open_`, and `mpi_file_open__` for -fsecond-underscore); each runs
// the library's own binding (`pmpi_file_open_`) with every member of the file's communicator at
// once. A separate object: only a program that calls one of them pulls it (and its pmpi_
// references) out of the runtime archive. The body is shared with FortranF08FileInterpose.cpp.
#define MPIETE_FFILE(Name) Name##_
#define MPIETE_FFILE_ALIAS(Name)                                                                   \
  extern "C" decltype(Name##_) Name##__ __attribute__((alias(#Name "_")));
#include "FortranFileInterpose.inc"
