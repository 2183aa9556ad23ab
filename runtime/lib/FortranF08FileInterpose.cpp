// MPI-IO's collective routines called through `use mpi_f08` (Open MPI's Fortran 2008 bindings:
// `call MPI_File_open(...)` calls `mpi_file_open_f08_`, which reaches PMPI_File_open past the
// C definitions of Interpose.cpp). As FortranFileInterpose.cpp, whose body it shares, with the
// f08 names. A separate object, pulled out of the runtime archive only by a program that calls
// one of them.
#define MPIETE_FFILE(Name) Name##_f08_
#define MPIETE_FFILE_ALIAS(Name)
#include "FortranFileInterpose.inc"
