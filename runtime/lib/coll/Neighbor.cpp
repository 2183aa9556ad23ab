// The neighbourhood collectives (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v, w)) on a
// Cartesian communicator, lowered as Open MPI 4.1's coll/basic lowers them: along each
// dimension d the neighbours are the source and the destination of a shift by +1 (block 2d from
// and to the source, block 2d + 1 from and to the destination); every receive is posted first,
// dimension by dimension, then every send, then one wait for all. A neighbour that does not
// exist (MPI_PROC_NULL at a non-periodic edge) keeps its block but exchanges nothing; a
// periodic dimension of size 1 makes the rank its own neighbour twice. Each direction of a
// dimension has its own tag (a block sent to the source arrives as the source's block from its
// destination), so where both neighbours are one rank (a periodic dimension of size 1 or 2)
// the blocks still land by direction, as Open MPI 4.1 delivers them; MPICH 4.0 matches such
// blocks in posting order instead (docs/collectives.md).
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

/// Up to this many dimensions without a heap allocation (4 requests per dimension).
constexpr int MaxInlineDims = 8;

/// Comm's number of Cartesian dimensions; MPI_ERR_TOPOLOGY unless it has a Cartesian topology
/// (graph topologies are not lowered).
int cartDims(MPI_Comm Comm, int &NDims) {
  int Status = MPI_UNDEFINED;
  MPIETE_TRY(PMPI_Topo_test(Comm, &Status));
  if (Status != MPI_CART)
    return MPI_ERR_TOPOLOGY;
  return PMPI_Cartdim_get(Comm, &NDims);
}

/// A rank's 2 x ndims Cartesian neighbours in MPI's order: along each dimension the source,
/// then the destination of a shift by +1 (MPI_Cart_shift: MPI_PROC_NULL at a non-periodic edge,
/// the rank itself along a periodic dimension of size 1).
class CartNeighbors {
public:
  CartNeighbors() = default;
  CartNeighbors(const CartNeighbors &) = delete;
  CartNeighbors &operator=(const CartNeighbors &) = delete;
  ~CartNeighbors() {
    if (Peers != Inline)
      std::free(Peers);
  }

  int read(MPI_Comm Comm) {
    int NDims = 0;
    MPIETE_TRY(cartDims(Comm, NDims));
    Count = 2 * NDims;
    if (NDims > MaxInlineDims)
      Peers = static_cast<int *>(std::malloc(sizeof(int) * size_t(Count)));
    for (int K = 0; K < NDims; ++K)
      MPIETE_TRY(PMPI_Cart_shift(Comm, K, 1, &Peers[2 * K], &Peers[2 * K + 1]));
    return MPI_SUCCESS;
  }
  int count() const { return Count; }
  int peer(int I) const { return Peers[I]; }

private:
  int Inline[2 * MaxInlineDims];
  int *Peers = Inline;
  int Count = 0;
};

/// What one call sends and receives per neighbour index.
struct NeighborArgs {
  const void *SBuf = nullptr;
  MPI_Datatype ST = MPI_DATATYPE_NULL;
  void *RBuf = nullptr;
  MPI_Datatype RT = MPI_DATATYPE_NULL;
  const int *SCounts = nullptr, *SDispls = nullptr; // null: uniform blocks
  const int *RCounts = nullptr, *RDispls = nullptr;
  int SCount = 0, RCount = 0;
  bool SameSend = false; // allgather: every neighbour gets the whole send buffer
  // MPI_Neighbor_alltoallw: a type per neighbour, displacements in bytes (then ST, RT,
  // SDispls and RDispls are unused).
  const MPI_Datatype *STypes = nullptr, *RTypes = nullptr;
  const MPI_Aint *SBytes = nullptr, *RBytes = nullptr;

  int scount(int I) const { return SCounts ? SCounts[I] : SCount; }
  int rcount(int I) const { return RCounts ? RCounts[I] : RCount; }
  MPI_Datatype stype(int I) const { return STypes ? STypes[I] : ST; }
  MPI_Datatype rtype(int I) const { return RTypes ? RTypes[I] : RT; }
  const char *sptr(int I) const {
    if (SBytes)
      return static_cast<const char *>(SBuf) + SBytes[I];
    if (SameSend)
      return static_cast<const char *>(SBuf);
    return at(SBuf, SDispls ? SDispls[I] : static_cast<MPI_Aint>(I) * SCount, extentOf(ST));
  }
  char *rptr(int I) const {
    if (RBytes)
      return static_cast<char *>(RBuf) + RBytes[I];
    return at(RBuf, RDispls ? RDispls[I] : static_cast<MPI_Aint>(I) * RCount, extentOf(RT));
  }
};

