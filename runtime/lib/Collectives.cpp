// The collectives lowered to point-to-point on the transport, one algorithm per entry of
// CollDecision's table. The message pattern of each algorithm (who sends what to whom, in
// which step) follows Open MPI 4.1's coll/base implementation of the same name; the local work
// (copies, reductions, temporary buffers) uses only local PMPI calls, so the same code runs on
// the trace transport and on the token machine.
#include "Collectives.h"

#include "CollDecision.h"
#include "Transport.h"

#include <cstdlib>
#include <cstring>

namespace mpiete::coll {
namespace {

using transport::Context;
using transport::SendMode;

#define MPIETE_TRY(Expr)                                                                           \
  do {                                                                                             \
    if (const int Rc_ = (Expr); Rc_ != MPI_SUCCESS)                                                \
      return Rc_;                                                                                  \
  } while (0)

// One tag per collective inside the private collective context: the MPI ordering rules keep
// successive collectives on one communicator apart, the tags make a mismatch loud.
int tagOf(Coll C) { return 100 + static_cast<int>(C); }

/// The call's communicator, site and tag: everything a message needs besides its data.
struct Ctx {
  mpiete_site_t Site;
  MPI_Comm Comm;
  int Tag;
  int Rank = 0;
  int Size = 1;

  Ctx(mpiete_site_t S, MPI_Comm C, Coll K) : Site(S), Comm(C), Tag(tagOf(K)) {
    PMPI_Comm_rank(C, &Rank);
    PMPI_Comm_size(C, &Size);
  }

  int isend(const void *Buf, int Count, MPI_Datatype T, int Dest, MPI_Request *R) const {
    return transport::isend(Site, Buf, Count, T, Dest, Tag, Comm, SendMode::Standard,
                            Context::Collective, R);
  }
  int irecv(void *Buf, int Count, MPI_Datatype T, int Src, MPI_Request *R) const {
    return transport::irecv(Site, Buf, Count, T, Src, Tag, Comm, Context::Collective, R);
  }
  int waitall(int N, MPI_Request *R) const {
    return transport::waitall(Site, N, R, MPI_STATUSES_IGNORE);
  }
  int send(const void *Buf, int Count, MPI_Datatype T, int Dest) const {
    MPI_Request R;
    MPIETE_TRY(isend(Buf, Count, T, Dest, &R));
    return transport::wait(Site, &R, MPI_STATUS_IGNORE);
  }
  int recv(void *Buf, int Count, MPI_Datatype T, int Src) const {
    MPI_Request R;
    MPIETE_TRY(irecv(Buf, Count, T, Src, &R));
    return transport::wait(Site, &R, MPI_STATUS_IGNORE);
  }
  int sendrecv(const void *SBuf, int SCount, MPI_Datatype ST, int Dest, void *RBuf, int RCount,
               MPI_Datatype RT, int Src) const {
    MPI_Request R[2];
    MPIETE_TRY(irecv(RBuf, RCount, RT, Src, &R[0]));
    MPIETE_TRY(isend(SBuf, SCount, ST, Dest, &R[1]));
    return waitall(2, R);
  }
  /// Zero-byte synchronisation messages.
  int sendZero(int Dest) const { return send(nullptr, 0, MPI_BYTE, Dest); }
  int recvZero(int Src) const { return recv(nullptr, 0, MPI_BYTE, Src); }
  int sendrecvZero(int Dest, int Src) const {
    return sendrecv(nullptr, 0, MPI_BYTE, Dest, nullptr, 0, MPI_BYTE, Src);
  }
};

MPI_Aint extentOf(MPI_Datatype T) {
  MPI_Aint Lb = 0, Extent = 0;
  PMPI_Type_get_extent(T, &Lb, &Extent);
  return Extent;
}
int sizeOf(MPI_Datatype T) {
  int S = 0;
  PMPI_Type_size(T, &S);
  return S;
}
bool commutative(MPI_Op Op) {
  int C = 1;
  PMPI_Op_commutative(Op, &C);
  return C != 0;
}
/// Element I of a buffer of type T (extent E).
char *at(const void *Buf, MPI_Aint I, MPI_Aint E) {
  return static_cast<char *>(const_cast<void *>(Buf)) + I * E;
}

/// A heap buffer for Count elements of T, addressed like a user buffer (lower bound applied).
class Temp {
public:
  Temp() = default;
  Temp(const Temp &) = delete;
  Temp &operator=(const Temp &) = delete;
  ~Temp() { std::free(Mem); }

