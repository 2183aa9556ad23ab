// MPI_Bcast lowered: linear, the generic tree broadcast over the tree of the decision, or
// MPICH's scatter + allgather.
#include "CollBase.h"
#include "Collectives.h"
#include "Pack.h"

#include <algorithm>
#include <cstdlib>

namespace mpiete::coll {
namespace {

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

/// MPICH's scatter + allgather broadcast, on the packed bytes: the root's bytes are cut into
/// Size chunks of ceil(Bytes / Size) (the last ones short or empty), scattered down MPICH's
/// binomial tree (a rank receives the bytes from its chunk on, sends each child the part from
/// the child's chunk on), then gathered by recursive doubling (a power-of-two size and
/// Doubling) or a ring (every step a sendrecv, empty chunks included, as MPICH sends them).
int bcastScatterAllgather(const Ctx &K, void *Buf, int Count, MPI_Datatype T, int Root,
                          bool Doubling) {
  const long Bytes = static_cast<long>(sizeOf(T)) * Count;
  const int P = K.Size;
  const long Chunk = (Bytes + P - 1) / P;
  const int Rel = (K.Rank - Root + P) % P;
  Temp TmpMem;
  char *Tmp = TmpMem.alloc(Bytes, MPI_BYTE);
  int Pos = 0;
  if (Rel == 0)
    MPIETE_TRY(packMessage(Buf, Count, T, Tmp, static_cast<int>(Bytes), &Pos, K.Comm));
  // The bytes from chunk C on, up to Bytes, clamped at 0.
  auto From = [&](long C) { return std::max(0L, Bytes - C * Chunk); };
  auto Within = [&](long C) { return std::min(Chunk, From(C)); };
  // Scatter.
  long Curr = Rel == 0 ? Bytes : 0;
  int Mask = 1;
  for (; Mask < P; Mask <<= 1)
    if (Rel & Mask) {
      const int Src = (K.Rank - Mask + P) % P;
      Curr = std::min(From(Rel), Mask * Chunk); // the chunks of my subtree
      if (Curr > 0)
        MPIETE_TRY(K.recv(Tmp + Rel * Chunk, static_cast<int>(Curr), MPI_BYTE, Src));
      break;
    }
  for (Mask >>= 1; Mask > 0; Mask >>= 1)
    if (Rel + Mask < P) {
      const long Send = Curr - Chunk * Mask;
      if (Send > 0) {
        MPIETE_TRY(K.send(Tmp + (Rel + Mask) * Chunk, static_cast<int>(Send), MPI_BYTE,
                          (K.Rank + Mask) % P));
        Curr -= Send;
      }
    }
  // Allgather.
  if (Doubling && (P & (P - 1)) == 0) {
    Curr = Within(Rel);
    for (int M = 1, I = 0; M < P; M <<= 1, ++I) {
      const int RelDst = Rel ^ M;
      const long MyRoot = static_cast<long>(Rel >> I) << I;
      const long DstRoot = static_cast<long>(RelDst >> I) << I;
      const long RecvSize = std::min(From(DstRoot), M * Chunk);
      MPIETE_TRY(K.sendrecv(Tmp + std::min(MyRoot * Chunk, Bytes), static_cast<int>(Curr), MPI_BYTE,
                            (RelDst + Root) % P, Tmp + std::min(DstRoot * Chunk, Bytes),
                            static_cast<int>(RecvSize), MPI_BYTE, (RelDst + Root) % P));
      Curr += RecvSize;
    }
  } else {
    const int Left = (K.Rank - 1 + P) % P, Right = (K.Rank + 1) % P;
    int J = K.Rank, JNext = Left;
    for (int I = 1; I < P; ++I) {
      const long RelJ = (J - Root + P) % P, RelNext = (JNext - Root + P) % P;
      MPIETE_TRY(K.sendrecv(Tmp + std::min(RelJ * Chunk, Bytes), static_cast<int>(Within(RelJ)),
                            MPI_BYTE, Right, Tmp + std::min(RelNext * Chunk, Bytes),
                            static_cast<int>(Within(RelNext)), MPI_BYTE, Left));
      J = JNext;
      JNext = (JNext - 1 + P) % P;
    }
  }
  Pos = 0;
  if (Rel != 0)
    MPIETE_TRY(unpackMessage(Tmp, static_cast<int>(Bytes), &Pos, Buf, Count, T, K.Comm));
  return MPI_SUCCESS;
}

} // namespace

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

int bcastWith(const Ctx &K, Algo A, void *Buf, int Count, MPI_Datatype T, int Root) {
  if (A == Algo::Linear)
    return bcastLinear(K, Buf, Count, T, Root);
  if (A == Algo::ScatterDoubling || A == Algo::ScatterRing)
    return bcastScatterAllgather(K, Buf, Count, T, Root, A == Algo::ScatterDoubling);
  return bcastTree(K, treeFor(A, K.Rank, Root, K.Size), Buf, Count, T);
}

int bcastImpl(const Ctx &K, void *Buf, int Count, MPI_Datatype T, int Root) {
  if (K.Size == 1 || Count == 0)
    return MPI_SUCCESS;
  const uint64_t Bytes = static_cast<uint64_t>(sizeOf(T)) * static_cast<uint64_t>(Count);
  return bcastWith(K, decide(Coll::Bcast, K.Size, Bytes, true), Buf, Count, T, Root);
}

//===-- Entry points ------------------------------------------------------------------------===//

int bcast(mpiete_site_t Site, void *Buf, int Count, MPI_Datatype Type, int Root, MPI_Comm Comm) {
  return bcastImpl(Ctx(Site, Comm, Coll::Bcast), Buf, Count, Type, Root);
}

} // namespace mpiete::coll
