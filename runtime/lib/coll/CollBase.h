// What the collective families of runtime/lib/coll share: the call context every message of a
// lowered collective goes through, local datatype helpers, the trees, and the algorithms one
// family borrows from another (an allreduce as reduce + bcast, an allgather as gather + bcast,
// a reduce-scatter as reduce + scatter). Internal to the runtime; the entry points are
// Collectives.h.
//
// A file per family, one algorithm per entry of CollDecision's table, as Open MPI's coll/base
// is laid out. The message pattern of each algorithm (who sends what to whom, in which step)
// follows Open MPI 4.1's coll/base implementation of the same name; the local work (copies,
// reductions, temporary buffers) uses only local PMPI calls, so the same code runs on the trace
// transport and on the token machine.
#ifndef MPIETE_RUNTIME_COLL_COLLBASE_H
#define MPIETE_RUNTIME_COLL_COLLBASE_H

#include "CollDecision.h"
#include "Nonblocking.h"
#include "Transport.h"

#include <cstdlib>
#include <cstring>

namespace mpiete::coll {

#define MPIETE_TRY(Expr)                                                                           \
  do {                                                                                             \
    if (const int Rc_ = (Expr); Rc_ != MPI_SUCCESS)                                                \
      return Rc_;                                                                                  \
  } while (0)

// One tag per collective inside the private collective context: the MPI ordering rules keep
// successive collectives on one communicator apart, the tags make a mismatch loud.
inline int tagOf(Coll C) { return 100 + static_cast<int>(C); }

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
  /// Every wait of a lowered collective: inside a non-blocking collective's fiber it may
  /// return to the fiber's caller first (Nonblocking.h). The scaling library's simulated
  /// transport (MPIETE_COLL_BLOCKING_ONLY) runs blocking collectives alone.
  int waitall(int N, MPI_Request *R) const {
#ifndef MPIETE_COLL_BLOCKING_ONLY
    if (nbc::inFiber()) [[unlikely]]
      return nbc::waitPoint(Site, N, R);
#endif
    return transport::waitall(Site, N, R, MPI_STATUSES_IGNORE);
  }
  int wait(MPI_Request *R) const {
#ifndef MPIETE_COLL_BLOCKING_ONLY
    if (nbc::inFiber()) [[unlikely]]
      return nbc::waitPoint(Site, 1, R);
#endif
    return transport::wait(Site, R, MPI_STATUS_IGNORE);
  }
  int send(const void *Buf, int Count, MPI_Datatype T, int Dest) const {
    MPI_Request R;
    MPIETE_TRY(isend(Buf, Count, T, Dest, &R));
    return wait(&R);
  }
  int recv(void *Buf, int Count, MPI_Datatype T, int Src) const {
    MPI_Request R;
    MPIETE_TRY(irecv(Buf, Count, T, Src, &R));
    return wait(&R);
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

inline MPI_Aint extentOf(MPI_Datatype T) {
  MPI_Aint Lb = 0, Extent = 0;
  PMPI_Type_get_extent(T, &Lb, &Extent);
  return Extent;
}
inline int sizeOf(MPI_Datatype T) {
  int S = 0;
  PMPI_Type_size(T, &S);
  return S;
}
inline bool commutative(MPI_Op Op) {
  int C = 1;
  PMPI_Op_commutative(Op, &C);
  return C != 0;
}
/// Element I of a buffer of type T (extent E).
inline char *at(const void *Buf, MPI_Aint I, MPI_Aint E) {
  return static_cast<char *>(const_cast<void *>(Buf)) + I * E;
}

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
int copy(const void *Src, int SCount, MPI_Datatype ST, void *Dst, int RCount, MPI_Datatype RT);

/// InOut = In op InOut (MPI's operand order: In holds the lower ranks).
inline int reduceLocal(const void *In, void *InOut, int Count, MPI_Datatype T, MPI_Op Op) {
  if (Count == 0)
    return MPI_SUCCESS;
  return PMPI_Reduce_local(In, InOut, Count, T, Op);
}

inline int log2Floor(int N) {
  int L = 0;
  while ((2 << L) <= N)
    ++L;
  return L;
}
/// The largest power of two <= N (N >= 1).
inline int pow2Floor(int N) { return 1 << log2Floor(N); }
inline bool isPow2(int N) { return N > 0 && (N & (N - 1)) == 0; }

//===-- Trees (Trees.cpp) -------------------------------------------------------------------===//

constexpr int MaxChildren = 40; // a binomial tree of 2^40 ranks: enough

/// One rank's place in a tree: its parent (-1 at the root) and children in sending order.
struct Tree {
  int Parent = -1;
  int NumChildren = 0;
  int Children[MaxChildren];

  void add(int Child) { Children[NumChildren++] = Child; }
};

inline int shift(int Rank, int Root, int Size) { return (Rank - Root + Size) % Size; }
inline int unshift(int VRank, int Root, int Size) { return (VRank + Root) % Size; }

/// Open MPI's binomial tree (bmtree): the parent clears the highest set bit of the virtual
/// rank; children are the virtual rank plus each higher power of two, smallest first.
Tree binomialTree(int Rank, int Root, int Size);
/// Open MPI's in-order binomial tree: the parent clears the lowest set bit, so every subtree
/// is a contiguous range of virtual ranks [v, v + lowbit(v)).
Tree inOrderBinomialTree(int Rank, int Root, int Size);
/// The subtree of virtual rank V in an in-order binomial tree over Size ranks: [V, V + n).
int inOrderSubtree(int V, int Size);
/// Open MPI's n-ary tree (fanout 2: its "binary" tree).
Tree naryTree(int Rank, int Root, int Size, int Fanout);
/// A single chain root -> root+1 -> ... (Open MPI's chain with one chain, and its pipeline).
Tree chainTree(int Rank, int Root, int Size);
/// Open MPI's k-nomial tree.
Tree knomialTree(int Rank, int Root, int Size, int Radix);
/// Open MPI's in-order binary tree, rooted at Size - 1 (non-commutative reductions).
Tree inOrderBinaryTree(int Rank, int Size);
/// The tree a tree-shaped algorithm of the decision table runs on.
Tree treeFor(Algo A, int Rank, int Root, int Size);

//===-- Algorithms shared between families --------------------------------------------------===//

// Bcast.cpp
int bcastLinear(const Ctx &K, void *Buf, int Count, MPI_Datatype T, int Root);
int bcastWith(const Ctx &K, Algo A, void *Buf, int Count, MPI_Datatype T, int Root);
/// The broadcast its own decision picks.
int bcastImpl(const Ctx &K, void *Buf, int Count, MPI_Datatype T, int Root);

// Reduce.cpp
int reduceLinear(const Ctx &K, const void *In, void *RecvBuf, int Count, MPI_Datatype T, MPI_Op Op,
                 int Root);
int reduceWith(const Ctx &K, Algo A, const void *In, void *RecvBuf, int Count, MPI_Datatype T,
               MPI_Op Op, int Root);

// ReduceMpich.cpp: MPICH's Rabenseifner variants (built-in operations, Count >= the power of
// two below the size: the callers fall back as MPICH's selection does).
bool builtinOp(MPI_Op Op);
int reduceRedscatGather(const Ctx &K, const void *In, void *RecvBuf, int Count, MPI_Datatype T,
                        MPI_Op Op, int Root);
int allreduceRedscatAllgather(const Ctx &K, void *Buf, int Count, MPI_Datatype T, MPI_Op Op);

// ReduceScatterMpich.cpp: MPICH's pairwise exchange (commutative operations) and its
// non-commutative reduce-scatter (butterfly, else recursive doubling); In is out of place.
int reduceScatterPairwise(const Ctx &K, const void *In, void *Out, const int *Counts,
                          const int *Displs, MPI_Datatype T, MPI_Op Op);
int reduceScatterNoncommutative(const Ctx &K, const void *In, void *Out, const int *Counts,
                                const int *Displs, int Total, MPI_Datatype T, MPI_Op Op);

// GatherScatter.cpp: each as its own decision picks.
int gatherImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
               int RCount, MPI_Datatype RT, int Root);
int scatterImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
                int RCount, MPI_Datatype RT, int Root);
int gathervImpl(const Ctx &K, const void *SendBuf, int SCount, MPI_Datatype ST, void *RecvBuf,
                const int *RCounts, const int *Displs, MPI_Datatype RT, int Root);
int scattervImpl(const Ctx &K, const void *SendBuf, const int *SCounts, const int *Displs,
                 MPI_Datatype ST, void *RecvBuf, int RCount, MPI_Datatype RT, int Root);

} // namespace mpiete::coll

#endif // MPIETE_RUNTIME_COLL_COLLBASE_H
