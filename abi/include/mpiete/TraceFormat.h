// The per-rank binary trace (program base data): constants and varint coding shared by the
// runtime's writer and the reader library. Header-only C++, no dependencies beyond the ground
// floor's SendMode.h and <cstdint>; the layout is documented in docs/trace-format.md.
//
// A file is the 8-byte magic, a header, then records. A record is one tag byte followed by
// LEB128 varints (signed fields zigzag-coded). The last record is End, carrying the number of
// (physical) records before it, so a cut file (no End, or an End whose count disagrees) is
// detected.
//
// Version 2 (this writer's) adds: the call-start flag on the tag byte, the Collective, Call and
// Repeat records, and position-independent request ids (implicit on starts, a backward distance
// on completions), so that the iterations of a loop encode to identical bytes and a Repeat
// record can stand for them. Version 3 adds the same-buffer flag on a Recv record's context
// byte, version 4 the datatype's layout on Send and Recv records' context bytes. Readers still
// read versions 1 to 3.
#ifndef MPIETE_TRACEFORMAT_H
#define MPIETE_TRACEFORMAT_H

#include "mpiete/SendMode.h"

#include <cstddef>
#include <cstdint>

namespace mpiete::trace {

inline constexpr unsigned char Magic[8] = {'M', 'P', 'I', 'E', 'T', 'R', 'C', '\n'};
inline constexpr uint64_t FormatVersion = 4;
/// The oldest version the reader still reads.
inline constexpr uint64_t MinFormatVersion = 1;

/// Version 2: bit 7 of the tag byte marks the first event record written during an outermost
/// MPI call (Unit and Repeat records never carry it). The record's tag is the low 7 bits.
inline constexpr uint8_t CallStartFlag = 0x80;
inline constexpr uint8_t TagMask = 0x7f;

/// Version 3: bit 7 of a Recv record's context byte says the receive buffer overlaps a buffer
/// the rank sent from since its previous receive (a token received into the buffer just sent:
/// on shared memory the peer's read left its lines in the peer's cache, and the receive costs
/// more; docs/trace-format.md). The context is the low 7 bits.
inline constexpr uint8_t SameBufferFlag = 0x80;
inline constexpr uint8_t ContextMask = 0x7f;

/// Version 4: bits 4-6 of a Send or Recv record's context byte give the layout of the message's
/// datatype (count x type) in memory: 0 contiguous; otherwise the message is packed and
/// unpacked piece by piece, and the class says how long its contiguous pieces are on average
/// (classOfPiece). The context is then the low 4 bits.
inline constexpr uint8_t LayoutShift = 4;
inline constexpr uint8_t LayoutMask = 0x70;
inline constexpr uint8_t ContextMaskV4 = 0x0f;
/// Layout classes: 0 contiguous; 1-6 non-contiguous with a mean contiguous piece of < 16,
/// < 64, < 256, < 1024, < 4096 and >= 4096 bytes; 7 non-contiguous, piece length not known (a
/// distributed-array type, or a type nested deeper than the runtime decodes).
inline constexpr uint8_t LayoutContiguous = 0;
inline constexpr uint8_t LayoutUnknown = 7;
inline constexpr uint8_t LastLayout = 7;
/// The class of a non-contiguous layout whose pieces average PieceBytes.
inline constexpr uint8_t classOfPiece(double PieceBytes) {
  return PieceBytes < 16     ? 1
         : PieceBytes < 64   ? 2
         : PieceBytes < 256  ? 3
         : PieceBytes < 1024 ? 4
         : PieceBytes < 4096 ? 5
                             : 6;
}
/// A piece length standing for a class (the geometric middle of its range; 512 for unknown):
/// what the estimator interpolates the measured packed transfers at.
inline constexpr double pieceOfClass(uint8_t Class) {
  constexpr double Pieces[LastLayout + 1] = {0, 8, 32, 128, 512, 2048, 8192, 512};
  return Class <= LastLayout ? Pieces[Class] : 0;
}
/// Of two layout classes (a send's and a receive's), the one a copy between them is costed at:
/// contiguous if both are, else the one with the shorter pieces (packing them costs more).
inline constexpr uint8_t shorterPieces(uint8_t A, uint8_t B) {
  if (A == LayoutContiguous || B == LayoutContiguous)
    return uint8_t(A | B);
  return pieceOfClass(A) <= pieceOfClass(B) ? A : B;
}

/// The longest repeated region (bytes) a writer produces: its buffer. A reader keeps at least
/// this many bytes of history to expand Repeat records.
inline constexpr size_t MaxRepeatBytes = size_t{1} << 20;

/// Longest varint (a 64-bit value): 10 bytes.
inline constexpr size_t MaxVarint = 10;

/// Peer and tag values that are not ranks or tags. Independent of the MPI library's own.
inline constexpr int32_t AnySource = -1; ///< a receive or probe posted with MPI_ANY_SOURCE
inline constexpr int32_t ProcNull = -2;  ///< an operation on MPI_PROC_NULL (a no-op)
inline constexpr int32_t AnyTag = -1;    ///< posted with MPI_ANY_TAG

/// Request id 0: a request the runtime did not start (none of mpiete's own). Version 2 writes
/// ids relatively: starts carry none (a rank's starts are numbered 1, 2, ... in order) and a
/// completion or request-free carries the distance `next id - request` (1 = the latest start,
/// 0 = a request the runtime did not start).
inline constexpr uint64_t UnknownRequest = 0;

/// Record tags (the first byte of a record). Fields in order, `v` = unsigned varint, `z` =
/// zigzag varint, `b` = block (v unit index, then v index in the unit), `s` = string (v length,
/// bytes), `1` = one raw byte.
enum class Tag : uint8_t {
  Unit = 0x01,        ///< v index, v unit id: index -> 32-bit unit id, before its first use
  Block = 0x02,       ///< b: a compute block starts
  Loop = 0x03,        ///< b, v trips: a loop timed whole ended
  Send = 0x04,        ///< b, z peer, z tag, v comm, v bytes, [v1: v request,] 1 mode, 1 context
                      ///< (v4: | layout << LayoutShift)
  Recv = 0x05,        ///< b, z source, z tag, v comm, v bytes posted, [v1: v request,] 1 context
                      ///< (v3: | SameBufferFlag; v4: | layout << LayoutShift)
  Wait = 0x06,        ///< b, 1 op, v n, n x completion (see WaitOp / completion below)
  Probe = 0x07,       ///< b, 1 flags, z source, z tag, v comm [, z source, z tag, v bytes]
  Init = 0x08,        ///< b
  Finalize = 0x09,    ///< b
  CommCreate = 0x0a,  ///< b, v parent, 1 has-new [, v new id, v n, n x v world rank]
  CommFree = 0x0b,    ///< b, v comm
  RequestFree = 0x0c, ///< b, v request (v2: its distance)
  Collective = 0x0d,  ///< v2: b, 1 kind (CollKind), v comm, z root (-1 if none), v bytes
                      ///< this rank contributes; the lowered messages follow
  Call = 0x0e,        ///< v2: b: an MPI call that wrote no other record
  Repeat = 0x10,      ///< v2: v count, v length: the `length` bytes right before this record
                      ///< (one iteration) occur `count` more times here
  End = 0x7f,         ///< v number of records before this one (all tags)
};

/// Which completion routine a Wait record comes from. A completion is v (request << 1 |
/// is-receive), and for a receive: z matched source (world rank), z matched tag, v bytes.
enum class WaitOp : uint8_t {
  Wait = 0,
  Waitall = 1,
  Waitany = 2,
  Waitsome = 3,
  Test = 4,
  Testall = 5,
  Testany = 6,
  Testsome = 7,
};
inline constexpr uint8_t LastWaitOp = 7;

/// A Collective record's kind byte.
enum class CollKind : uint8_t {
  Barrier = 0,
  Bcast,
  Reduce,
  Allreduce,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  ReduceScatter,
  ReduceScatterBlock,
  Scan,
  Exscan,
  // Neighbourhood collectives on a Cartesian communicator (MPI-3): every rank exchanges with
  // its 2 x ndims neighbours only.
  NeighborAllgather,
  NeighborAllgatherv,
  NeighborAlltoall,
  NeighborAlltoallv,
  // A datatype per peer (MPI_Alltoallw) or per neighbour (MPI_Neighbor_alltoallw).
  Alltoallw,
  NeighborAlltoallw,
};
inline constexpr uint8_t LastCollKind = static_cast<uint8_t>(CollKind::NeighborAlltoallw);
/// Each kind's name, as reports and the collective decision table print it.
inline constexpr const char *CollKindNames[LastCollKind + 1] = {"barrier",
                                                                "bcast",
                                                                "reduce",
                                                                "allreduce",
                                                                "gather",
                                                                "gatherv",
                                                                "scatter",
                                                                "scatterv",
                                                                "allgather",
                                                                "allgatherv",
                                                                "alltoall",
                                                                "alltoallv",
                                                                "reduce_scatter",
                                                                "reduce_scatter_block",
                                                                "scan",
                                                                "exscan",
                                                                "neighbor_allgather",
                                                                "neighbor_allgatherv",
                                                                "neighbor_alltoall",
                                                                "neighbor_alltoallv",
                                                                "alltoallw",
                                                                "neighbor_alltoallw"};
/// The collectives over the whole communicator (the scaling library lowers these at any size).
inline constexpr uint8_t LastGlobalCollKind = static_cast<uint8_t>(CollKind::Exscan);

/// Probe flags: bit 0 = blocking (MPI_Probe), bit 1 = a message was found (then the matched
/// source, tag and byte count follow).
inline constexpr uint8_t ProbeBlocking = 1;
inline constexpr uint8_t ProbeFound = 2;

/// A Send record's mode byte and a Send or Recv record's context byte.
using mpiete::Context;
using mpiete::SendMode;

//===-- Coding ------------------------------------------------------------------------------===//

inline constexpr uint64_t zigzag(int64_t V) {
  return (static_cast<uint64_t>(V) << 1) ^ static_cast<uint64_t>(V >> 63);
}
inline constexpr int64_t unzigzag(uint64_t V) {
  return static_cast<int64_t>(V >> 1) ^ -static_cast<int64_t>(V & 1);
}

/// Writes V at P (room for MaxVarint bytes); returns the bytes written.
inline size_t putVarint(unsigned char *P, uint64_t V) {
  size_t N = 0;
  while (V >= 0x80) {
    P[N++] = static_cast<unsigned char>(V | 0x80);
    V >>= 7;
  }
  P[N++] = static_cast<unsigned char>(V);
  return N;
}

/// Result of reading one varint.
enum class VarintStatus { Ok, Truncated, Overlong };

/// Reads a varint from [P, End): on Ok, *Out is the value and P moves past it.
inline VarintStatus getVarint(const unsigned char *&P, const unsigned char *End, uint64_t *Out) {
  uint64_t V = 0;
  for (unsigned Shift = 0; Shift < 70; Shift += 7) {
    if (P == End)
      return VarintStatus::Truncated;
    const unsigned char B = *P++;
    if (Shift == 63 && B > 1)
      return VarintStatus::Overlong;
    V |= static_cast<uint64_t>(B & 0x7f) << Shift;
    if ((B & 0x80) == 0) {
      *Out = V;
      return VarintStatus::Ok;
    }
  }
  return VarintStatus::Overlong;
}

} // namespace mpiete::trace

#endif // MPIETE_TRACEFORMAT_H
