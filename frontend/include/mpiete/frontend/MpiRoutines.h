// Which MPI routines mpiete rewrites, which it leaves alone, and why it rejects the rest.
#ifndef MPIETE_FRONTEND_MPIROUTINES_H
#define MPIETE_FRONTEND_MPIROUTINES_H

#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/support/Diagnostics.h"

#include <string>
#include <string_view>
#include <vector>

namespace mpiete {

struct MpiRoutineInfo {
  std::string_view Name;        ///< MPI_Send
  std::string_view RuntimeName; ///< mpiete_send
  MpiRole Role;
  /// The routine's arguments in C (MPI's own, without the site); in Fortran the same plus the
  /// trailing ierror, except MPI_Init (none) and MPI_Init_thread (required, provided).
  unsigned CArgs = 0;
};

/// The arguments a Fortran call to Info passes before its ierror (optional with mpi_f08).
unsigned fortranArgsBeforeError(const MpiRoutineInfo &Info);

/// A routine the runtime implements (abi/include/mpiete/routines.def), or null.
const MpiRoutineInfo *findRewrittenRoutine(std::string_view Name);

/// A routine that does not communicate (MPI_Comm_rank, MPI_Wtime, MPI_Type_commit...): it stays
/// as written and counts as computation.
bool isLocalRoutine(std::string_view Name);

/// Why an MPI routine that is neither rewritten nor local is rejected ("one-sided
/// communication", "MPI-IO", ...); a short phrase for the diagnostic.
std::string_view unhandledReason(std::string_view Name);

/// An MPI-IO routine the probes run as the program calls it (MPI_File_open, MPI_File_write_all,
/// ...; not the non-blocking MPI_File_i* ones): accepted with a located warning [mpiete-io].
bool isRunMpiIoRoutine(std::string_view Name);

/// Diagnoses a call, at Loc, of an MPI routine that is neither rewritten nor local, the same way
/// for both frontends: a direct PMPI_ call is an error; a routine the user passes through
/// (PassThroughAll, or named in PassThrough) a warning, recorded once in Model.PassedThrough;
/// any other an error saying why it is unsupported and how to pass it through.
void diagnoseUnhandledRoutine(const std::string &Name, const DiagLoc &Loc,
                              const std::vector<std::string> &PassThrough, bool PassThroughAll,
                              UnitModel &Model, DiagnosticSink &Diags);

/// Number of consecutive blocks a call site of this role owns.
unsigned blocksForRole(MpiRole R);

/// The kind and phase ("start", "wait", "send-start", ...; empty for one-block roles without
/// one) of block I (0 <= I < blocksForRole(R)) of a call site of role R: what both frontends
/// record for every MPI call site.
struct RoleBlock {
  BlockKind Kind;
  const char *Phase;
};
RoleBlock roleBlock(MpiRole R, unsigned I);

} // namespace mpiete

#endif
