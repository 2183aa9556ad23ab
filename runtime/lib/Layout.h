// The layout of a message's datatype in memory, for the trace (trace format 4): contiguous, or
// packed in pieces of about some length (trace::classOfPiece).
#ifndef MPIETE_RUNTIME_LAYOUT_H
#define MPIETE_RUNTIME_LAYOUT_H

#include <mpi.h>

#include <cstdint>

namespace mpiete {

/// The layout class of Count elements of Type (trace::LayoutShift): 0 for a contiguous message
/// (every predefined type, and derived types without gaps), otherwise the class of its mean
/// contiguous piece, or trace::LayoutUnknown. A predefined type costs one envelope query; a
/// derived one is decoded once (MPI_Type_get_contents, recursively) and its pieces cached as an
/// attribute of the type, which MPI deletes with the type.
uint8_t layoutOf(int Count, MPI_Datatype Type);

/// The number of contiguous pieces one element of Type is made of (1 for a type without gaps),
/// or a negative number where the decoder cannot tell. Uncached; for tests and layoutOf.
double piecesOf(MPI_Datatype Type);

} // namespace mpiete

#endif
