// MPI_Gather(v) and MPI_Scatter(v) lowered: linear (with Open MPI's synchronised variant) and
// the in-order binomial tree; the v variants as coll/basic's linear ones.
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {

int gatherImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
               int RCount, MPI_Datatype RT, int Root) {
  const bool IsRoot = K.Rank == Root;
  const bool InPlace = SendBuf == MPI_IN_PLACE;
  if ((IsRoot ? RCount : SCount) == 0)
    return MPI_SUCCESS;
  const MPI_Aint RE = IsRoot ? extentOf(RT) : 0;
  if (IsRoot && !InPlace)
    MPIETE_TRY(copy(SendBuf, SCount, ST, at(RecvBuf, static_cast<MPI_Aint>(Root) * RCount, RE),
                    RCount, RT));
  if (K.Size == 1)
    return MPI_SUCCESS;
  const uint64_t Bytes = IsRoot ? static_cast<uint64_t>(sizeOf(RT)) * RCount
                                : static_cast<uint64_t>(sizeOf(ST)) * SCount;
  const Algo A = decide(Coll::Gather, K.Size, Bytes, true);
  if (A == Algo::Linear || A == Algo::LinearSync) {
    const bool Sync = A == Algo::LinearSync;
    if (!IsRoot) {
      if (Sync)
        MPIETE_TRY(K.recvZero(Root));
      MPIETE_TRY(K.send(SendBuf, SCount, ST, Root));
      if (Sync) // Open MPI's second segment: empty when the first segment is the whole block
        MPIETE_TRY(K.send(SendBuf, 0, ST, Root));
      return MPI_SUCCESS;
    }
    for (int I = 0; I < K.Size; ++I) {
      if (I == Root)
        continue;
      char *Dst = at(RecvBuf, static_cast<MPI_Aint>(I) * RCount, RE);
      if (!Sync) {
        MPIETE_TRY(K.recv(Dst, RCount, RT, I));
        continue;
      }
      MPI_Request Reqs[2];
      MPIETE_TRY(K.irecv(Dst, RCount, RT, I, &Reqs[0]));
      MPIETE_TRY(K.sendZero(I));
      MPIETE_TRY(K.irecv(Dst, 0, RT, I, &Reqs[1]));
      MPIETE_TRY(K.waitall(2, Reqs));
    }
    return MPI_SUCCESS;
  }
  // Binomial (in-order tree): each node collects its subtree's blocks in virtual-rank order.
  const Tree T = inOrderBinomialTree(K.Rank, Root, K.Size);
  const int V = shift(K.Rank, Root, K.Size);
  const int Sub = inOrderSubtree(V, K.Size);
  if (!IsRoot && T.NumChildren == 0)
    return K.send(SendBuf, SCount, ST, T.Parent);
  // Blocks travel as the receiving root's type at the root, as the sender's type elsewhere.
  const MPI_Datatype BT = IsRoot ? RT : ST;
  const int BC = IsRoot ? RCount : SCount;
  const MPI_Aint BE = extentOf(BT);
  Temp BufMem;
  char *Blocks = (IsRoot && Root == 0) ? static_cast<char *>(RecvBuf)
                                       : BufMem.alloc(static_cast<MPI_Aint>(Sub) * BC, BT);
  if (!IsRoot)
    MPIETE_TRY(copy(SendBuf, SCount, ST, Blocks, BC, BT));
  else if (Root != 0)
    MPIETE_TRY(
        copy(at(RecvBuf, static_cast<MPI_Aint>(Root) * RCount, RE), RCount, RT, Blocks, BC, BT));
  for (int I = 0; I < T.NumChildren; ++I) {
    const int CV = shift(T.Children[I], Root, K.Size);
    MPIETE_TRY(K.recv(at(Blocks, static_cast<MPI_Aint>(CV - V) * BC, BE),
                      inOrderSubtree(CV, K.Size) * BC, BT, T.Children[I]));
  }
  if (!IsRoot)
    return K.send(Blocks, Sub * BC, BT, T.Parent);
  if (Root != 0) // rotate: virtual rank j is rank (j + root) % size
    for (int J = 1; J < K.Size; ++J)
      MPIETE_TRY(copy(at(Blocks, static_cast<MPI_Aint>(J) * BC, BE), BC, BT,
                      at(RecvBuf, static_cast<MPI_Aint>(unshift(J, Root, K.Size)) * RCount, RE),
                      RCount, RT));
  return MPI_SUCCESS;
}

int scatterImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
                int RCount, MPI_Datatype RT, int Root) {
  const bool IsRoot = K.Rank == Root;
  const bool InPlace = IsRoot && RecvBuf == MPI_IN_PLACE;
  if ((IsRoot ? SCount : RCount) == 0)
    return MPI_SUCCESS;
  const MPI_Aint SE = IsRoot ? extentOf(ST) : 0;
  if (IsRoot && !InPlace)
    MPIETE_TRY(copy(at(SendBuf, static_cast<MPI_Aint>(Root) * SCount, SE), SCount, ST, RecvBuf,
                    RCount, RT));
  if (K.Size == 1)
    return MPI_SUCCESS;
  const uint64_t Bytes = IsRoot ? static_cast<uint64_t>(sizeOf(ST)) * SCount
                                : static_cast<uint64_t>(sizeOf(RT)) * RCount;
  const Algo A = decide(Coll::Scatter, K.Size, Bytes, true);
  if (A != Algo::Binomial) {
    if (!IsRoot)
      return K.recv(RecvBuf, RCount, RT, Root);
    for (int I = 0; I < K.Size; ++I)
      if (I != Root)
        MPIETE_TRY(K.send(at(SendBuf, static_cast<MPI_Aint>(I) * SCount, SE), SCount, ST, I));
    return MPI_SUCCESS;
  }
  // Binomial (in-order tree): each node receives its subtree's blocks, keeps its own, and
  // passes on each child's range, largest first.
  const Tree T = inOrderBinomialTree(K.Rank, Root, K.Size);
  const int V = shift(K.Rank, Root, K.Size);
  const int Sub = inOrderSubtree(V, K.Size);
  if (!IsRoot && T.NumChildren == 0)
    return K.recv(RecvBuf, RCount, RT, T.Parent);
  const MPI_Datatype BT = IsRoot ? ST : RT;
  const int BC = IsRoot ? SCount : RCount;
  const MPI_Aint BE = extentOf(BT);
  Temp BufMem;
  char *Blocks = (IsRoot && Root == 0) ? static_cast<char *>(const_cast<void *>(SendBuf))
                                       : BufMem.alloc(static_cast<MPI_Aint>(Sub) * BC, BT);
  if (!IsRoot) {
    MPIETE_TRY(K.recv(Blocks, Sub * BC, BT, T.Parent));
    MPIETE_TRY(copy(Blocks, BC, BT, RecvBuf, RCount, RT));
  } else if (Root != 0) {
    for (int J = 1; J < K.Size; ++J)
      MPIETE_TRY(copy(at(SendBuf, static_cast<MPI_Aint>(unshift(J, Root, K.Size)) * SCount, SE),
                      SCount, ST, at(Blocks, static_cast<MPI_Aint>(J) * BC, BE), BC, BT));
  }
  for (int I = T.NumChildren - 1; I >= 0; --I) {
    const int CV = shift(T.Children[I], Root, K.Size);
    MPIETE_TRY(K.send(at(Blocks, static_cast<MPI_Aint>(CV - V) * BC, BE),
                      inOrderSubtree(CV, K.Size) * BC, BT, T.Children[I]));
  }
  return MPI_SUCCESS;
}

/// coll/basic's linear Gatherv: empty contributions are not sent.
int gathervImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
                const int *RCounts, const int *Displs, MPI_Datatype RT, int Root) {
  if (K.Rank != Root)
    return SCount > 0 ? K.send(SendBuf, SCount, ST, Root) : MPI_SUCCESS;
  const MPI_Aint RE = extentOf(RT);
  for (int I = 0; I < K.Size; ++I) {
    char *Dst = at(RecvBuf, Displs[I], RE);
    if (I == Root) {
      if (SendBuf != MPI_IN_PLACE)
        MPIETE_TRY(copy(SendBuf, SCount, ST, Dst, RCounts[I], RT));
    } else if (RCounts[I] > 0) {
      MPIETE_TRY(K.recv(Dst, RCounts[I], RT, I));
    }
  }
  return MPI_SUCCESS;
}

/// coll/basic's linear Scatterv: empty blocks are not sent.
int scattervImpl(const Ctx &K, const void *SendBuf, const int *SCounts, const int *Displs,
                 MPI_Datatype ST, void *RecvBuf, int RCount, MPI_Datatype RT, int Root) {
  if (K.Rank != Root)
    return RCount > 0 ? K.recv(RecvBuf, RCount, RT, Root) : MPI_SUCCESS;
  const MPI_Aint SE = extentOf(ST);
  for (int I = 0; I < K.Size; ++I) {
    const char *Src = at(SendBuf, Displs[I], SE);
    if (I == Root) {
      if (RecvBuf != MPI_IN_PLACE)
        MPIETE_TRY(copy(Src, SCounts[I], ST, RecvBuf, RCount, RT));
    } else if (SCounts[I] > 0) {
      MPIETE_TRY(K.send(Src, SCounts[I], ST, I));
    }
  }
  return MPI_SUCCESS;
}

//===-- Entry points ------------------------------------------------------------------------===//

int gather(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
           void *RecvBuf, int RecvCount, MPI_Datatype RecvType, int Root, MPI_Comm Comm) {
  return gatherImpl(Ctx(Site, Comm, Coll::Gather), SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                    RecvType, Root);
}

int gatherv(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
            void *RecvBuf, const int RecvCounts[], const int Displs[], MPI_Datatype RecvType,
            int Root, MPI_Comm Comm) {
  return gathervImpl(Ctx(Site, Comm, Coll::Gatherv), SendBuf, SendCount, SendType, RecvBuf,
                     RecvCounts, Displs, RecvType, Root);
}

int scatter(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
            void *RecvBuf, int RecvCount, MPI_Datatype RecvType, int Root, MPI_Comm Comm) {
  return scatterImpl(Ctx(Site, Comm, Coll::Scatter), SendBuf, SendCount, SendType, RecvBuf,
                     RecvCount, RecvType, Root);
}

int scatterv(mpiete_site_t Site, const void *SendBuf, const int SendCounts[], const int Displs[],
             MPI_Datatype SendType, void *RecvBuf, int RecvCount, MPI_Datatype RecvType, int Root,
             MPI_Comm Comm) {
  return scattervImpl(Ctx(Site, Comm, Coll::Scatterv), SendBuf, SendCounts, Displs, SendType,
                      RecvBuf, RecvCount, RecvType, Root);
}

} // namespace mpiete::coll