  char *alloc(MPI_Aint Count, MPI_Datatype T) {
    MPI_Aint Lb = 0, Extent = 0, TrueLb = 0, TrueExtent = 0;
    PMPI_Type_get_extent(T, &Lb, &Extent);
    PMPI_Type_get_true_extent(T, &TrueLb, &TrueExtent);
    const MPI_Aint Span = Count > 0 ? TrueExtent + (Count - 1) * Extent : 0;
    std::free(Mem);
    Mem = static_cast<char *>(std::malloc(static_cast<size_t>(Span > 0 ? Span : 1)));
    return Mem - TrueLb;
  }

private:
  char *Mem = nullptr;
};

/// A derived datatype freed at scope exit.
class OwnedType {
public:
  OwnedType() = default;
  OwnedType(const OwnedType &) = delete;
  OwnedType &operator=(const OwnedType &) = delete;
  ~OwnedType() {
    if (T != MPI_DATATYPE_NULL)
      PMPI_Type_free(&T);
  }
  MPI_Datatype T = MPI_DATATYPE_NULL;
};

/// Copies SCount elements of ST at Src into RCount elements of RT at Dst (a local "message":
/// same type signature, any layouts).
int copy(const void *Src, int SCount, MPI_Datatype ST, void *Dst, int RCount, MPI_Datatype RT) {
  if (SCount == 0 || RCount == 0 || Src == Dst)
    return MPI_SUCCESS;
  MPI_Aint Lb = 0, Extent = 0, TrueLb = 0, TrueExtent = 0;
  PMPI_Type_get_extent(ST, &Lb, &Extent);
  PMPI_Type_get_true_extent(ST, &TrueLb, &TrueExtent);
  const int Size = sizeOf(ST);
  if (ST == RT && SCount == RCount && TrueLb == 0 && TrueExtent == Extent && Size == Extent) {
    std::memmove(Dst, Src, static_cast<size_t>(Size) * static_cast<size_t>(SCount));
    return MPI_SUCCESS;
  }
  int PackBytes = 0;
  MPIETE_TRY(PMPI_Pack_size(SCount, ST, MPI_COMM_SELF, &PackBytes));
  char *Packed = static_cast<char *>(std::malloc(static_cast<size_t>(PackBytes) + 1));
  int Position = 0;
  int Rc = PMPI_Pack(Src, SCount, ST, Packed, PackBytes, &Position, MPI_COMM_SELF);
  if (Rc == MPI_SUCCESS) {
    const int RSize = sizeOf(RT);
    const int Whole = RSize > 0 ? Position / RSize : 0;
    const int N = Whole < RCount ? Whole : RCount;
    int Out = 0;
    if (N > 0)
      Rc = PMPI_Unpack(Packed, Position, &Out, Dst, N, RT, MPI_COMM_SELF);
  }
  std::free(Packed);
  return Rc;
}

/// InOut = In op InOut (MPI's operand order: In holds the lower ranks).
int reduceLocal(const void *In, void *InOut, int Count, MPI_Datatype T, MPI_Op Op) {
  if (Count == 0)
    return MPI_SUCCESS;
  return PMPI_Reduce_local(In, InOut, Count, T, Op);
}

int log2Floor(int N) {
  int L = 0;
  while ((2 << L) <= N)
    ++L;
  return L;
}
/// The largest power of two <= N (N >= 1).
int pow2Floor(int N) { return 1 << log2Floor(N); }
bool isPow2(int N) { return N > 0 && (N & (N - 1)) == 0; }

//===-- Trees -------------------------------------------------------------------------------===//

constexpr int MaxChildren = 40; // a binomial tree of 2^40 ranks: enough

/// One rank's place in a tree: its parent (-1 at the root) and children in sending order.
struct Tree {
  int Parent = -1;
  int NumChildren = 0;
  int Children[MaxChildren];

