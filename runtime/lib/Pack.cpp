// MPI_Pack / MPI_Unpack from and into MPI_BOTTOM (Pack.h), for MPICH 4.0.2, which rejects it.
#include "Pack.h"

#include <cstdint>

namespace mpiete {
namespace {

/// Count elements of Type at Buf restated as one element of a committed struct type whose one
/// block (the Count elements of Type) lies at -TrueLb from Base, the address of Type's lowest
/// byte: the same bytes in the same order (the elements still repeat at Type's extent), from a
/// non-null address whenever the message touches any byte. Freed with the object.
class Rebased {
public:
  Rebased(const void *Buf, int Count, MPI_Datatype Type) {
    MPI_Aint TrueLb = 0, TrueExtent = 0;
    Rc = PMPI_Type_get_true_extent(Type, &TrueLb, &TrueExtent);
    if (Rc != MPI_SUCCESS)
      return;
    const MPI_Aint Disp = -TrueLb;
    Rc = PMPI_Type_create_struct(1, &Count, &Disp, &Type, &Shifted);
    if (Rc != MPI_SUCCESS) {
      Shifted = MPI_DATATYPE_NULL;
      return;
    }
    Rc = PMPI_Type_commit(&Shifted);
    // Integer arithmetic: MPI_BOTTOM is a null pointer, which C++ does not let one offset.
    Base =
        reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(Buf) + static_cast<uintptr_t>(TrueLb));
  }
  ~Rebased() {
    if (Shifted != MPI_DATATYPE_NULL)
      PMPI_Type_free(&Shifted);
  }
  Rebased(const Rebased &) = delete;
  Rebased &operator=(const Rebased &) = delete;

  int Rc = MPI_SUCCESS;
  MPI_Datatype Shifted = MPI_DATATYPE_NULL;
  void *Base = nullptr;
};

} // namespace

int packFromBottom(const void *Buf, int Count, MPI_Datatype Type, void *Out, int OutSize,
                   int *Position, MPI_Comm Comm) {
  if (Count <= 0)
    return PMPI_Pack(Buf, Count, Type, Out, OutSize, Position, Comm);
  const Rebased R(Buf, Count, Type);
  if (R.Rc != MPI_SUCCESS)
    return R.Rc;
  return PMPI_Pack(R.Base, 1, R.Shifted, Out, OutSize, Position, Comm);
}

int unpackToBottom(const void *In, int InSize, int *Position, void *Buf, int Count,
                   MPI_Datatype Type, MPI_Comm Comm) {
  if (Count <= 0)
    return PMPI_Unpack(In, InSize, Position, Buf, Count, Type, Comm);
  const Rebased R(Buf, Count, Type);
  if (R.Rc != MPI_SUCCESS)
    return R.Rc;
  return PMPI_Unpack(In, InSize, Position, R.Base, 1, R.Shifted, Comm);
}

} // namespace mpiete
