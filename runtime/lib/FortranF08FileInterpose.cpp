// MPI-IO's collective routines called through `use mpi_f08` (Open MPI's Fortran 2008 bindings:
// `call MPI_File_open(...)` calls `mpi_file_open_f08_`, which reaches PMPI_File_open past the
// C definitions of Interpose.cpp). As FortranFileInterpose.cpp for `use mpi` and mpif.h, with
// the f08 names; ierror is optional (a null pointer when the call leaves it out). A separate
// object, pulled out of the runtime archive only by a program that calls one of them.
#include "FileCalls.h"

#include <cstddef>

namespace {

using F = MPI_Fint;
using Len = size_t;

template <typename Fn> void onF08File(const F *Fh, Fn &&Call) {
  mpiete::fileCollectively(
      MPI_File_f2c(*Fh),
      [](void *Arg) {
        (*static_cast<Fn *>(Arg))();
        return 0;
      },
      &Call);
}

} // namespace

extern "C" {
void pmpi_file_open_f08_(F *, char *, F *, F *, F *, F *, Len);
void pmpi_file_close_f08_(F *, F *);
void pmpi_file_set_view_f08_(F *, void *, F *, F *, char *, F *, F *, Len);

void mpi_file_open_f08_(F *Comm, char *Name, F *Amode, F *Info, F *Fh, F *Ierr, Len NameLen) {
  auto Call = [&] {
    pmpi_file_open_f08_(Comm, Name, Amode, Info, Fh, Ierr, NameLen);
    return 0;
  };
  mpiete::fileOpenCollectively(
      MPI_Comm_f2c(*Comm), [](void *Arg) { return (*static_cast<decltype(Call) *>(Arg))(); },
      &Call);
  if ((Ierr == nullptr || *Ierr == MPI_SUCCESS) && MPI_File_f2c(*Fh) != MPI_FILE_NULL)
    mpiete::rememberFile(MPI_File_f2c(*Fh), MPI_Comm_f2c(*Comm));
}

void mpi_file_close_f08_(F *Fh, F *Ierr) {
  const MPI_File Closed = MPI_File_f2c(*Fh);
  onF08File(Fh, [&] { pmpi_file_close_f08_(Fh, Ierr); });
  mpiete::forgetFile(Closed);
}

void mpi_file_set_view_f08_(F *Fh, void *Disp, F *Etype, F *Filetype, char *Datarep, F *Info,
                            F *Ierr, Len DatarepLen) {
  onF08File(Fh, [&] {
    pmpi_file_set_view_f08_(Fh, Disp, Etype, Filetype, Datarep, Info, Ierr, DatarepLen);
  });
}
} // extern "C"

#define MPIETE_F08_PARAMS_0
#define MPIETE_F08_PARAMS_1 , void *a1
#define MPIETE_F08_PARAMS_2 MPIETE_F08_PARAMS_1, void *a2
#define MPIETE_F08_PARAMS_3 MPIETE_F08_PARAMS_2, void *a3
#define MPIETE_F08_PARAMS_4 MPIETE_F08_PARAMS_3, void *a4
#define MPIETE_F08_PARAMS_5 MPIETE_F08_PARAMS_4, void *a5
#define MPIETE_F08_ARGS_0
#define MPIETE_F08_ARGS_1 , a1
#define MPIETE_F08_ARGS_2 MPIETE_F08_ARGS_1, a2
#define MPIETE_F08_ARGS_3 MPIETE_F08_ARGS_2, a3
#define MPIETE_F08_ARGS_4 MPIETE_F08_ARGS_3, a4
#define MPIETE_F08_ARGS_5 MPIETE_F08_ARGS_4, a5
#define MPIETE_F08_FILE_COLLECTIVE(Name, N)                                                        \
  extern "C" void pmpi_##Name##_f08_(F *Fh MPIETE_F08_PARAMS_##N, F *Ierr);                        \
  extern "C" void mpi_##Name##_f08_(F *Fh MPIETE_F08_PARAMS_##N, F *Ierr) {                        \
    onF08File(Fh, [&] { pmpi_##Name##_f08_(Fh MPIETE_F08_ARGS_##N, Ierr); });                      \
  }

MPIETE_F08_FILE_COLLECTIVE(file_set_size, 1)
MPIETE_F08_FILE_COLLECTIVE(file_preallocate, 1)
MPIETE_F08_FILE_COLLECTIVE(file_set_info, 1)
MPIETE_F08_FILE_COLLECTIVE(file_set_atomicity, 1)
MPIETE_F08_FILE_COLLECTIVE(file_sync, 0)
MPIETE_F08_FILE_COLLECTIVE(file_seek_shared, 2)
MPIETE_F08_FILE_COLLECTIVE(file_read_at_all, 5)
MPIETE_F08_FILE_COLLECTIVE(file_write_at_all, 5)
MPIETE_F08_FILE_COLLECTIVE(file_read_all, 4)
MPIETE_F08_FILE_COLLECTIVE(file_write_all, 4)
MPIETE_F08_FILE_COLLECTIVE(file_read_ordered, 4)
MPIETE_F08_FILE_COLLECTIVE(file_write_ordered, 4)
MPIETE_F08_FILE_COLLECTIVE(file_read_at_all_begin, 4)
MPIETE_F08_FILE_COLLECTIVE(file_read_at_all_end, 2)
MPIETE_F08_FILE_COLLECTIVE(file_write_at_all_begin, 4)
MPIETE_F08_FILE_COLLECTIVE(file_write_at_all_end, 2)
MPIETE_F08_FILE_COLLECTIVE(file_read_all_begin, 3)
MPIETE_F08_FILE_COLLECTIVE(file_read_all_end, 2)
MPIETE_F08_FILE_COLLECTIVE(file_write_all_begin, 3)
MPIETE_F08_FILE_COLLECTIVE(file_write_all_end, 2)
MPIETE_F08_FILE_COLLECTIVE(file_read_ordered_begin, 3)
MPIETE_F08_FILE_COLLECTIVE(file_read_ordered_end, 2)
MPIETE_F08_FILE_COLLECTIVE(file_write_ordered_begin, 3)
MPIETE_F08_FILE_COLLECTIVE(file_write_ordered_end, 2)
