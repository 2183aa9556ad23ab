// MPI_Bcast lowered: linear, or the generic tree broadcast over the tree of the decision.
#include "CollBase.h"
#include "Collectives.h"

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
