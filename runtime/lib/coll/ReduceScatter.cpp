// MPI_Reduce_scatter and MPI_Reduce_scatter_block lowered: recursive halving, ring, or reduce +
// scatter(v); MPICH's pairwise and non-commutative algorithms are in ReduceScatterMpich.cpp.
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

/// Recursive halving over the blocks Counts/Displs of a Total-element vector In (commutative
/// operations): fold to a power of two, halve, hand results back. Out gets the rank's block.
int reduceScatterHalving(const Ctx &K, const void *In, void *Out, const int *Counts,
                         const int *Displs, int Total, MPI_Datatype T, MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  Temp ResMem, RecvMem;
  char *Res = ResMem.alloc(Total, T);
  char *Tmp = RecvMem.alloc(Total, T);
  MPIETE_TRY(copy(In, Total, T, Res, Total, T));
  const int Pof2 = pow2Floor(K.Size);
  const int Rem = K.Size - Pof2;
  int NewRank;
  if (K.Rank < 2 * Rem) {
    if (K.Rank % 2 == 0) {
      MPIETE_TRY(K.send(Res, Total, T, K.Rank + 1));
      NewRank = -1;
    } else {
      MPIETE_TRY(K.recv(Tmp, Total, T, K.Rank - 1));
      MPIETE_TRY(reduceLocal(Tmp, Res, Total, T, Op));
      NewRank = K.Rank / 2;
    }
  } else {
    NewRank = K.Rank - Rem;
  }
  if (NewRank >= 0) {
    int *TCounts = static_cast<int *>(std::malloc(sizeof(int) * 2 * Pof2));
    int *TDispls = TCounts + Pof2;
    for (int I = 0; I < Pof2; ++I) {
      if (I < Rem) {
        TCounts[I] = Counts[2 * I] + Counts[2 * I + 1];
        TDispls[I] = Displs[2 * I];
      } else {
        TCounts[I] = Counts[I + Rem];
        TDispls[I] = Displs[I + Rem];
      }
    }
    int SendIndex = 0, RecvIndex = 0, LastIndex = Pof2, Rc = MPI_SUCCESS;
    for (int Mask = Pof2 >> 1; Mask > 0 && Rc == MPI_SUCCESS; Mask >>= 1) {
      const int NewPeer = NewRank ^ Mask;
      const int Peer = NewPeer < Rem ? NewPeer * 2 + 1 : NewPeer + Rem;
      int SendCount = 0, RecvCount = 0;
      if (NewRank < NewPeer) {
        SendIndex = RecvIndex + Mask;
        for (int I = SendIndex; I < LastIndex; ++I)
          SendCount += TCounts[I];
        for (int I = RecvIndex; I < SendIndex; ++I)
          RecvCount += TCounts[I];
      } else {
        RecvIndex = SendIndex + Mask;
        for (int I = SendIndex; I < RecvIndex; ++I)
          SendCount += TCounts[I];
        for (int I = RecvIndex; I < LastIndex; ++I)
          RecvCount += TCounts[I];
      }
      MPI_Request Reqs[2];
      int N = 0;
      if (RecvCount > 0)
        Rc = K.irecv(at(Tmp, TDispls[RecvIndex], E), RecvCount, T, Peer, &Reqs[N++]);
      if (Rc == MPI_SUCCESS && SendCount > 0)
        Rc = K.isend(at(Res, TDispls[SendIndex], E), SendCount, T, Peer, &Reqs[N++]);
      if (Rc == MPI_SUCCESS && N > 0)
        Rc = K.waitall(N, Reqs);
      if (Rc == MPI_SUCCESS && RecvCount > 0) {
        // Commutative only: which side's data comes first does not matter.
        Rc = reduceLocal(at(Tmp, TDispls[RecvIndex], E), at(Res, TDispls[RecvIndex], E), RecvCount,
                         T, Op);
      }
      SendIndex = RecvIndex;
      LastIndex = RecvIndex + Mask;
    }
    std::free(TCounts);
    MPIETE_TRY(Rc);
    MPIETE_TRY(copy(at(Res, Displs[K.Rank], E), Counts[K.Rank], T, Out, Counts[K.Rank], T));
  }
  if (K.Rank < 2 * Rem) {
    if (K.Rank % 2 != 0) {
      if (Counts[K.Rank - 1] > 0)
        return K.send(at(Res, Displs[K.Rank - 1], E), Counts[K.Rank - 1], T, K.Rank - 1);
    } else if (Counts[K.Rank] > 0) {
      return K.recv(Out, Counts[K.Rank], T, K.Rank + 1);
    }
  }
  return MPI_SUCCESS;
}

/// Ring: at step k send the partial sum of block rank-k to the right, receive block rank-k-1.
int reduceScatterRing(const Ctx &K, const void *In, void *Out, const int *Counts, const int *Displs,
                      int Total, MPI_Datatype T, MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  int MaxCount = 0;
  for (int I = 0; I < K.Size; ++I)
    MaxCount = Counts[I] > MaxCount ? Counts[I] : MaxCount;
  Temp AccMem, InMem;
  char *Acc = AccMem.alloc(Total, T);
  char *Tmp = InMem.alloc(MaxCount, T);
  MPIETE_TRY(copy(In, Total, T, Acc, Total, T));
  const int To = (K.Rank + 1) % K.Size, From = (K.Rank + K.Size - 1) % K.Size;
  for (int Step = 1; Step < K.Size; ++Step) {
    const int SendBlock = (K.Rank - Step + K.Size) % K.Size;
    const int RecvBlock = (K.Rank - Step - 1 + K.Size) % K.Size;
    MPIETE_TRY(K.sendrecv(at(Acc, Displs[SendBlock], E), Counts[SendBlock], T, To, Tmp,
                          Counts[RecvBlock], T, From));
    MPIETE_TRY(reduceLocal(Tmp, at(Acc, Displs[RecvBlock], E), Counts[RecvBlock], T, Op));
  }
  return copy(at(Acc, Displs[K.Rank], E), Counts[K.Rank], T, Out, Counts[K.Rank], T);
}

