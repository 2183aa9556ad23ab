// MPI_Barrier lowered: linear, recursive doubling, two-process and Bruck (dissemination).
#include "CollBase.h"
#include "Collectives.h"

namespace mpiete::coll {

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

} // namespace mpiete::coll