  void add(int Child) { Children[NumChildren++] = Child; }
};

int shift(int Rank, int Root, int Size) { return (Rank - Root + Size) % Size; }
int unshift(int VRank, int Root, int Size) { return (VRank + Root) % Size; }

/// Open MPI's binomial tree (bmtree): the parent clears the highest set bit of the virtual
/// rank; children are the virtual rank plus each higher power of two, smallest first.
Tree binomialTree(int Rank, int Root, int Size) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  int Mask = 1;
  while (Mask <= V)
    Mask <<= 1;
  if (V != 0)
    T.Parent = unshift(V ^ (Mask >> 1), Root, Size);
  for (; Mask < Size; Mask <<= 1) {
    if ((V ^ Mask) >= Size)
      break;
    T.add(unshift(V ^ Mask, Root, Size));
  }
  return T;
}

/// Open MPI's in-order binomial tree: the parent clears the lowest set bit, so every subtree
/// is a contiguous range of virtual ranks [v, v + lowbit(v)).
Tree inOrderBinomialTree(int Rank, int Root, int Size) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  for (int Mask = 1; Mask < Size; Mask <<= 1) {
    const int Remote = V ^ Mask;
    if (Remote < V) {
      T.Parent = unshift(Remote, Root, Size);
      break;
    }
    if (Remote < Size)
      T.add(unshift(Remote, Root, Size));
  }
  return T;
}

/// Open MPI's n-ary tree (fanout 2: its "binary" tree): level by level, a node of level L has
/// children v + k * fanout^L, k = 1..fanout.
Tree naryTree(int Rank, int Root, int Size, int Fanout) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  int Level = 0, Nodes = 0, Width = 1;
  for (; Nodes + Width <= V; ++Level) {
    Nodes += Width;
    Width *= Fanout;
  }
  const int Delta = Width; // fanout^level
  for (int K = 1; K <= Fanout; ++K) {
    const int Child = V + Delta * K;
    if (Child >= Size)
      break;
    T.add(unshift(Child, Root, Size));
  }
  if (V != 0) {
    int Parent = V;
    if (Parent < Fanout) {
      Parent = 0;
    } else {
      const int Limit = Nodes; // nodes above my level
      while (Parent >= Limit)
        Parent -= Delta / Fanout;
    }
    T.Parent = unshift(Parent, Root, Size);
  }
  return T;
}

/// A single chain root -> root+1 -> ... (Open MPI's chain with one chain, and its pipeline).
Tree chainTree(int Rank, int Root, int Size) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  if (V > 0)
    T.Parent = unshift(V - 1, Root, Size);
  if (V + 1 < Size)
    T.add(unshift(V + 1, Root, Size));
  return T;
}

/// Open MPI's k-nomial tree: children at distances mask * r (r = 1..radix-1), largest mask
/// first.
Tree knomialTree(int Rank, int Root, int Size, int Radix) {
  Tree T;
  const int V = shift(Rank, Root, Size);
  long Mask = 1;
  while (Mask < Size) {
    if (V % (Radix * Mask)) {
      T.Parent = unshift(static_cast<int>(V / (Radix * Mask) * (Radix * Mask)), Root, Size);
      break;
    }
    Mask *= Radix;
  }
  for (Mask /= Radix; Mask > 0; Mask /= Radix)
    for (int R = 1; R < Radix; ++R) {
      const long Child = V + Mask * R;
      if (Child < Size)
        T.add(unshift(static_cast<int>(Child), Root, Size));
    }
  return T;
}

/// Open MPI's in-order binary tree, rooted at Size - 1: node p's left child p - 1 holds the
/// upper part of the ranks below p, its right child the lower part, so an in-order walk visits
/// ranks in order (what a non-commutative reduction needs).
Tree inOrderBinaryTree(int Rank, int Size) {
  Tree T;
  int MyRank = Rank, Parent = Size - 1, Delta = 0, N = Size;
  while (true) {
    const int RightSize = N >> 1;
    int LChild = -1, RChild = -1;
    if (N - 1 > 0) {
      LChild = Parent - 1;
      if (LChild > 0)
        RChild = RightSize - 1;
    }
    if (MyRank == Parent) {
      if (LChild >= 0)
        T.add(LChild + Delta);
      if (RChild >= 0)
        T.add(RChild + Delta);
      break;
    }
    if (MyRank > RChild) {
      if (MyRank == LChild)
        T.Parent = Parent + Delta;
      N = N - RightSize - 1;
      Delta += RightSize;
      MyRank -= RightSize;
      Parent = N - 1;
    } else {
      if (MyRank == RChild)
        T.Parent = Parent + Delta;
      N = RightSize;
      Parent = RChild;
    }
  }
  return T;
}

