// MPI_Alltoall(v) lowered: linear (all at once), pairwise exchange, or MPICH's Bruck; MPI_Alltoallw
// as Open MPI 4.1's coll/basic (linear, or pair by pair in place).
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {
namespace {

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

/// MPICH's Bruck (small blocks, more than 8 ranks): rotate the blocks so that the one for
/// rank + i comes i-th; at step 2^k send every block whose index has bit k set to rank + 2^k
/// in one message, and receive the same positions from rank - 2^k; block i then came from
/// rank - i. Uniform counts only (MPI_Alltoall).
int alltoallBruck(const Ctx &K, const AlltoallArgs &A) {
  const MPI_Aint N = A.RCount;
  Temp TmpMem, InMem;
  char *Tmp = TmpMem.alloc(N * K.Size, A.RT);
  char *In = InMem.alloc(N * K.Size, A.RT);
  for (int I = 0; I < K.Size; ++I) {
    const int To = (K.Rank + I) % K.Size;
    MPIETE_TRY(copy(A.sptr(To), A.scount(To), A.ST, at(Tmp, I * N, A.RE), A.RCount, A.RT));
  }
  int *Displs = static_cast<int *>(std::malloc(sizeof(int) * K.Size));
  int Rc = MPI_SUCCESS;
  for (int Pof2 = 1; Pof2 < K.Size && Rc == MPI_SUCCESS; Pof2 <<= 1) {
    int Blocks = 0;
    for (int B = 1; B < K.Size; ++B)
      if (B & Pof2)
        Displs[Blocks++] = B * A.RCount;
    OwnedType Picked;
    Rc = PMPI_Type_create_indexed_block(Blocks, A.RCount, Displs, A.RT, &Picked.T);
    if (Rc == MPI_SUCCESS)
      Rc = PMPI_Type_commit(&Picked.T);
    if (Rc == MPI_SUCCESS)
      Rc = K.sendrecv(Tmp, 1, Picked.T, (K.Rank + Pof2) % K.Size, In, 1, Picked.T,
                      (K.Rank - Pof2 + K.Size) % K.Size);
    if (Rc == MPI_SUCCESS)
      Rc = copy(In, 1, Picked.T, Tmp, 1, Picked.T);
  }
  std::free(Displs);
  for (int I = 0; I < K.Size && Rc == MPI_SUCCESS; ++I) {
    const int From = (K.Rank - I + K.Size) % K.Size;
    Rc = copy(at(Tmp, I * N, A.RE), A.RCount, A.RT, A.rptr(From), A.rcount(From), A.RT);
  }
  return Rc;
}

/// MPI_IN_PLACE: the send data is the receive buffer's; work from a copy of it.
int alltoallRun(const Ctx &K, AlltoallArgs A, Coll C, Algo Alg) {
  // MPICH runs an in-place alltoall as pairwise sendrecv_replace whatever the size: one
  // exchange per pair, the messages of the linear algorithm.
  if (Alg == Algo::Bruck && (A.SBuf == MPI_IN_PLACE || C != Coll::Alltoall))
    Alg = Algo::Linear;
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
  if (Alg == Algo::Bruck)
    return alltoallBruck(K, A);
  return alltoallLinear(K, A, C == Coll::Alltoallv);
}

} // namespace

//===-- Entry points ------------------------------------------------------------------------===//

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

int alltoallw(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
              const int SendDispls[], const MPI_Datatype SendTypes[], void *RecvBuf,
              const int RecvCounts[], const int RecvDispls[], const MPI_Datatype RecvTypes[],
              MPI_Comm Comm) {
  // Open MPI 4.1 has no tuned alltoallw: coll/basic's serves it, and MPICH's is the same linear
  // exchange. Displacements are in bytes; a peer whose block is empty exchanges nothing.
  const Ctx K(Site, Comm, Coll::Alltoallw);
  char *R = static_cast<char *>(RecvBuf);
  auto Empty = [](int N, MPI_Datatype T) { return N == 0 || sizeOf(T) == 0; };
  if (SendBuf == MPI_IN_PLACE) {
    // Pair by pair (i < j, in order): each side copies the block it holds for the other,
    // receives the other's into its place and sends the copy, then waits.
    for (int I = 0; I < K.Size; ++I)
      for (int J = I + 1; J < K.Size; ++J) {
        const int Peer = I == K.Rank ? J : J == K.Rank ? I : -1;
        if (Peer < 0 || Empty(RecvCounts[Peer], RecvTypes[Peer]))
          continue;
        char *Block = R + RecvDispls[Peer];
        Temp Saved;
        char *Tmp = Saved.alloc(RecvCounts[Peer], RecvTypes[Peer]);
        MPIETE_TRY(
            copy(Block, RecvCounts[Peer], RecvTypes[Peer], Tmp, RecvCounts[Peer], RecvTypes[Peer]));
        MPI_Request Q;
        MPIETE_TRY(K.irecv(Block, RecvCounts[Peer], RecvTypes[Peer], Peer, &Q));
        MPIETE_TRY(K.send(Tmp, RecvCounts[Peer], RecvTypes[Peer], Peer));
        MPIETE_TRY(K.wait(&Q));
      }
    return MPI_SUCCESS;
  }
  const char *S = static_cast<const char *>(SendBuf);
  MPIETE_TRY(copy(S + SendDispls[K.Rank], SendCounts[K.Rank], SendTypes[K.Rank],
                  R + RecvDispls[K.Rank], RecvCounts[K.Rank], RecvTypes[K.Rank]));
  if (K.Size == 1)
    return MPI_SUCCESS;
  MPI_Request *Reqs =
      static_cast<MPI_Request *>(std::malloc(sizeof(MPI_Request) * 2 * size_t(K.Size)));
  int N = 0, Rc = MPI_SUCCESS;
  for (int I = 0; I < K.Size && Rc == MPI_SUCCESS; ++I)
    if (I != K.Rank && !Empty(RecvCounts[I], RecvTypes[I]))
      Rc = K.irecv(R + RecvDispls[I], RecvCounts[I], RecvTypes[I], I, &Reqs[N++]);
  for (int I = 0; I < K.Size && Rc == MPI_SUCCESS; ++I)
    if (I != K.Rank && !Empty(SendCounts[I], SendTypes[I]))
      Rc = K.isend(S + SendDispls[I], SendCounts[I], SendTypes[I], I, &Reqs[N++]);
  if (Rc == MPI_SUCCESS && N > 0)
    Rc = K.waitall(N, Reqs);
  std::free(Reqs);
  return Rc;
}

} // namespace mpiete::coll
