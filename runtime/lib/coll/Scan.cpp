// MPI_Scan and MPI_Exscan lowered: coll/basic's linear chain.
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

/// coll/basic's linear chain: rank r receives the prefix of ranks < r from r - 1.
int scanImpl(const Ctx &K, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype T,
             MPI_Op Op) {
  if (Count == 0)
    return MPI_SUCCESS;
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
