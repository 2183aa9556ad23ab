// What the Fortran entry points (FortranEntry.cpp) and the Fortran block hooks
// (FortranHooks.cpp) share: the block id made of the caller's (UNIT, IDX) pair, and the values
// of Fortran LOGICAL.
//
// Fortran passes every argument by reference; a default INTEGER and a default LOGICAL are
// MPI_Fint (4 bytes with gfortran unless -fdefault-integer-8, which the runtime does not
// support: Open MPI's own Fortran bindings would not match it either).
#ifndef MPIETE_RUNTIME_FORTRAN_H
#define MPIETE_RUNTIME_FORTRAN_H

#include "mpiete/instrument.h"

#include <cstdint>

// The value the Fortran compiler gives .TRUE.: 1 for gfortran and flang, -1 for ifort's
// default. Reading a LOGICAL, any non-zero value is true.
#ifndef MPIETE_FORTRAN_TRUE
#define MPIETE_FORTRAN_TRUE 1
#endif

namespace mpiete::fortran {

static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

constexpr MPI_Fint True = MPIETE_FORTRAN_TRUE;
constexpr MPI_Fint False = 0;

/// The 64-bit block id of (UNIT, IDX): the unit id is an unsigned 32-bit value the
/// instrumenter wrote as a (possibly negative) default INTEGER.
inline mpiete_site_t site(const MPI_Fint *Unit, const MPI_Fint *Idx) {
  return MPIETE_ID(static_cast<uint32_t>(*Unit), static_cast<uint32_t>(*Idx));
}

/// MPI_Ialltoallw and MPI_Ineighbor_alltoallw with the datatypes converted from Fortran into
/// Types (malloc'd: the send types, then the receive types). The converted array must outlive
/// the call; the operation frees it when it ends (MpiEntry.cpp).
int ialltoallwOwned(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
                    const int SendDispls[], MPI_Datatype *Types, void *RecvBuf,
                    const int RecvCounts[], const int RecvDispls[], MPI_Comm Comm,
                    MPI_Request *Request);
int ineighborAlltoallwOwned(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
                            const MPI_Aint SendDispls[], MPI_Datatype *Types, void *RecvBuf,
                            const int RecvCounts[], const MPI_Aint RecvDispls[], MPI_Comm Comm,
                            MPI_Request *Request);

} // namespace mpiete::fortran

#endif // MPIETE_RUNTIME_FORTRAN_H
