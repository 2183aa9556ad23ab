// MPI_Allgather(v) lowered: ring, Bruck, recursive doubling, neighbour exchange, two-process,
// or gather + bcast, over a layout of per-rank blocks.
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

/// The receive buffer of an allgather(v) as per-rank blocks; a message carrying several
/// blocks uses an indexed datatype over them.
struct BlockLayout {
  char *Buf;
  MPI_Datatype T;
  MPI_Aint E;
  int Size;
  const int *Counts = nullptr; // null: every block has Uniform elements at rank * Uniform
  const int *Displs = nullptr;
  int Uniform = 0;

  int count(int R) const { return Counts ? Counts[R] : Uniform; }
  MPI_Aint displ(int R) const { return Displs ? Displs[R] : static_cast<MPI_Aint>(R) * Uniform; }
  char *ptr(int R) const { return at(Buf, displ(R), E); }

  /// The N blocks of ranks (First + J) % Size as one (buffer, count, type): a plain run when
  /// they are adjacent in memory, else an indexed type (Owned keeps it).
  int range(int First, int N, void **P, int *Count, MPI_Datatype *Type, OwnedType &Owned) const {
    bool Adjacent = true;
    int Total = count(First % Size);
    for (int J = 1; J < N; ++J) {
      const int Prev = (First + J - 1) % Size, R = (First + J) % Size;
      Adjacent = Adjacent && displ(R) == displ(Prev) + count(Prev);
      Total += count(R);
    }
    if (Adjacent) {
      *P = ptr(First % Size);
      *Count = Total;
      *Type = T;
      return MPI_SUCCESS;
    }
    int Lens[64], Disps[64];
    int *L = N <= 64 ? Lens : static_cast<int *>(std::malloc(sizeof(int) * N));
    int *D = N <= 64 ? Disps : static_cast<int *>(std::malloc(sizeof(int) * N));
    for (int J = 0; J < N; ++J) {
      const int R = (First + J) % Size;
      L[J] = count(R);
      D[J] = static_cast<int>(displ(R));
    }
    int Rc = PMPI_Type_indexed(N, L, D, T, &Owned.T);
    if (Rc == MPI_SUCCESS)
      Rc = PMPI_Type_commit(&Owned.T);
    if (L != Lens) {
      std::free(L);
      std::free(D);
    }
    *P = Buf;
    *Count = 1;
    *Type = Owned.T;
    return Rc;
  }
};

/// Exchanges block ranges with two peers at once: send N blocks from SFirst to Dest, receive
/// M blocks at RFirst from Src.
int exchangeBlocks(const Ctx &K, const BlockLayout &L, int SFirst, int SN, int Dest, int RFirst,
                   int RN, int Src) {
  OwnedType SOwned, ROwned;
  void *SP, *RP;
  int SC, RC;
  MPI_Datatype STy, RTy;
  MPIETE_TRY(L.range(SFirst, SN, &SP, &SC, &STy, SOwned));
  MPIETE_TRY(L.range(RFirst, RN, &RP, &RC, &RTy, ROwned));
  return K.sendrecv(SP, SC, STy, Dest, RP, RC, RTy, Src);
}

int allgatherRing(const Ctx &K, const BlockLayout &L) {
  const int To = (K.Rank + 1) % K.Size, From = (K.Rank - 1 + K.Size) % K.Size;
  for (int I = 0; I < K.Size - 1; ++I) {
    const int SendBlock = (K.Rank - I + K.Size) % K.Size;
    const int RecvBlock = (K.Rank - I - 1 + K.Size) % K.Size;
    MPIETE_TRY(exchangeBlocks(K, L, SendBlock, 1, To, RecvBlock, 1, From));
  }
  return MPI_SUCCESS;
}

/// Bruck, in place: at distance d, send the blocks of ranks rank .. rank+n-1 to rank-d and
/// receive those of rank+d .. rank+d+n-1 from rank+d (n = min(d, size - d)).
int allgatherBruck(const Ctx &K, const BlockLayout &L) {
  for (int D = 1; D < K.Size; D <<= 1) {
    const int N = D <= K.Size / 2 ? D : K.Size - D;
    const int To = (K.Rank - D + K.Size) % K.Size, From = (K.Rank + D) % K.Size;
    MPIETE_TRY(exchangeBlocks(K, L, K.Rank, N, To, From, N, From));
  }
  return MPI_SUCCESS;
}

