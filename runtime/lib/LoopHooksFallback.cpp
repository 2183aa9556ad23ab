// TEMPORARY (issue 13, compiler branch h-seg-compiler): weak no-op definitions of the segment
// mode's loop hooks, so that probes built before the runtime branch lands still link. The
// runtime's own definitions (strong) replace them; delete this file (and its line in
// runtime/CMakeLists.txt) when the runtime branch defines mpiete_iter / mpiete_loop_exit and
// their Fortran twins mpiete_iter_ / mpiete_loop_exit_ (UNIT, IDX).
#include "Fortran.h"

extern "C" {
__attribute__((weak)) void mpiete_iter(mpiete_site_t) {}
__attribute__((weak)) void mpiete_loop_exit(mpiete_site_t) {}
__attribute__((weak)) void mpiete_iter_(const MPI_Fint *, const MPI_Fint *) {}
__attribute__((weak)) void mpiete_iter__(const MPI_Fint *, const MPI_Fint *) {}
__attribute__((weak)) void mpiete_loop_exit_(const MPI_Fint *, const MPI_Fint *) {}
__attribute__((weak)) void mpiete_loop_exit__(const MPI_Fint *, const MPI_Fint *) {}
}