Tree treeFor(Algo A, int Rank, int Root, int Size) {
  switch (A) {
  case Algo::Chain:
    return chainTree(Rank, Root, Size);
  case Algo::Binary:
  case Algo::SplitBinary:
    return naryTree(Rank, Root, Size, 2);
  case Algo::Knomial:
    return knomialTree(Rank, Root, Size, 4);
  default:
    return binomialTree(Rank, Root, Size);
  }
}

//===-- Bcast -------------------------------------------------------------------------------===//

int bcastLinear(const Ctx &K, void *Buf, int Count, MPI_Datatype T, int Root) {
  if (K.Rank != Root)
    return K.recv(Buf, Count, T, Root);
  MPI_Request *Reqs = static_cast<MPI_Request *>(std::malloc(sizeof(MPI_Request) * K.Size));
  int N = 0, Rc = MPI_SUCCESS;
  for (int I = 0; I < K.Size && Rc == MPI_SUCCESS; ++I)
    if (I != Root)
      Rc = K.isend(Buf, Count, T, I, &Reqs[N++]);
  if (Rc == MPI_SUCCESS)
    Rc = K.waitall(N, Reqs);
  std::free(Reqs);
  return Rc;
}

/// The generic tree broadcast, unsegmented: receive from the parent, then send to every child.
int bcastTree(const Ctx &K, const Tree &T, void *Buf, int Count, MPI_Datatype Type) {
  if (T.Parent >= 0)
    MPIETE_TRY(K.recv(Buf, Count, Type, T.Parent));
  if (T.NumChildren == 0)
    return MPI_SUCCESS;
  MPI_Request Reqs[MaxChildren];
  for (int I = 0; I < T.NumChildren; ++I)
    MPIETE_TRY(K.isend(Buf, Count, Type, T.Children[I], &Reqs[I]));
  return K.waitall(T.NumChildren, Reqs);
}

int bcastWith(const Ctx &K, Algo A, void *Buf, int Count, MPI_Datatype T, int Root) {
  if (A == Algo::Linear)
    return bcastLinear(K, Buf, Count, T, Root);
  return bcastTree(K, treeFor(A, K.Rank, Root, K.Size), Buf, Count, T);
}

int bcastImpl(const Ctx &K, void *Buf, int Count, MPI_Datatype T, int Root) {
  if (K.Size == 1 || Count == 0)
    return MPI_SUCCESS;
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Count);
  return bcastWith(K, decide(Coll::Bcast, K.Size, Bytes, true), Buf, Count, T, Root);
}

//===-- Reduce ------------------------------------------------------------------------------===//

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
  default: // Chain, Binary
    return reduceTree(K, treeFor(A, K.Rank, Root, K.Size), In, RecvBuf, Count, T, Op);
  }
}

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

//===-- Gather, Scatter ---------------------------------------------------------------------===//

/// The subtree of virtual rank V in an in-order binomial tree over Size ranks: [V, V + n).
int inOrderSubtree(int V, int Size) {
  if (V == 0)
    return Size;
  const int Low = V & -V;
  return Low < Size - V ? Low : Size - V;
}

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

//===-- Allgather, Allgatherv ---------------------------------------------------------------===//

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

