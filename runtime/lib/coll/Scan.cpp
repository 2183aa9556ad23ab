// MPI_Scan and MPI_Exscan lowered: coll/basic's linear chain, or MPICH's recursive doubling.
#include "CollBase.h"
#include "Collectives.h"

#include <utility>

namespace mpiete::coll {
namespace {

/// MPICH's recursive doubling: at step k every rank exchanges its partial reduction of a block
/// of 2^k ranks with rank ^ 2^k (when it exists); what comes from below also enters the result.
/// Exscan starts its result with the first block from below (rank 0 has none).
int scanRecursiveDoubling(const Ctx &K, const void *In, void *RecvBuf, int Count, MPI_Datatype T,
                          MPI_Op Op, bool Exclusive) {
  const bool Commute = commutative(Op);
  Temp PartialMem, TmpMem;
  char *Partial = PartialMem.alloc(Count, T);
  char *Tmp = TmpMem.alloc(Count, T);
  MPIETE_TRY(copy(In, Count, T, Partial, Count, T));
  if (!Exclusive && In != RecvBuf)
    MPIETE_TRY(copy(In, Count, T, RecvBuf, Count, T));
  bool HaveResult = !Exclusive;
  for (int Mask = 1; Mask < K.Size; Mask <<= 1) {
    const int Dst = K.Rank ^ Mask;
    if (Dst >= K.Size)
      continue;
    MPIETE_TRY(K.sendrecv(Partial, Count, T, Dst, Tmp, Count, T, Dst));
    if (K.Rank > Dst) {
      MPIETE_TRY(reduceLocal(Tmp, Partial, Count, T, Op));
      if (HaveResult)
        MPIETE_TRY(reduceLocal(Tmp, RecvBuf, Count, T, Op));
      else
        MPIETE_TRY(copy(Tmp, Count, T, RecvBuf, Count, T));
      HaveResult = true;
    } else if (Commute) {
      MPIETE_TRY(reduceLocal(Tmp, Partial, Count, T, Op));
    } else {
      MPIETE_TRY(reduceLocal(Partial, Tmp, Count, T, Op)); // Tmp = Partial op Tmp
      std::swap(Partial, Tmp);
    }
  }
  return MPI_SUCCESS;
}

/// coll/basic's linear chain: rank r receives the prefix of ranks < r from r - 1.
int scanImpl(const Ctx &K, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype T,
             MPI_Op Op) {
  if (Count == 0)
    return MPI_SUCCESS;
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Count);
  if (decide(Coll::Scan, K.Size, Bytes, commutative(Op)) == Algo::RecursiveDoubling)
    return scanRecursiveDoubling(K, SendBuf == MPI_IN_PLACE ? RecvBuf : SendBuf, RecvBuf, Count, T,
                                 Op, false);
  if (SendBuf != MPI_IN_PLACE)
    MPIETE_TRY(copy(SendBuf, Count, T, RecvBuf, Count, T));
  if (K.Rank > 0) {
    Temp TmpMem;
    char *Tmp = TmpMem.alloc(Count, T);
    MPIETE_TRY(K.recv(Tmp, Count, T, K.Rank - 1));
    MPIETE_TRY(reduceLocal(Tmp, RecvBuf, Count, T, Op));
  }
  if (K.Rank < K.Size - 1)
    return K.send(RecvBuf, Count, T, K.Rank + 1);
  return MPI_SUCCESS;
}

int exscanImpl(const Ctx &K, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype T,
               MPI_Op Op) {
  if (Count == 0 || K.Size == 1)
    return MPI_SUCCESS;
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Count);
  if (decide(Coll::Exscan, K.Size, Bytes, commutative(Op)) == Algo::RecursiveDoubling)
    return scanRecursiveDoubling(K, SendBuf == MPI_IN_PLACE ? RecvBuf : SendBuf, RecvBuf, Count, T,
                                 Op, true);
  Temp InMem, NextMem;
  const void *In = SendBuf;
  if (SendBuf == MPI_IN_PLACE) {
    char *Copy = InMem.alloc(Count, T);
    MPIETE_TRY(copy(RecvBuf, Count, T, Copy, Count, T));
    In = Copy;
  }
  if (K.Rank == 0)
    return K.send(In, Count, T, 1);
  MPIETE_TRY(K.recv(RecvBuf, Count, T, K.Rank - 1));
  if (K.Rank == K.Size - 1)
    return MPI_SUCCESS;
  char *Next = NextMem.alloc(Count, T);
  MPIETE_TRY(copy(In, Count, T, Next, Count, T));
  MPIETE_TRY(reduceLocal(RecvBuf, Next, Count, T, Op)); // prefix op mine
  return K.send(Next, Count, T, K.Rank + 1);
}

} // namespace

//===-- Entry points ------------------------------------------------------------------------===//

int scan(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
         MPI_Op Op, MPI_Comm Comm) {
  return scanImpl(Ctx(Site, Comm, Coll::Scan), SendBuf, RecvBuf, Count, Type, Op);
}

int exscan(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
           MPI_Op Op, MPI_Comm Comm) {
  return exscanImpl(Ctx(Site, Comm, Coll::Exscan), SendBuf, RecvBuf, Count, Type, Op);
}

} // namespace mpiete::coll
