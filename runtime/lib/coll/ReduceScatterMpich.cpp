// MPICH's own reduce-scatter algorithms for the MPICH table: the pairwise exchange it runs for
// commutative operations from 512 KiB (MPIR_Reduce_scatter(_block)_intra_pairwise) and, for
// non-commutative ones, Traff's butterfly on mirror-permuted blocks (powers of two, equal
// blocks: ..._intra_noncommutative) or its recursive doubling on derived types (otherwise).
// Open MPI has none of them, and their messages per peer differ from its algorithms'.
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

/// X with its lowest Bits bits in reverse order (MPICH's MPL_mirror_permutation).
int mirror(int X, int Bits) {
  int R = X & ~((1 << Bits) - 1);
  for (int I = 0; I < Bits; ++I)
    if (X & (1 << I))
      R |= 1 << (Bits - 1 - I);
  return R;
}

/// Butterfly (power-of-two size, every block Block elements): the blocks are laid out in
/// mirror order, then at step k each rank halves its range with rank ^ 2^k; two buffers
/// alternate as input and output so that no data is copied locally.
int reduceScatterButterfly(const Ctx &K, const void *In, void *Out, int Block, MPI_Datatype T,
                           MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  const int Bits = log2Floor(K.Size);
  const int Total = Block * K.Size;
  Temp Mem0, Mem1;
  char *Buf[2] = {Mem0.alloc(Total, T), Mem1.alloc(Total, T)};
  for (int I = 0; I < K.Size; ++I)
    MPIETE_TRY(
        copy(at(In, I * Block, E), Block, T, at(Buf[0], mirror(I, Bits) * Block, E), Block, T));
  int InOut = 0, SendOffset = 0, RecvOffset = 0, Size = Total;
  for (int Step = 0; Step < Bits; ++Step) {
    char *Incoming = Buf[1 - InOut], *Outgoing = Buf[InOut];
    const int Peer = K.Rank ^ (1 << Step);
    Size /= 2;
    if (K.Rank > Peer)
      RecvOffset += Size; // the higher rank keeps the top half
    else
      SendOffset += Size;
    MPIETE_TRY(K.sendrecv(at(Outgoing, SendOffset, E), Size, T, Peer, at(Incoming, RecvOffset, E),
                          Size, T, Peer));
    // Operands in rank order: the lower rank's data first.
    if (K.Rank > Peer) {
      MPIETE_TRY(
          reduceLocal(at(Incoming, RecvOffset, E), at(Outgoing, RecvOffset, E), Size, T, Op));
    } else {
      MPIETE_TRY(
          reduceLocal(at(Outgoing, RecvOffset, E), at(Incoming, RecvOffset, E), Size, T, Op));
      InOut = 1 - InOut;
    }
    SendOffset = RecvOffset;
  }
  return copy(at(Buf[InOut], RecvOffset, E), Size, T, Out, Size, T);
}

/// The two pieces of the vector a subtree [Root, Root + Mask) does not own: an indexed type.
int outsideType(const int *Counts, int Size, int Root, int Mask, MPI_Datatype T, OwnedType &Out,
                int Lens[2], int Displs[2]) {
  Lens[0] = Lens[1] = 0;
  for (int J = 0; J < Root && J < Size; ++J)
    Lens[0] += Counts[J];
  for (int J = Root + Mask; J < Size; ++J)
    Lens[1] += Counts[J];
  Displs[0] = 0;
  Displs[1] = Lens[0];
  for (int J = Root; J < Root + Mask && J < Size; ++J)
    Displs[1] += Counts[J];
  MPIETE_TRY(PMPI_Type_indexed(2, Lens, Displs, T, &Out.T));
  return PMPI_Type_commit(&Out.T);
}