int allgatherBlocks(const Ctx &K, Algo A, const BlockLayout &L) {
  switch (A) {
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
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(RT)) * RCount;
  const Algo A = decide(Coll::Allgather, K.Size, Bytes, true);
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
  const Algo A = decide(Coll::Allgatherv, K.Size, Total / K.Size, true);
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

//===-- Alltoall, Alltoallv -----------------------------------------------------------------===//

struct AlltoallArgs {
  const void *SBuf;
  MPI_Datatype ST;
  MPI_Aint SE;
  void *RBuf;
  MPI_Datatype RT;
  MPI_Aint RE;
  const int *SCounts, *SDispls, *RCounts, *RDispls; // null: uniform
  int SCount, RCount;

  int scount(int I) const { return SCounts ? SCounts[I] : SCount; }
  int rcount(int I) const { return RCounts ? RCounts[I] : RCount; }
  const char *sptr(int I) const {
    return at(SBuf, SDispls ? SDispls[I] : static_cast<MPI_Aint>(I) * SCount, SE);
  }
  char *rptr(int I) const {
    return at(RBuf, RDispls ? RDispls[I] : static_cast<MPI_Aint>(I) * RCount, RE);
  }
};

/// Receives from rank+1, rank+2, ... and sends to rank-1, rank-2, ... all at once.
/// SkipEmpty: the Alltoallv variant posts nothing for empty blocks.
int alltoallLinear(const Ctx &K, const AlltoallArgs &A, bool SkipEmpty) {
  MPI_Request *Reqs =
      static_cast<MPI_Request *>(std::malloc(sizeof(MPI_Request) * 2 * (K.Size + 1)));
  int N = 0, Rc = MPI_SUCCESS;
  for (int I = (K.Rank + 1) % K.Size; I != K.Rank && Rc == MPI_SUCCESS; I = (I + 1) % K.Size)
    if (!SkipEmpty || A.rcount(I) > 0)
      Rc = K.irecv(A.rptr(I), A.rcount(I), A.RT, I, &Reqs[N++]);
  for (int I = (K.Rank + K.Size - 1) % K.Size; I != K.Rank && Rc == MPI_SUCCESS;
       I = (I + K.Size - 1) % K.Size)
    if (!SkipEmpty || A.scount(I) > 0)
      Rc = K.isend(A.sptr(I), A.scount(I), A.ST, I, &Reqs[N++]);
  if (Rc == MPI_SUCCESS)
    Rc = K.waitall(N, Reqs);
  std::free(Reqs);
  return Rc;
}

int alltoallPairwise(const Ctx &K, const AlltoallArgs &A) {
  for (int Step = 1; Step < K.Size; ++Step) {
    const int To = (K.Rank + Step) % K.Size, From = (K.Rank + K.Size - Step) % K.Size;
    MPIETE_TRY(
        K.sendrecv(A.sptr(To), A.scount(To), A.ST, To, A.rptr(From), A.rcount(From), A.RT, From));
  }
  return MPI_SUCCESS;
}

/// MPI_IN_PLACE: the send data is the receive buffer's; work from a copy of it.
int alltoallRun(const Ctx &K, AlltoallArgs A, Coll C, Algo Alg) {
  Temp Copy;
  if (A.SBuf == MPI_IN_PLACE) {
    MPI_Aint Elems = 0;
    for (int I = 0; I < K.Size; ++I) {
      const MPI_Aint End =
          (A.RDispls ? A.RDispls[I] : static_cast<MPI_Aint>(I) * A.RCount) + A.rcount(I);
      Elems = End > Elems ? End : Elems;
    }
    char *C2 = Copy.alloc(Elems, A.RT);
    MPIETE_TRY(copy(A.RBuf, static_cast<int>(Elems), A.RT, C2, static_cast<int>(Elems), A.RT));
    A.SBuf = C2;
    A.ST = A.RT;
    A.SE = A.RE;
    A.SCounts = A.RCounts;
    A.SDispls = A.RDispls;
    A.SCount = A.RCount;
  }
  MPIETE_TRY(copy(A.sptr(K.Rank), A.scount(K.Rank), A.ST, A.rptr(K.Rank), A.rcount(K.Rank), A.RT));
  if (K.Size == 1)
    return MPI_SUCCESS;
  if (Alg == Algo::Pairwise)
    return alltoallPairwise(K, A);
  return alltoallLinear(K, A, C == Coll::Alltoallv);
}

//===-- Reduce_scatter ----------------------------------------------------------------------===//

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

//===-- Scan, Exscan ------------------------------------------------------------------------===//

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

int barrier(mpiete_site_t Site, MPI_Comm Comm) {
  const Ctx K(Site, Comm, Coll::Barrier);
  if (K.Size == 1)
    return MPI_SUCCESS;
  switch (decide(Coll::Barrier, K.Size, 0, true)) {
  case Algo::Linear: {
    if (K.Rank != 0) {
      MPIETE_TRY(K.sendZero(0));
      return K.recvZero(0);
    }
    MPI_Request *Reqs = static_cast<MPI_Request *>(std::malloc(sizeof(MPI_Request) * K.Size));
    int Rc = MPI_SUCCESS;
    for (int I = 1; I < K.Size && Rc == MPI_SUCCESS; ++I)
      Rc = K.irecv(nullptr, 0, MPI_BYTE, I, &Reqs[I - 1]);
    if (Rc == MPI_SUCCESS)
      Rc = K.waitall(K.Size - 1, Reqs);
    for (int I = 1; I < K.Size && Rc == MPI_SUCCESS; ++I)
      Rc = K.isend(nullptr, 0, MPI_BYTE, I, &Reqs[I - 1]);
    if (Rc == MPI_SUCCESS)
      Rc = K.waitall(K.Size - 1, Reqs);
    std::free(Reqs);
    return Rc;
  }
  case Algo::RecursiveDoubling: {
    const int Adj = pow2Floor(K.Size);
    if (Adj != K.Size) {
      if (K.Rank >= Adj)
        return K.sendrecvZero(K.Rank - Adj, K.Rank - Adj);
      if (K.Rank < K.Size - Adj)
        MPIETE_TRY(K.recvZero(K.Rank + Adj));
    }
    for (int Mask = 1; Mask < Adj; Mask <<= 1)
      MPIETE_TRY(K.sendrecvZero(K.Rank ^ Mask, K.Rank ^ Mask));
    if (Adj != K.Size && K.Rank < K.Size - Adj)
      return K.sendZero(K.Rank + Adj);
    return MPI_SUCCESS;
  }
  case Algo::TwoProc:
    if (K.Size == 2)
      return K.sendrecvZero(K.Rank ^ 1, K.Rank ^ 1);
    [[fallthrough]];
  default: // Bruck (dissemination); DoubleRing and Tree fall back to it
    for (int D = 1; D < K.Size; D <<= 1)
      MPIETE_TRY(K.sendrecvZero((K.Rank + D) % K.Size, (K.Rank - D + K.Size) % K.Size));
    return MPI_SUCCESS;
  }
}

int bcast(mpiete_site_t Site, void *Buf, int Count, MPI_Datatype Type, int Root, MPI_Comm Comm) {
  return bcastImpl(Ctx(Site, Comm, Coll::Bcast), Buf, Count, Type, Root);
}

int reduce(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
           MPI_Op Op, int Root, MPI_Comm Comm) {
  return reduceImpl(Ctx(Site, Comm, Coll::Reduce), SendBuf, RecvBuf, Count, Type, Op, Root);
}

int allreduce(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
              MPI_Op Op, MPI_Comm Comm) {
  return allreduceImpl(Ctx(Site, Comm, Coll::Allreduce), SendBuf, RecvBuf, Count, Type, Op);
}

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

int alltoall(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
             void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm) {
  const Ctx K(Site, Comm, Coll::Alltoall);
  if (RecvCount == 0)
    return MPI_SUCCESS;
  const bool InPlace = SendBuf == MPI_IN_PLACE;
  const AlltoallArgs A{SendBuf, SendType,  InPlace ? 0 : extentOf(SendType),
                       RecvBuf, RecvType,  extentOf(RecvType),
                       nullptr, nullptr,   nullptr,
                       nullptr, SendCount, RecvCount};
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(InPlace ? RecvType : SendType)) *
                         static_cast<uint64_t>(InPlace ? RecvCount : SendCount);
  return alltoallRun(K, A, Coll::Alltoall, decide(Coll::Alltoall, K.Size, Bytes, true));
}