/// Reduce to rank 0 (its own decision), then scatter(v) from rank 0 (linear, as coll/basic).
int reduceScatterNonoverlapping(const Ctx &K, const void *In, void *Out, const int *Counts,
                                const int *Displs, int Total, MPI_Datatype T, MPI_Op Op) {
  Temp ResMem;
  char *Res = K.Rank == 0 ? ResMem.alloc(Total, T) : nullptr;
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Total);
  MPIETE_TRY(reduceWith(K, decide(Coll::Reduce, K.Size, Bytes, commutative(Op)), In, Res, Total, T,
                        Op, 0));
  return scattervImpl(K, Res, Counts, Displs, T, Out, Counts[K.Rank], T, 0);
}

int reduceScatterImpl(const Ctx &K, Coll C, const void *SendBuf, void *RecvBuf, const int *Counts,
                      MPI_Datatype T, MPI_Op Op, uint64_t DecisionBytes) {
  int *Displs = static_cast<int *>(std::malloc(sizeof(int) * K.Size));
  int Total = 0;
  for (int I = 0; I < K.Size; ++I) {
    Displs[I] = Total;
    Total += Counts[I];
  }
  int Rc = MPI_SUCCESS;
  if (Total == 0) {
    std::free(Displs);
    return MPI_SUCCESS;
  }
  // In place, the whole input vector is in the receive buffer; copy it out first.
  Temp InMem;
  const void *In = SendBuf;
  if (SendBuf == MPI_IN_PLACE) {
    char *Copy = InMem.alloc(Total, T);
    Rc = copy(RecvBuf, Total, T, Copy, Total, T);
    In = Copy;
  }
  if (Rc == MPI_SUCCESS) {
    if (K.Size == 1) {
      Rc = copy(In, Total, T, RecvBuf, Total, T);
    } else {
      switch (decide(C, K.Size, DecisionBytes, commutative(Op))) {
      case Algo::Ring:
        Rc = reduceScatterRing(K, In, RecvBuf, Counts, Displs, Total, T, Op);
        break;
      case Algo::Pairwise: // MPICH's
        Rc = reduceScatterPairwise(K, In, RecvBuf, Counts, Displs, T, Op);
        break;
      case Algo::Noncommutative: // MPICH's
        Rc = reduceScatterNoncommutative(K, In, RecvBuf, Counts, Displs, Total, T, Op);
        break;
      case Algo::Nonoverlapping:
        Rc = reduceScatterNonoverlapping(K, In, RecvBuf, Counts, Displs, Total, T, Op);
        break;
      case Algo::Linear: { // Reduce_scatter_block: reduce + scatter, each by its decision
        Temp ResMem;
        char *Res = K.Rank == 0 ? ResMem.alloc(Total, T) : nullptr;
        const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Total);
        Rc = reduceWith(K, decide(Coll::Reduce, K.Size, Bytes, commutative(Op)), In, Res, Total, T,
                        Op, 0);
        if (Rc == MPI_SUCCESS)
          Rc = scatterImpl(K, Res, Counts[0], T, RecvBuf, Counts[0], T, 0);
        break;
      }
      default: // RecursiveHalving, RecursiveDoubling, Butterfly
        Rc = reduceScatterHalving(K, In, RecvBuf, Counts, Displs, Total, T, Op);
        break;
      }
    }
  }
  std::free(Displs);
  return Rc;
}

} // namespace

//===-- Entry points ------------------------------------------------------------------------===//

int reduceScatter(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, const int RecvCounts[],
                  MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  const Ctx K(Site, Comm, Coll::ReduceScatter);
  uint64_t Total = 0;
  for (int I = 0; I < K.Size; ++I)
    Total += static_cast<uint64_t>(RecvCounts[I]);
  return reduceScatterImpl(K, Coll::ReduceScatter, SendBuf, RecvBuf, RecvCounts, Type, Op,
                           Total * static_cast<uint64_t>(sizeOf(Type)));
}

int reduceScatterBlock(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int RecvCount,
                       MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  const Ctx K(Site, Comm, Coll::ReduceScatterBlock);
  int *Counts = static_cast<int *>(std::malloc(sizeof(int) * K.Size));
  for (int I = 0; I < K.Size; ++I)
    Counts[I] = RecvCount;
  const int Rc =
      reduceScatterImpl(K, Coll::ReduceScatterBlock, SendBuf, RecvBuf, Counts, Type, Op,
                        reduceScatterBlockBytes(K.Size, static_cast<uint64_t>(sizeOf(Type)) *
                                                            static_cast<uint64_t>(RecvCount)));
  std::free(Counts);
  return Rc;
}

} // namespace mpiete::coll