/// Recursive doubling: at step 2^i each rank exchanges with rank ^ 2^i everything outside both
/// subtrees (derived types); where the partner does not exist (not a power of two), ranks of
/// the subtree that did exchange pass their result on by recursive halving.
int reduceScatterDoubling(const Ctx &K, const void *In, void *Out, const int *Counts,
                          const int *Displs, int Total, MPI_Datatype T, MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  const bool Commutes = commutative(Op);
  Temp RecvMem, ResMem;
  char *Tmp = RecvMem.alloc(Total, T);
  char *Res = ResMem.alloc(Total, T);
  MPIETE_TRY(copy(In, Total, T, Res, Total, T));
  for (int Mask = 1, I = 0; Mask < K.Size; Mask <<= 1, ++I) {
    int Dst = K.Rank ^ Mask;
    const int DstRoot = (Dst >> I) << I, MyRoot = (K.Rank >> I) << I;
    OwnedType SendType, RecvType;
    int Lens[2], Dis[2];
    MPIETE_TRY(outsideType(Counts, K.Size, MyRoot, Mask, T, SendType, Lens, Dis));
    MPIETE_TRY(outsideType(Counts, K.Size, DstRoot, Mask, T, RecvType, Lens, Dis));
    bool Received = false;
    if (Dst < K.Size) {
      MPIETE_TRY(K.sendrecv(Res, 1, SendType.T, Dst, Tmp, 1, RecvType.T, Dst));
      Received = true;
    }
    if (DstRoot + Mask > K.Size) {
      const int Completed = K.Size - MyRoot - Mask; // ranks of this subtree holding the data
      int Bits = 0;
      for (int J = Mask; J != 0; J >>= 1)
        ++Bits;
      --Bits;
      for (int TmpMask = Mask >> 1; TmpMask != 0; TmpMask >>= 1, --Bits) {
        Dst = K.Rank ^ TmpMask;
        const int TreeRoot = (K.Rank >> Bits) << Bits;
        if (Dst > K.Rank && K.Rank < TreeRoot + Completed && Dst >= TreeRoot + Completed) {
          MPIETE_TRY(K.send(Tmp, 1, RecvType.T, Dst));
        } else if (Dst < K.Rank && Dst < TreeRoot + Completed && K.Rank >= TreeRoot + Completed) {
          MPIETE_TRY(K.recv(Tmp, 1, RecvType.T, Dst));
          Received = true;
        }
      }
    }
    if (!Received)
      continue;
    // Reduced only now: Tmp may have had to be passed on unchanged above.
    if (Commutes || DstRoot < MyRoot) {
      MPIETE_TRY(reduceLocal(Tmp, Res, Lens[0], T, Op));
      MPIETE_TRY(reduceLocal(at(Tmp, Dis[1], E), at(Res, Dis[1], E), Lens[1], T, Op));
    } else {
      MPIETE_TRY(reduceLocal(Res, Tmp, Lens[0], T, Op));
      MPIETE_TRY(reduceLocal(at(Res, Dis[1], E), at(Tmp, Dis[1], E), Lens[1], T, Op));
      MPIETE_TRY(copy(Tmp, 1, RecvType.T, Res, 1, RecvType.T));
    }
  }
  return copy(at(Res, Displs[K.Rank], E), Counts[K.Rank], T, Out, Counts[K.Rank], T);
}

} // namespace

int reduceScatterPairwise(const Ctx &K, const void *In, void *Out, const int *Counts,
                          const int *Displs, MPI_Datatype T, MPI_Op Op) {
  const MPI_Aint E = extentOf(T);
  const int Mine = Counts[K.Rank];
  MPIETE_TRY(copy(at(In, Displs[K.Rank], E), Mine, T, Out, Mine, T));
  Temp TmpMem;
  char *Tmp = TmpMem.alloc(Mine, T);
  for (int I = 1; I < K.Size; ++I) {
    const int Src = (K.Rank - I + K.Size) % K.Size, Dst = (K.Rank + I) % K.Size;
    // Every pair exchanges, empty blocks included (MPICH sends a zero-byte message).
    MPIETE_TRY(K.sendrecv(at(In, Displs[Dst], E), Counts[Dst], T, Dst, Tmp, Mine, T, Src));
    MPIETE_TRY(reduceLocal(Tmp, Out, Mine, T, Op)); // commutative only
  }
  return MPI_SUCCESS;
}

int reduceScatterNoncommutative(const Ctx &K, const void *In, void *Out, const int *Counts,
                                const int *Displs, int Total, MPI_Datatype T, MPI_Op Op) {
  bool Regular = true;
  for (int I = 1; I < K.Size; ++I)
    Regular = Regular && Counts[I] == Counts[0];
  if (Regular && isPow2(K.Size))
    return reduceScatterButterfly(K, In, Out, Counts[0], T, Op);
  return reduceScatterDoubling(K, In, Out, Counts, Displs, Total, T, Op);
}

} // namespace mpiete::coll