int alltoallv(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
              const int SendDispls[], MPI_Datatype SendType, void *RecvBuf, const int RecvCounts[],
              const int RecvDispls[], MPI_Datatype RecvType, MPI_Comm Comm) {
  const Ctx K(Site, Comm, Coll::Alltoallv);
  const bool InPlace = SendBuf == MPI_IN_PLACE;
  const AlltoallArgs A{SendBuf,    SendType,   InPlace ? 0 : extentOf(SendType),
                       RecvBuf,    RecvType,   extentOf(RecvType),
                       SendCounts, SendDispls, RecvCounts,
                       RecvDispls, 0,          0};
  return alltoallRun(K, A, Coll::Alltoallv, decide(Coll::Alltoallv, K.Size, 0, true));
}

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
                        static_cast<uint64_t>(sizeOf(Type)) * static_cast<uint64_t>(RecvCount));
  std::free(Counts);
  return Rc;
}

int scan(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
         MPI_Op Op, MPI_Comm Comm) {
  return scanImpl(Ctx(Site, Comm, Coll::Scan), SendBuf, RecvBuf, Count, Type, Op);
}

int exscan(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
           MPI_Op Op, MPI_Comm Comm) {
  return exscanImpl(Ctx(Site, Comm, Coll::Exscan), SendBuf, RecvBuf, Count, Type, Op);
}

} // namespace mpiete::coll
