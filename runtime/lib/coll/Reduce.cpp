// MPI_Reduce and MPI_Allreduce lowered: linear and tree reductions; recursive doubling, ring
// and Rabenseifner allreduce, or reduce + bcast.
#include "CollBase.h"
#include "Collectives.h"

#include <utility>

namespace mpiete::coll {
namespace {

/// A tree reduction: fold the children's partial results into a copy of the input, send it
/// up. Children of a commutative tree come in any order; for the in-order binary tree the
/// left child (upper ranks) is folded first, then the right child (lower ranks), each in front.
/// Returns the result in Out at the tree's root.
int reduceTree(const Ctx &K, const Tree &T, const void *In, void *Out, int Count, MPI_Datatype Type,
               MPI_Op Op) {
  if (T.NumChildren == 0 && T.Parent >= 0)
    return K.send(In, Count, Type, T.Parent);
  Temp AccMem, TmpMem;
  char *Acc = AccMem.alloc(Count, Type);
  char *Tmp = TmpMem.alloc(Count, Type);
  MPIETE_TRY(copy(In, Count, Type, Acc, Count, Type));
  for (int I = 0; I < T.NumChildren; ++I) {
    MPIETE_TRY(K.recv(Tmp, Count, Type, T.Children[I]));
    MPIETE_TRY(reduceLocal(Tmp, Acc, Count, Type, Op));
  }
  if (T.Parent >= 0)
    return K.send(Acc, Count, Type, T.Parent);
  return copy(Acc, Count, Type, Out, Count, Type);
}

/// MPICH's binomial reduce of a non-commutative operation: the tree is rooted at rank 0 so
/// that every subtree is a range of ranks; each rank folds its children (higher ranks,
/// nearest first) behind its own value, and rank 0 sends the result to the root.
int reduceBinomialInOrder(const Ctx &K, const void *In, void *RecvBuf, int Count, MPI_Datatype Type,
                          MPI_Op Op, int Root) {
  const Tree T = inOrderBinomialTree(K.Rank, 0, K.Size);
  if (T.NumChildren == 0 && T.Parent >= 0)
    MPIETE_TRY(K.send(In, Count, Type, T.Parent));
  else {
    Temp AccMem, TmpMem;
    char *Acc = AccMem.alloc(Count, Type);
    char *Tmp = TmpMem.alloc(Count, Type);
    MPIETE_TRY(copy(In, Count, Type, Acc, Count, Type));
    for (int I = 0; I < T.NumChildren; ++I) {
      MPIETE_TRY(K.recv(Tmp, Count, Type, T.Children[I]));
      MPIETE_TRY(reduceLocal(Acc, Tmp, Count, Type, Op)); // Tmp = Acc op Tmp
      std::swap(Acc, Tmp);
    }
    if (T.Parent >= 0)
      MPIETE_TRY(K.send(Acc, Count, Type, T.Parent));
    else if (Root == 0)
      return copy(Acc, Count, Type, RecvBuf, Count, Type);
    else
      return K.send(Acc, Count, Type, Root);
  }
  if (K.Rank == Root)
    return K.recv(RecvBuf, Count, Type, 0);
  return MPI_SUCCESS;
}

} // namespace

/// Linear: the root receives from size-1 down to 0 and folds each in front of the running
/// result, so the result is x0 op (x1 op (... op x_{n-1})).
int reduceLinear(const Ctx &K, const void *In, void *RecvBuf, int Count, MPI_Datatype T, MPI_Op Op,
                 int Root) {
  if (K.Rank != Root)
    return K.send(In, Count, T, Root);
  Temp AccMem, TmpMem;
  // The result accumulates in RecvBuf unless the input lives there (MPI_IN_PLACE).
  char *Acc = In == RecvBuf ? AccMem.alloc(Count, T) : static_cast<char *>(RecvBuf);
  char *Tmp = TmpMem.alloc(Count, T);
  const int Last = K.Size - 1;
  if (Root == Last)
    MPIETE_TRY(copy(In, Count, T, Acc, Count, T));
  else
    MPIETE_TRY(K.recv(Acc, Count, T, Last));
  for (int I = Last - 1; I >= 0; --I) {
    const void *Src = In;
    if (I != Root) {
      MPIETE_TRY(K.recv(Tmp, Count, T, I));
      Src = Tmp;
    }
    MPIETE_TRY(reduceLocal(Src, Acc, Count, T, Op));
  }
  return copy(Acc, Count, T, RecvBuf, Count, T);
}

int reduceWith(const Ctx &K, Algo A, const void *In, void *RecvBuf, int Count, MPI_Datatype T,
               MPI_Op Op, int Root) {
  switch (A) {
  case Algo::Linear:
    return reduceLinear(K, In, RecvBuf, Count, T, Op, Root);
  case Algo::Rabenseifner:
    // Open MPI runs its reduce-scatter + gather only when count >= the power of two below
    // the size; otherwise linear. The long case is replaced by the binomial tree.
    if (Count < pow2Floor(K.Size))
      return reduceLinear(K, In, RecvBuf, Count, T, Op, Root);
    return reduceTree(K, inOrderBinomialTree(K.Rank, Root, K.Size), In, RecvBuf, Count, T, Op);
  case Algo::InOrderBinary: {
    const int IoRoot = K.Size - 1;
    Temp ResMem;
    void *Res = RecvBuf;
    if (K.Rank == IoRoot && IoRoot != Root)
      Res = ResMem.alloc(Count, T);
    MPIETE_TRY(reduceTree(K, inOrderBinaryTree(K.Rank, K.Size), In, Res, Count, T, Op));
    if (IoRoot == Root)
      return MPI_SUCCESS;
    if (K.Rank == IoRoot)
      return K.send(Res, Count, T, Root);
    if (K.Rank == Root)
      return K.recv(RecvBuf, Count, T, IoRoot);
    return MPI_SUCCESS;
  }
  case Algo::Binomial:
    return reduceTree(K, inOrderBinomialTree(K.Rank, Root, K.Size), In, RecvBuf, Count, T, Op);
  case Algo::RedscatGather:
    // MPICH: user-defined operations and counts below the power of two run its binomial tree.
    if (builtinOp(Op) && Count >= pow2Floor(K.Size))
      return reduceRedscatGather(K, In, RecvBuf, Count, T, Op, Root);
    [[fallthrough]];
  case Algo::InOrderBinomial:
    if (!commutative(Op))
      return reduceBinomialInOrder(K, In, RecvBuf, Count, T, Op, Root);
    return reduceTree(K, inOrderBinomialTree(K.Rank, Root, K.Size), In, RecvBuf, Count, T, Op);
  default: // Chain, Binary
    return reduceTree(K, treeFor(A, K.Rank, Root, K.Size), In, RecvBuf, Count, T, Op);
  }
}

namespace {

int reduceImpl(const Ctx &K, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype T,
               MPI_Op Op, int Root) {
  const void *In = SendBuf == MPI_IN_PLACE ? RecvBuf : SendBuf;
  if (Count == 0)
    return MPI_SUCCESS;
  if (K.Size == 1)
    return copy(In, Count, T, RecvBuf, Count, T);
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Count);
  const Algo A = decide(Coll::Reduce, K.Size, Bytes, commutative(Op));
  return reduceWith(K, A, In, RecvBuf, Count, T, Op, Root);
}

//===-- Allreduce ---------------------------------------------------------------------------===//

/// Recursive doubling; a size that is not a power of two first folds the even ranks of the
/// first 2 * extra ranks into their odd neighbours, which hand the result back at the end.
int allreduceRecursiveDoubling(const Ctx &K, void *Buf, int Count, MPI_Datatype T, MPI_Op Op) {
  const int Adj = pow2Floor(K.Size);
  const int Extra = K.Size - Adj;
  Temp TmpMem;
  char *Tmp = TmpMem.alloc(Count, T);
  int NewRank;
  if (K.Rank < 2 * Extra) {
    if (K.Rank % 2 == 0) {
      MPIETE_TRY(K.send(Buf, Count, T, K.Rank + 1));
      NewRank = -1;
    } else {
      MPIETE_TRY(K.recv(Tmp, Count, T, K.Rank - 1));
      MPIETE_TRY(reduceLocal(Tmp, Buf, Count, T, Op));
      NewRank = K.Rank >> 1;
    }
  } else {
    NewRank = K.Rank - Extra;
  }
  if (NewRank >= 0) {
    for (int Distance = 1; Distance < Adj; Distance <<= 1) {
      const int NewRemote = NewRank ^ Distance;
      const int Remote = NewRemote < Extra ? NewRemote * 2 + 1 : NewRemote + Extra;
      MPIETE_TRY(K.sendrecv(Buf, Count, T, Remote, Tmp, Count, T, Remote));
      if (NewRemote < NewRank) {
        MPIETE_TRY(reduceLocal(Tmp, Buf, Count, T, Op)); // theirs op mine
      } else {
        MPIETE_TRY(reduceLocal(Buf, Tmp, Count, T, Op)); // mine op theirs
        MPIETE_TRY(copy(Tmp, Count, T, Buf, Count, T));
      }
    }
  }
  if (K.Rank < 2 * Extra) {
    if (K.Rank % 2 == 0)
      return K.recv(Buf, Count, T, K.Rank + 1);
    return K.send(Buf, Count, T, K.Rank - 1);
  }
  return MPI_SUCCESS;
}

/// Split Count elements into Size blocks, the first Count % Size one element longer.
struct Blocks {
  int Early, Late, Split;
  Blocks(int Count, int Size)
      : Early(Count / Size + (Count % Size ? 1 : 0)), Late(Count / Size), Split(Count % Size) {}
  int offset(int B) const { return B < Split ? B * Early : B * Late + Split; }
  int count(int B) const { return B < Split ? Early : Late; }
};

/// Ring: size-1 reduce steps around the ring, then size-1 steps passing the reduced blocks.
int allreduceRing(const Ctx &K, void *Buf, int Count, MPI_Datatype T, MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  const Blocks B(Count, K.Size);
  const int To = (K.Rank + 1) % K.Size, From = (K.Rank + K.Size - 1) % K.Size;
  Temp InMem;
  char *In = InMem.alloc(B.Early, T);
  int SendBlock = K.Rank;
  for (int Step = 1; Step < K.Size; ++Step) {
    const int RecvBlock = (K.Rank - Step + K.Size) % K.Size;
    MPIETE_TRY(K.sendrecv(at(Buf, B.offset(SendBlock), E), B.count(SendBlock), T, To, In,
                          B.count(RecvBlock), T, From));
    MPIETE_TRY(reduceLocal(In, at(Buf, B.offset(RecvBlock), E), B.count(RecvBlock), T, Op));
    SendBlock = RecvBlock;
  }
  // SendBlock = rank + 1 is now complete here.
  for (int Step = 0; Step < K.Size - 1; ++Step) {
    const int Send = (K.Rank + 1 - Step + K.Size) % K.Size;
    const int Recv = (K.Rank - Step + K.Size) % K.Size;
    MPIETE_TRY(K.sendrecv(at(Buf, B.offset(Send), E), B.count(Send), T, To,
                          at(Buf, B.offset(Recv), E), B.count(Recv), T, From));
  }
  return MPI_SUCCESS;
}

/// Rabenseifner: halves exchanged to fold to a power of two, reduce-scatter by recursive
/// halving, allgather by recursive doubling, results handed back to the folded ranks.
int allreduceRabenseifner(const Ctx &K, void *Buf, int Count, MPI_Datatype T, MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  const int Pof2 = pow2Floor(K.Size);
  const int Rem = K.Size - Pof2;
  Temp TmpMem;
  char *Tmp = TmpMem.alloc(Count, T);
  int VRank;
  if (K.Rank < 2 * Rem) {
    const int LHalf = Count / 2, RHalf = Count - LHalf;
    if (K.Rank % 2 != 0) {
      MPIETE_TRY(K.sendrecv(Buf, LHalf, T, K.Rank - 1, at(Tmp, LHalf, E), RHalf, T, K.Rank - 1));
      MPIETE_TRY(reduceLocal(at(Tmp, LHalf, E), at(Buf, LHalf, E), RHalf, T, Op));
      MPIETE_TRY(K.send(at(Buf, LHalf, E), RHalf, T, K.Rank - 1));
      VRank = -1;
    } else {
      MPIETE_TRY(K.sendrecv(at(Buf, LHalf, E), RHalf, T, K.Rank + 1, Tmp, LHalf, T, K.Rank + 1));
      MPIETE_TRY(reduceLocal(Tmp, Buf, LHalf, T, Op));
      MPIETE_TRY(K.recv(at(Buf, LHalf, E), RHalf, T, K.Rank + 1));
      VRank = K.Rank / 2;
    }
  } else {
    VRank = K.Rank - Rem;
  }
  if (VRank >= 0) {
    int RIndex[32], SIndex[32], RCount[32], SCount[32];
    int WSize = Count, Step = 0, Index = 0;
    for (int Mask = 1; Mask < Pof2; Mask <<= 1, ++Step) {
      const int VDest = VRank ^ Mask;
      const int Dest = VDest < Rem ? VDest * 2 : VDest + Rem;
      SIndex[Step] = RIndex[Step] = Index;
      if (VRank < VDest) {
        RCount[Step] = WSize / 2;
        SCount[Step] = WSize - RCount[Step];
        SIndex[Step] = RIndex[Step] + RCount[Step];
      } else {
        SCount[Step] = WSize / 2;
        RCount[Step] = WSize - SCount[Step];
        RIndex[Step] = SIndex[Step] + SCount[Step];
      }
      MPIETE_TRY(K.sendrecv(at(Buf, SIndex[Step], E), SCount[Step], T, Dest,
                            at(Tmp, RIndex[Step], E), RCount[Step], T, Dest));
      MPIETE_TRY(
          reduceLocal(at(Tmp, RIndex[Step], E), at(Buf, RIndex[Step], E), RCount[Step], T, Op));
      Index = RIndex[Step];
      WSize = RCount[Step];
    }
    for (int Mask = Pof2 >> 1; Mask > 0; Mask >>= 1) {
      --Step;
      const int VDest = VRank ^ Mask;
      const int Dest = VDest < Rem ? VDest * 2 : VDest + Rem;
      MPIETE_TRY(K.sendrecv(at(Buf, RIndex[Step], E), RCount[Step], T, Dest,
                            at(Buf, SIndex[Step], E), SCount[Step], T, Dest));
    }
  }
  if (K.Rank < 2 * Rem) {
    if (K.Rank % 2 != 0)
      return K.recv(Buf, Count, T, K.Rank - 1);
    return K.send(Buf, Count, T, K.Rank + 1);
  }
  return MPI_SUCCESS;
}

int allreduceImpl(const Ctx &K, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype T,
                  MPI_Op Op) {
  if (Count == 0)
    return MPI_SUCCESS;
  if (SendBuf != MPI_IN_PLACE)
    MPIETE_TRY(copy(SendBuf, Count, T, RecvBuf, Count, T));
  if (K.Size == 1)
    return MPI_SUCCESS;
  const bool Commute = commutative(Op);
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Count);
  switch (decide(Coll::Allreduce, K.Size, Bytes, Commute)) {
  case Algo::Ring:
    if (Count < K.Size) // as Open MPI: too few elements for a block per rank
      return allreduceRecursiveDoubling(K, RecvBuf, Count, T, Op);
    return allreduceRing(K, RecvBuf, Count, T, Op);
  case Algo::Rabenseifner:
    if (Count < pow2Floor(K.Size) || !Commute)
      return allreduceRecursiveDoubling(K, RecvBuf, Count, T, Op);
    return allreduceRabenseifner(K, RecvBuf, Count, T, Op);
  case Algo::RedscatAllgather: // MPICH: as its selection, recursive doubling otherwise
    if (builtinOp(Op) && Count >= pow2Floor(K.Size))
      return allreduceRedscatAllgather(K, RecvBuf, Count, T, Op);
    return allreduceRecursiveDoubling(K, RecvBuf, Count, T, Op);
  case Algo::Linear:
    MPIETE_TRY(reduceLinear(K, RecvBuf, RecvBuf, Count, T, Op, 0));
    return bcastLinear(K, RecvBuf, Count, T, 0);
  case Algo::Nonoverlapping:
    MPIETE_TRY(reduceWith(K, decide(Coll::Reduce, K.Size, Bytes, Commute), RecvBuf, RecvBuf, Count,
                          T, Op, 0));
    return bcastWith(K, decide(Coll::Bcast, K.Size, Bytes, true), RecvBuf, Count, T, 0);
  default:
    return allreduceRecursiveDoubling(K, RecvBuf, Count, T, Op);
  }
}

} // namespace

//===-- Entry points ------------------------------------------------------------------------===//

int reduce(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
           MPI_Op Op, int Root, MPI_Comm Comm) {
  return reduceImpl(Ctx(Site, Comm, Coll::Reduce), SendBuf, RecvBuf, Count, Type, Op, Root);
}

int allreduce(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
              MPI_Op Op, MPI_Comm Comm) {
  return allreduceImpl(Ctx(Site, Comm, Coll::Allreduce), SendBuf, RecvBuf, Count, Type, Op);
}

} // namespace mpiete::coll
