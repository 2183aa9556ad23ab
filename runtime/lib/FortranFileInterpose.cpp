// MPI-IO's collective routines called from Fortran (docs/mpiete-cc.md, "MPI-IO"). Open MPI's
// Fortran bindings (mpi_file_open_ in libmpi_mpifh) call PMPI_File_open directly, past the C
// definitions of Interpose.cpp, so under the token machine one rank would wait in it for the
// others forever. The probes define the Fortran symbols of the collective ones (gfortran's
// `mpi_file_open_`, and `mpi_file_open__` for -fsecond-underscore); each runs the MPI library's
// own Fortran binding (`pmpi_file_open_`) with every member of the file's communicator at once.
// A separate object: only a program that calls one of them pulls it (and its pmpi_ references)
// out of the runtime archive. Every Fortran argument is passed by reference; CHARACTER
// arguments add their lengths at the end.
#include "FileCalls.h"

#include <cstddef>

namespace {

/// The calls' Fortran arguments, as the bindings take them.
using F = MPI_Fint;
using Len = size_t;

template <typename Fn> int onFortranFile(const F *Fh, Fn &&Call) {
  return mpiete::fileCollectively(
      MPI_File_f2c(*Fh), [](void *Arg) { return (*static_cast<Fn *>(Arg))(); }, &Call);
}

} // namespace

extern "C" {
void pmpi_file_open_(F *, char *, F *, F *, F *, F *, Len);
void pmpi_file_close_(F *, F *);
void pmpi_file_set_view_(F *, void *, F *, F *, char *, F *, F *, Len);

void mpi_file_open_(F *Comm, char *Name, F *Amode, F *Info, F *Fh, F *Ierr, Len NameLen) {
  auto Call = [&] {
    pmpi_file_open_(Comm, Name, Amode, Info, Fh, Ierr, NameLen);
    return static_cast<int>(*Ierr);
  };
  const int Rc = mpiete::fileOpenCollectively(
      MPI_Comm_f2c(*Comm), [](void *Arg) { return (*static_cast<decltype(Call) *>(Arg))(); },
      &Call);
  if (Rc == MPI_SUCCESS)
    mpiete::rememberFile(MPI_File_f2c(*Fh), MPI_Comm_f2c(*Comm));
}
decltype(mpi_file_open_) mpi_file_open__ __attribute__((alias("mpi_file_open_")));

void mpi_file_close_(F *Fh, F *Ierr) {
  const MPI_File Closed = MPI_File_f2c(*Fh);
  onFortranFile(Fh, [&] {
    pmpi_file_close_(Fh, Ierr);
    return static_cast<int>(*Ierr);
  });
  mpiete::forgetFile(Closed);
}
decltype(mpi_file_close_) mpi_file_close__ __attribute__((alias("mpi_file_close_")));

void mpi_file_set_view_(F *Fh, void *Disp, F *Etype, F *Filetype, char *Datarep, F *Info, F *Ierr,
                        Len DatarepLen) {
  onFortranFile(Fh, [&] {
    pmpi_file_set_view_(Fh, Disp, Etype, Filetype, Datarep, Info, Ierr, DatarepLen);
    return static_cast<int>(*Ierr);
  });
}
decltype(mpi_file_set_view_) mpi_file_set_view__ __attribute__((alias("mpi_file_set_view_")));
} // extern "C"

// The others take the file, N more arguments (none of them CHARACTER) and IERROR.
#define MPIETE_FILE_PARAMS_0
#define MPIETE_FILE_PARAMS_1 , void *a1
#define MPIETE_FILE_PARAMS_2 MPIETE_FILE_PARAMS_1, void *a2
#define MPIETE_FILE_PARAMS_3 MPIETE_FILE_PARAMS_2, void *a3
#define MPIETE_FILE_PARAMS_4 MPIETE_FILE_PARAMS_3, void *a4
#define MPIETE_FILE_PARAMS_5 MPIETE_FILE_PARAMS_4, void *a5
#define MPIETE_FILE_ARGS_0
#define MPIETE_FILE_ARGS_1 , a1
#define MPIETE_FILE_ARGS_2 MPIETE_FILE_ARGS_1, a2
#define MPIETE_FILE_ARGS_3 MPIETE_FILE_ARGS_2, a3
#define MPIETE_FILE_ARGS_4 MPIETE_FILE_ARGS_3, a4
#define MPIETE_FILE_ARGS_5 MPIETE_FILE_ARGS_4, a5
#define MPIETE_FORTRAN_FILE_COLLECTIVE(Name, N)                                                    \
  extern "C" void pmpi_##Name##_(F *Fh MPIETE_FILE_PARAMS_##N, F *Ierr);                           \
  extern "C" void mpi_##Name##_(F *Fh MPIETE_FILE_PARAMS_##N, F *Ierr) {                           \
    onFortranFile(Fh, [&] {                                                                        \
      pmpi_##Name##_(Fh MPIETE_FILE_ARGS_##N, Ierr);                                               \
      return static_cast<int>(*Ierr);                                                              \
    });                                                                                            \
  }                                                                                                \
  extern "C" decltype(mpi_##Name##_) mpi_##Name##__ __attribute__((alias("mpi_" #Name "_")));

MPIETE_FORTRAN_FILE_COLLECTIVE(file_set_size, 1)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_preallocate, 1)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_set_info, 1)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_set_atomicity, 1)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_sync, 0)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_seek_shared, 2)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_at_all, 5)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_at_all, 5)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_all, 4)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_all, 4)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_ordered, 4)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_ordered, 4)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_at_all_begin, 4)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_at_all_end, 2)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_at_all_begin, 4)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_at_all_end, 2)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_all_begin, 3)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_all_end, 2)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_all_begin, 3)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_all_end, 2)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_ordered_begin, 3)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_read_ordered_end, 2)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_ordered_begin, 3)
MPIETE_FORTRAN_FILE_COLLECTIVE(file_write_ordered_end, 2)
