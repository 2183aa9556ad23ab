// MPI-IO's collective routines under the probes (Interpose.cpp): the communicator each open
// file belongs to, and running a call with every member of it at once.
#ifndef MPIETE_RUNTIME_FILECALLS_H
#define MPIETE_RUNTIME_FILECALLS_H

#include <mpi.h>

namespace mpiete {

/// Remembers the communicator File was opened on; forgets it once closed.
void rememberFile(MPI_File File, MPI_Comm Comm);
void forgetFile(MPI_File File);

/// Runs Call(Arg), a collective MPI-IO routine, with every member of the communicator at once
/// (transport::collectiveCall at FileCallBlock): of File's, or Comm for MPI_File_open.
int fileCollectively(MPI_File File, int (*Call)(void *), void *Arg);
int fileOpenCollectively(MPI_Comm Comm, int (*Call)(void *), void *Arg);

} // namespace mpiete

#endif