int allgatherRecursiveDoubling(const Ctx &K, const BlockLayout &L) {
  if (!isPow2(K.Size))
    return allgatherBruck(K, L);
  // At distance d each side holds the d blocks of its aligned group and swaps them.
  for (int D = 1; D < K.Size; D <<= 1) {
    const int Remote = K.Rank ^ D;
    const int Mine = K.Rank & ~(D - 1);
    MPIETE_TRY(exchangeBlocks(K, L, Mine, D, Remote, Mine ^ D, D, Remote));
  }
  return MPI_SUCCESS;
}

/// Neighbour exchange (even sizes; ring otherwise): one block with the first neighbour, then
/// pairs of blocks alternating between the two neighbours.
int allgatherNeighbor(const Ctx &K, const BlockLayout &L) {
  if (K.Size % 2 != 0)
    return allgatherRing(K, L);
  const bool Even = K.Rank % 2 == 0;
  int Neighbor[2], RecvFrom[2], Offset[2];
  if (Even) {
    Neighbor[0] = (K.Rank + 1) % K.Size;
    Neighbor[1] = (K.Rank - 1 + K.Size) % K.Size;
    RecvFrom[0] = RecvFrom[1] = K.Rank;
    Offset[0] = 2;
    Offset[1] = -2;
  } else {
    Neighbor[0] = (K.Rank - 1 + K.Size) % K.Size;
    Neighbor[1] = (K.Rank + 1) % K.Size;
    RecvFrom[0] = RecvFrom[1] = Neighbor[0];
    Offset[0] = -2;
    Offset[1] = 2;
  }
  MPIETE_TRY(exchangeBlocks(K, L, K.Rank, 1, Neighbor[0], Neighbor[0], 1, Neighbor[0]));
  int SendFrom = Even ? K.Rank : RecvFrom[0];
  for (int I = 1; I < K.Size / 2; ++I) {
    const int P = I % 2;
    RecvFrom[P] = (RecvFrom[P] + Offset[P] + K.Size) % K.Size;
    MPIETE_TRY(exchangeBlocks(K, L, SendFrom, 2, Neighbor[P], RecvFrom[P], 2, Neighbor[P]));
    SendFrom = RecvFrom[P];
  }
  return MPI_SUCCESS;
}

int allgatherTwoProc(const Ctx &K, const BlockLayout &L) {
  const int Other = K.Rank ^ 1;
  return exchangeBlocks(K, L, K.Rank, 1, Other, Other, 1, Other);
}

/// MPICH's allgatherv ring: the blocks travel as in the ring, in pieces of at most the
/// smallest block, and at least 32 KiB (MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE); a step with
/// nothing to send (or receive) only receives (or sends), empty pieces are not sent.
int allgatherPipelinedRing(const Ctx &K, const BlockLayout &L) {
  long ToRecv = 0, ToSend = 0;
  int Min = L.count(0);
  for (int R = 0; R < K.Size; ++R) {
    ToRecv += L.count(R);
    Min = L.count(R) < Min ? L.count(R) : Min;
  }
  const int Left = (K.Rank - 1 + K.Size) % K.Size, Right = (K.Rank + 1) % K.Size;
  ToSend = ToRecv - L.count(Right);
  ToRecv -= L.count(K.Rank);
  if (Min * L.E < 32768)
    Min = static_cast<int>(32768 / L.E);
  if (Min == 0)
    Min = 1;
  int SIdx = K.Rank, RIdx = Left, SOff = 0, ROff = 0;
  while (ToSend > 0 || ToRecv > 0) {
    int SendNow = L.count(SIdx) - SOff < Min ? L.count(SIdx) - SOff : Min;
    int RecvNow = L.count(RIdx) - ROff < Min ? L.count(RIdx) - ROff : Min;
    SendNow = ToSend > 0 ? SendNow : 0;
    RecvNow = ToRecv > 0 ? RecvNow : 0;
    char *SB = at(L.Buf, L.displ(SIdx) + SOff, L.E), *RB = at(L.Buf, L.displ(RIdx) + ROff, L.E);
    if (SendNow > 0 && RecvNow > 0)
      MPIETE_TRY(K.sendrecv(SB, SendNow, L.T, Right, RB, RecvNow, L.T, Left));
    else if (SendNow > 0)
      MPIETE_TRY(K.send(SB, SendNow, L.T, Right));
    else if (RecvNow > 0)
      MPIETE_TRY(K.recv(RB, RecvNow, L.T, Left));
    ToSend -= SendNow;
    ToRecv -= RecvNow;
    SOff += SendNow;
    ROff += RecvNow;
    if (SOff == L.count(SIdx)) {
      SOff = 0;
      SIdx = (SIdx - 1 + K.Size) % K.Size;
    }
    if (ROff == L.count(RIdx)) {
      ROff = 0;
      RIdx = (RIdx - 1 + K.Size) % K.Size;
    }
  }
  return MPI_SUCCESS;
}