int neighborRun(mpiete_site_t Site, MPI_Comm Comm, Coll C, const NeighborArgs &A) {
  const Ctx K(Site, Comm, C);
  CartNeighbors N;
  MPIETE_TRY(N.read(Comm));
  const int Count = N.count();
  MPI_Request Inline[4 * MaxInlineDims];
  MPI_Request *Reqs =
      Count <= 2 * MaxInlineDims
          ? Inline
          : static_cast<MPI_Request *>(std::malloc(sizeof(MPI_Request) * 2 * size_t(Count)));
  // Tag Base + I: what arrives as block I (from neighbour I, sent as its block I ^ 1). The kind
  // times 1024 keeps every tag below 32767, the least MPI_TAG_UB MPI allows.
  Ctx D = K;
  const int Base = static_cast<int>(C) * 1024;
  int NReqs = 0, Rc = MPI_SUCCESS;
  for (int I = 0; I < Count && Rc == MPI_SUCCESS; ++I)
    if (N.peer(I) != MPI_PROC_NULL) {
      D.Tag = Base + I;
      Rc = D.irecv(A.rptr(I), A.rcount(I), A.rtype(I), N.peer(I), &Reqs[NReqs++]);
    }
  for (int I = 0; I < Count && Rc == MPI_SUCCESS; ++I)
    if (N.peer(I) != MPI_PROC_NULL) {
      D.Tag = Base + (I ^ 1);
      Rc = D.isend(A.sptr(I), A.scount(I), A.stype(I), N.peer(I), &Reqs[NReqs++]);
    }
  if (Rc == MPI_SUCCESS && NReqs > 0)
    Rc = D.waitall(NReqs, Reqs);
  if (Reqs != Inline)
    std::free(Reqs);
  return Rc;
}

} // namespace

int neighborCount(MPI_Comm Comm) {
  int NDims = 0;
  return cartDims(Comm, NDims) == MPI_SUCCESS ? 2 * NDims : 0;
}

int neighborAllgather(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
                      void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm) {
  const NeighborArgs A{.SBuf = SendBuf,
                       .ST = SendType,
                       .RBuf = RecvBuf,
                       .RT = RecvType,
                       .SCount = SendCount,
                       .RCount = RecvCount,
                       .SameSend = true};
  return neighborRun(Site, Comm, Coll::NeighborAllgather, A);
}

int neighborAllgatherv(mpiete_site_t Site, const void *SendBuf, int SendCount,
                       MPI_Datatype SendType, void *RecvBuf, const int RecvCounts[],
                       const int Displs[], MPI_Datatype RecvType, MPI_Comm Comm) {
  const NeighborArgs A{.SBuf = SendBuf,
                       .ST = SendType,
                       .RBuf = RecvBuf,
                       .RT = RecvType,
                       .RCounts = RecvCounts,
                       .RDispls = Displs,
                       .SCount = SendCount,
                       .SameSend = true};
  return neighborRun(Site, Comm, Coll::NeighborAllgatherv, A);
}

int neighborAlltoall(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
                     void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm) {
  const NeighborArgs A{.SBuf = SendBuf,
                       .ST = SendType,
                       .RBuf = RecvBuf,
                       .RT = RecvType,
                       .SCount = SendCount,
                       .RCount = RecvCount};
  return neighborRun(Site, Comm, Coll::NeighborAlltoall, A);
}

int neighborAlltoallv(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
                      const int SendDispls[], MPI_Datatype SendType, void *RecvBuf,
                      const int RecvCounts[], const int RecvDispls[], MPI_Datatype RecvType,
                      MPI_Comm Comm) {
  const NeighborArgs A{.SBuf = SendBuf,
                       .ST = SendType,
                       .RBuf = RecvBuf,
                       .RT = RecvType,
                       .SCounts = SendCounts,
                       .SDispls = SendDispls,
                       .RCounts = RecvCounts,
                       .RDispls = RecvDispls};
  return neighborRun(Site, Comm, Coll::NeighborAlltoallv, A);
}

int neighborAlltoallw(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
                      const MPI_Aint SendDispls[], const MPI_Datatype SendTypes[], void *RecvBuf,
                      const int RecvCounts[], const MPI_Aint RecvDispls[],
                      const MPI_Datatype RecvTypes[], MPI_Comm Comm) {
  const NeighborArgs A{.SBuf = SendBuf,
                       .RBuf = RecvBuf,
                       .SCounts = SendCounts,
                       .RCounts = RecvCounts,
                       .STypes = SendTypes,
                       .RTypes = RecvTypes,
                       .SBytes = SendDispls,
                       .RBytes = RecvDispls};
  return neighborRun(Site, Comm, Coll::NeighborAlltoallw, A);
}

} // namespace mpiete::coll
