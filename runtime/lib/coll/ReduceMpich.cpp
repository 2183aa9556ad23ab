// MPICH's Rabenseifner reduce and allreduce (MPIR_Reduce_intra_reduce_scatter_gather,
// MPIR_Allreduce_intra_reduce_scatter_allgather): their own fold of the ranks above the power
// of two and their own split of the vector, which Open MPI's Rabenseifner does differently,
// so the MPICH table gets the messages MPICH sends (per peer and byte).
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

/// MPICH's split of Count elements into Pof2 blocks: the first Count % Pof2 one longer.
struct Split {
  int Base, Extra;
  Split(int Count, int Pof2) : Base(Count / Pof2), Extra(Count % Pof2) {}
  int displ(int B) const { return B * Base + (B < Extra ? B : Extra); }
  /// Elements in blocks [First, Last).
  int count(int First, int Last) const { return displ(Last) - displ(First); }
};

/// One step of the recursive-halving reduce-scatter both algorithms share: the lower new rank
/// keeps the lower half of its current range. Buf accumulates, Tmp receives.
struct Halving {
  int SendIdx = 0, RecvIdx = 0, LastIdx;
  explicit Halving(int Pof2) : LastIdx(Pof2) {}
};

int reduceScatterHalving(const Ctx &K, const Split &S, int Pof2, int NewRank,
                         int (*RealRank)(int, int), int Rem, char *Buf, char *Tmp, MPI_Aint E,
                         MPI_Datatype T, MPI_Op Op, Halving &H) {
  for (int Mask = 1; Mask < Pof2;) {
    const int NewDst = NewRank ^ Mask, Dst = RealRank(NewDst, Rem);
    int SendCnt, RecvCnt;
    if (NewRank < NewDst) {
      H.SendIdx = H.RecvIdx + Pof2 / (Mask * 2);
      SendCnt = S.count(H.SendIdx, H.LastIdx);
      RecvCnt = S.count(H.RecvIdx, H.SendIdx);
    } else {
      H.RecvIdx = H.SendIdx + Pof2 / (Mask * 2);
      SendCnt = S.count(H.SendIdx, H.RecvIdx);
      RecvCnt = S.count(H.RecvIdx, H.LastIdx);
    }
    MPIETE_TRY(K.sendrecv(at(Buf, S.displ(H.SendIdx), E), SendCnt, T, Dst,
                          at(Tmp, S.displ(H.RecvIdx), E), RecvCnt, T, Dst));
    MPIETE_TRY(reduceLocal(at(Tmp, S.displ(H.RecvIdx), E), at(Buf, S.displ(H.RecvIdx), E), RecvCnt,
                           T, Op));
    H.SendIdx = H.RecvIdx;
    Mask <<= 1;
    if (Mask < Pof2)
      H.LastIdx = H.RecvIdx + Pof2 / Mask;
  }
  return MPI_SUCCESS;
}

/// Allreduce folds the even ranks below 2 * rem into their odd neighbours; reduce the odd ones
/// into their even neighbours (so that rank 0 keeps part of the work for root 0).
int allreduceRealRank(int NewRank, int Rem) {
  return NewRank < Rem ? NewRank * 2 + 1 : NewRank + Rem;
}
int reduceRealRank(int NewRank, int Rem) { return NewRank < Rem ? NewRank * 2 : NewRank + Rem; }

} // namespace

