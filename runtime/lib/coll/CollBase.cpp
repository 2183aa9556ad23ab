// The local work the collective families share: copying between datatypes (MPI_BOTTOM included).
#include "CollBase.h"
#include "Pack.h"

namespace mpiete::coll {

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
  int Rc = packMessage(Src, SCount, ST, Packed, PackBytes, &Position, MPI_COMM_SELF);
  if (Rc == MPI_SUCCESS) {
    const int RSize = sizeOf(RT);
    const int Whole = RSize > 0 ? Position / RSize : 0;
    const int N = Whole < RCount ? Whole : RCount;
    int Out = 0;
    if (N > 0)
      Rc = unpackMessage(Packed, Position, &Out, Dst, N, RT, MPI_COMM_SELF);
  }
  std::free(Packed);
  return Rc;
}

} // namespace mpiete::coll