int allgatherBlocks(const Ctx &K, Algo A, const BlockLayout &L) {
  switch (A) {
  case Algo::PipelinedRing:
    return allgatherPipelinedRing(K, L);
  case Algo::TwoProc:
    return K.Size == 2 ? allgatherTwoProc(K, L) : allgatherRing(K, L);
  case Algo::RecursiveDoubling:
    return allgatherRecursiveDoubling(K, L);
  case Algo::Bruck:
    return allgatherBruck(K, L);
  case Algo::Neighbor:
    return allgatherNeighbor(K, L);
  default:
    return allgatherRing(K, L);
  }
}

int allgatherImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
                  int RCount, MPI_Datatype RT) {
  if (RCount == 0)
    return MPI_SUCCESS;
  const MPI_Aint RE = extentOf(RT);
  if (SendBuf != MPI_IN_PLACE)
    MPIETE_TRY(copy(SendBuf, SCount, ST, at(RecvBuf, static_cast<MPI_Aint>(K.Rank) * RCount, RE),
                    RCount, RT));
  if (K.Size == 1)
    return MPI_SUCCESS;
  const uint64_t Total = static_cast<uint64_t>(sizeOf(RT)) * RCount * K.Size;
  const Algo A = decide(Coll::Allgather, K.Size, allgatherBytes(K.Size, Total), true);
  if (A == Algo::GatherBcast || A == Algo::Linear) {
    // Gather to rank 0 (its own decision), then bcast of the whole vector.
    const void *Mine =
        K.Rank == 0 ? MPI_IN_PLACE : at(RecvBuf, static_cast<MPI_Aint>(K.Rank) * RCount, RE);
    MPIETE_TRY(gatherImpl(K, Mine, RCount, RT, RecvBuf, RCount, RT, 0));
    return bcastImpl(K, RecvBuf, RCount * K.Size, RT, 0);
  }
  const BlockLayout L{static_cast<char *>(RecvBuf), RT, RE, K.Size, nullptr, nullptr, RCount};
  return allgatherBlocks(K, A, L);
}

int allgathervImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
                   const int *RCounts, const int *Displs, MPI_Datatype RT) {
  const MPI_Aint RE = extentOf(RT);
  char *Mine = at(RecvBuf, Displs[K.Rank], RE);
  if (SendBuf != MPI_IN_PLACE)
    MPIETE_TRY(copy(SendBuf, SCount, ST, Mine, RCounts[K.Rank], RT));
  if (K.Size == 1)
    return MPI_SUCCESS;
  uint64_t Total = 0;
  for (int I = 0; I < K.Size; ++I)
    Total += static_cast<uint64_t>(RCounts[I]);
  Total *= static_cast<uint64_t>(sizeOf(RT));
  const Algo A = decide(Coll::Allgatherv, K.Size, allgatherBytes(K.Size, Total), true);
  if (A == Algo::GatherBcast) {
    // Gatherv to rank 0, then a bcast of the whole layout as one indexed datatype.
    MPIETE_TRY(gathervImpl(K, K.Rank == 0 ? MPI_IN_PLACE : Mine, RCounts[K.Rank], RT, RecvBuf,
                           RCounts, Displs, RT, 0));
    OwnedType All;
    MPIETE_TRY(PMPI_Type_indexed(K.Size, RCounts, Displs, RT, &All.T));
    MPIETE_TRY(PMPI_Type_commit(&All.T));
    return bcastImpl(K, RecvBuf, 1, All.T, 0);
  }
  const BlockLayout L{static_cast<char *>(RecvBuf), RT, RE, K.Size, RCounts, Displs, 0};
  return allgatherBlocks(K, A, L);
}

} // namespace

//===-- Entry points ------------------------------------------------------------------------===//

int allgather(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
              void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm) {
  return allgatherImpl(Ctx(Site, Comm, Coll::Allgather), SendBuf, SendCount, SendType, RecvBuf,
                       RecvCount, RecvType);
}

int allgatherv(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
               void *RecvBuf, const int RecvCounts[], const int Displs[], MPI_Datatype RecvType,
               MPI_Comm Comm) {
  return allgathervImpl(Ctx(Site, Comm, Coll::Allgatherv), SendBuf, SendCount, SendType, RecvBuf,
                        RecvCounts, Displs, RecvType);
}

} // namespace mpiete::coll