bool builtinOp(MPI_Op Op) {
  static const MPI_Op Builtin[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                   MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                   MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  for (MPI_Op B : Builtin)
    if (Op == B)
      return true;
  return false;
}

int allreduceRedscatAllgather(const Ctx &K, void *BufV, int Count, MPI_Datatype T, MPI_Op Op) {
  char *Buf = static_cast<char *>(BufV);
  const MPI_Aint E = extentOf(T);
  const int Pof2 = pow2Floor(K.Size), Rem = K.Size - Pof2;
  Temp TmpMem;
  char *Tmp = TmpMem.alloc(Count, T);
  int NewRank = K.Rank - Rem;
  if (K.Rank < 2 * Rem) {
    if (K.Rank % 2 == 0) {
      MPIETE_TRY(K.send(Buf, Count, T, K.Rank + 1));
      NewRank = -1;
    } else {
      MPIETE_TRY(K.recv(Tmp, Count, T, K.Rank - 1));
      MPIETE_TRY(reduceLocal(Tmp, Buf, Count, T, Op));
      NewRank = K.Rank / 2;
    }
  }
  if (NewRank >= 0) {
    const Split S(Count, Pof2);
    Halving H(Pof2);
    MPIETE_TRY(
        reduceScatterHalving(K, S, Pof2, NewRank, allreduceRealRank, Rem, Buf, Tmp, E, T, Op, H));
    // Allgather by recursive doubling, retracing the halving steps.
    for (int Mask = Pof2 >> 1; Mask > 0; Mask >>= 1) {
      const int NewDst = NewRank ^ Mask, Dst = allreduceRealRank(NewDst, Rem);
      int SendCnt, RecvCnt;
      if (NewRank < NewDst) {
        if (Mask != Pof2 / 2)
          H.LastIdx += Pof2 / (Mask * 2);
        H.RecvIdx = H.SendIdx + Pof2 / (Mask * 2);
        SendCnt = S.count(H.SendIdx, H.RecvIdx);
        RecvCnt = S.count(H.RecvIdx, H.LastIdx);
      } else {
        H.RecvIdx = H.SendIdx - Pof2 / (Mask * 2);
        SendCnt = S.count(H.SendIdx, H.LastIdx);
        RecvCnt = S.count(H.RecvIdx, H.SendIdx);
      }
      MPIETE_TRY(K.sendrecv(at(Buf, S.displ(H.SendIdx), E), SendCnt, T, Dst,
                            at(Buf, S.displ(H.RecvIdx), E), RecvCnt, T, Dst));
      if (NewRank > NewDst)
        H.SendIdx = H.RecvIdx;
    }
  }
  if (K.Rank < 2 * Rem) {
    if (K.Rank % 2 != 0)
      return K.send(Buf, Count, T, K.Rank - 1);
    return K.recv(Buf, Count, T, K.Rank + 1);
  }
  return MPI_SUCCESS;
}

int reduceRedscatGather(const Ctx &K, const void *In, void *RecvBuf, int Count, MPI_Datatype T,
                        MPI_Op Op, int Root) {
  const MPI_Aint E = extentOf(T);
  const int Pof2 = pow2Floor(K.Size), Rem = K.Size - Pof2;
  Temp TmpMem, BufMem;
  char *Tmp = TmpMem.alloc(Count, T);
  char *Buf = K.Rank == Root ? static_cast<char *>(RecvBuf) : BufMem.alloc(Count, T);
  if (In != Buf)
    MPIETE_TRY(copy(In, Count, T, Buf, Count, T));
  int NewRank = K.Rank - Rem;
  if (K.Rank < 2 * Rem) {
    if (K.Rank % 2 != 0) {
      MPIETE_TRY(K.send(Buf, Count, T, K.Rank - 1));
      NewRank = -1;
    } else {
      MPIETE_TRY(K.recv(Tmp, Count, T, K.Rank + 1));
      MPIETE_TRY(reduceLocal(Tmp, Buf, Count, T, Op));
      NewRank = K.Rank / 2;
    }
  }
  const Split S(Count, Pof2);
  Halving H(Pof2);
  if (NewRank >= 0)
    MPIETE_TRY(
        reduceScatterHalving(K, S, Pof2, NewRank, reduceRealRank, Rem, Buf, Tmp, E, T, Op, H));
  // A root among the folded (odd) ranks takes new rank 0's place: rank 0 hands it block 0.
  const bool RootFolded = Root < 2 * Rem && Root % 2 != 0;
  int NewRoot = Root < 2 * Rem ? Root / 2 : Root - Rem;
  if (RootFolded) {
    NewRoot = 0;
    if (K.Rank == Root) {
      MPIETE_TRY(K.recv(Buf, S.count(0, 1), T, 0));
      NewRank = 0;
      H.SendIdx = 0;
      H.LastIdx = 2;
    } else if (NewRank == 0) {
      MPIETE_TRY(K.send(Buf, S.count(0, 1), T, Root));
      NewRank = -1;
    }
  }
  if (NewRank < 0)
    return MPI_SUCCESS;
  // Binomial gather to the new root, retracing the halving steps: a rank whose partner's
  // subtree holds the root sends everything it has and is done.
  int J = log2Floor(Pof2) - 1;
  for (int Mask = Pof2 >> 1; Mask > 0; Mask >>= 1, --J) {
    const int NewDst = NewRank ^ Mask;
    const int Dst = NewDst == 0 && RootFolded ? Root : reduceRealRank(NewDst, Rem);
    int SendCnt, RecvCnt;
    if (NewRank < NewDst) {
      if (Mask != Pof2 / 2)
        H.LastIdx += Pof2 / (Mask * 2);
      H.RecvIdx = H.SendIdx + Pof2 / (Mask * 2);
      SendCnt = S.count(H.SendIdx, H.RecvIdx);
      RecvCnt = S.count(H.RecvIdx, H.LastIdx);
    } else {
      H.RecvIdx = H.SendIdx - Pof2 / (Mask * 2);
      SendCnt = S.count(H.SendIdx, H.LastIdx);
      RecvCnt = S.count(H.RecvIdx, H.SendIdx);
    }
    if ((NewDst >> J) == (NewRoot >> J))
      return K.send(at(Buf, S.displ(H.SendIdx), E), SendCnt, T, Dst);
    MPIETE_TRY(K.recv(at(Buf, S.displ(H.RecvIdx), E), RecvCnt, T, Dst));
    if (NewRank > NewDst)
      H.SendIdx = H.RecvIdx;
  }
  return MPI_SUCCESS;
}

} // namespace mpiete::coll
