// MPI_Pack / MPI_Unpack of a user's message buffer, MPI_BOTTOM included.
#ifndef MPIETE_RUNTIME_PACK_H
#define MPIETE_RUNTIME_PACK_H

#include "mpiete/instrument.h"

namespace mpiete {

/// PMPI_Pack of Count elements of Type at Buf. MPI lets a program describe a message by
/// absolute addresses (MPI_Get_address) from MPI_BOTTOM, but MPICH 4.0.2's MPI_Pack rejects a
/// null input buffer ("Null pointer in parameter inbuf"), and MPI_BOTTOM is null in both
/// libraries: such a buffer is packed from the datatype's lowest byte instead (packFromBottom).
/// Any other buffer goes straight to PMPI_Pack.
int packFromBottom(const void *Buf, int Count, MPI_Datatype Type, void *Out, int OutSize,
                   int *Position, MPI_Comm Comm);
inline int packMessage(const void *Buf, int Count, MPI_Datatype Type, void *Out, int OutSize,
                       int *Position, MPI_Comm Comm) {
  if (Buf == MPI_BOTTOM) [[unlikely]]
    return packFromBottom(Buf, Count, Type, Out, OutSize, Position, Comm);
  return PMPI_Pack(Buf, Count, Type, Out, OutSize, Position, Comm);
}

/// PMPI_Unpack into Count elements of Type at Buf, MPI_BOTTOM included (as packMessage).
int unpackToBottom(const void *In, int InSize, int *Position, void *Buf, int Count,
                   MPI_Datatype Type, MPI_Comm Comm);
inline int unpackMessage(const void *In, int InSize, int *Position, void *Buf, int Count,
                         MPI_Datatype Type, MPI_Comm Comm) {
  if (Buf == MPI_BOTTOM) [[unlikely]]
    return unpackToBottom(In, InSize, Position, Buf, Count, Type, Comm);
  return PMPI_Unpack(In, InSize, Position, Buf, Count, Type, Comm);
}

} // namespace mpiete

#endif
