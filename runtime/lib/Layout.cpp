// Decodes a datatype's pieces from its constructor (MPI_Type_get_envelope/get_contents), the
// only portable way: neither Open MPI nor MPICH says how many contiguous pieces a committed
// type has.
#include "Layout.h"

#include "mpiete/TraceFormat.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace mpiete {

namespace {

constexpr int MaxDepth = 16;

bool named(MPI_Datatype T) {
  int Ni = 0, Na = 0, Nd = 0, Combiner = MPI_COMBINER_NAMED;
  return PMPI_Type_get_envelope(T, &Ni, &Na, &Nd, &Combiner) != MPI_SUCCESS ||
         Combiner == MPI_COMBINER_NAMED;
}

/// One element of T is one piece and consecutive elements adjoin: its bytes, its extent and
/// its true extent are the same.
bool dense(MPI_Datatype T) {
  int Size = 0;
  MPI_Aint Lb = 0, Extent = 0, TrueLb = 0, TrueExtent = 0;
  if (PMPI_Type_size(T, &Size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(T, &Lb, &Extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(T, &TrueLb, &TrueExtent) != MPI_SUCCESS)
    return false;
  return Size > 0 && MPI_Aint(Size) == Extent && Extent == TrueExtent && Lb == TrueLb;
}

double pieces(MPI_Datatype T, int Depth);

/// N blocks of Length elements of Old each: a piece per block where Old has no gaps.
double blocks(double N, double Length, MPI_Datatype Old, int Depth) {
  if (N <= 0 || Length <= 0)
    return 0;
  if (dense(Old))
    return N;
  const double P = pieces(Old, Depth + 1);
  return P < 0 ? -1 : N * Length * P;
}

/// The decoded constructor's arrays, freed (with the derived types it returned) on scope exit.
struct Contents {
  int Ni = 0, Na = 0, Nd = 0, Combiner = MPI_COMBINER_NAMED;
  int *Ints = nullptr;
  MPI_Aint *Addrs = nullptr;
  MPI_Datatype *Types = nullptr;
  bool Ok = false;
  explicit Contents(MPI_Datatype T) {
    if (PMPI_Type_get_envelope(T, &Ni, &Na, &Nd, &Combiner) != MPI_SUCCESS ||
        Combiner == MPI_COMBINER_NAMED)
      return;
    Ints = static_cast<int *>(std::malloc(sizeof(int) * size_t(Ni > 0 ? Ni : 1)));
    Addrs = static_cast<MPI_Aint *>(std::malloc(sizeof(MPI_Aint) * size_t(Na > 0 ? Na : 1)));
    Types = static_cast<MPI_Datatype *>(std::calloc(size_t(Nd > 0 ? Nd : 1), sizeof(MPI_Datatype)));
    if (!Ints || !Addrs || !Types)
      return;
    for (int I = 0; I < Nd; ++I)
      Types[I] = MPI_DATATYPE_NULL;
    Ok = PMPI_Type_get_contents(T, Ni, Na, Nd, Ints, Addrs, Types) == MPI_SUCCESS;
  }
  ~Contents() {
    if (Types && Ok)
      for (int I = 0; I < Nd; ++I)
        if (Types[I] != MPI_DATATYPE_NULL && !named(Types[I]))
          PMPI_Type_free(&Types[I]);
    std::free(Ints);
    std::free(Addrs);
    std::free(Types);
  }
  Contents(const Contents &) = delete;
  Contents &operator=(const Contents &) = delete;
};

/// A subarray of Old: the fastest dimensions taken whole merge with the next one into a piece.
double subarray(const int *Ints, MPI_Datatype Old, int Depth) {
  const int N = Ints[0];
  const int *Sizes = Ints + 1, *Sub = Ints + 1 + N;
  const bool C = Ints[1 + 3 * N] == MPI_ORDER_C;
  double Total = 1;
  for (int D = 0; D < N; ++D)
    Total *= Sub[D];
  if (Total <= 0)
    return 0;
  if (!dense(Old)) {
    const double P = pieces(Old, Depth + 1);
    return P < 0 ? -1 : Total * P;
  }
  // Walk from the fastest dimension while it is taken whole; the first one cut ends the piece.
  double Pieces = Total;
  for (int K = 0; K < N; ++K) {
    const int D = C ? N - 1 - K : K;
    Pieces /= Sub[D];
    if (Sub[D] != Sizes[D])
      break;
  }
  return Pieces;
}

double pieces(MPI_Datatype T, int Depth) {
  if (Depth > MaxDepth)
    return -1;
  if (dense(T))
    return 1;
  Contents K(T);
  if (K.Combiner == MPI_COMBINER_NAMED)
    return 1; // a predefined pair type (MPI_DOUBLE_INT and the like): close enough
  if (!K.Ok)
    return -1;
  const int *I = K.Ints;
  switch (K.Combiner) {
  case MPI_COMBINER_DUP:
  case MPI_COMBINER_RESIZED:
    return pieces(K.Types[0], Depth + 1);
  case MPI_COMBINER_CONTIGUOUS:
    return blocks(I[0], 1, K.Types[0], Depth);
  case MPI_COMBINER_VECTOR:
  case MPI_COMBINER_HVECTOR:
    return blocks(I[0], I[1], K.Types[0], Depth);
  case MPI_COMBINER_INDEXED_BLOCK:
  case MPI_COMBINER_HINDEXED_BLOCK:
    return blocks(I[0], I[1], K.Types[0], Depth);
  case MPI_COMBINER_INDEXED:
  case MPI_COMBINER_HINDEXED: {
    double Sum = 0;
    for (int B = 0; B < I[0]; ++B) {
      const double P = blocks(1, I[1 + B], K.Types[0], Depth);
      if (P < 0)
        return -1;
      Sum += P;
    }
    return Sum;
  }
  case MPI_COMBINER_STRUCT: {
    double Sum = 0;
    for (int B = 0; B < I[0]; ++B) {
      const double P = blocks(1, I[1 + B], K.Types[B], Depth);
      if (P < 0)
        return -1;
      Sum += P;
    }
    return Sum;
  }
  case MPI_COMBINER_SUBARRAY:
    return subarray(I, K.Types[0], Depth);
  default: // darray, and the Fortran 90 parameterised types (named-like, dense above)
    return -1;
  }
}

/// The attribute caching a derived type's pieces (value + 2, so that 0 means none); created
/// on first use, never freed (one per process).
int PiecesKey = MPI_KEYVAL_INVALID;

} // namespace

double piecesOf(MPI_Datatype Type) { return pieces(Type, 0); }

uint8_t layoutOf(int Count, MPI_Datatype Type) {
  if (Count <= 0 || Type == MPI_DATATYPE_NULL || named(Type))
    return trace::LayoutContiguous;
  if (PiecesKey == MPI_KEYVAL_INVALID &&
      PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &PiecesKey,
                              nullptr) != MPI_SUCCESS)
    PiecesKey = MPI_KEYVAL_INVALID;
  // Cached: pieces per element (+ 2), and whether consecutive elements adjoin (the low bit).
  intptr_t Cached = 0;
  if (PiecesKey != MPI_KEYVAL_INVALID) {
    void *Value = nullptr;
    int Found = 0;
    if (PMPI_Type_get_attr(Type, PiecesKey, &Value, &Found) == MPI_SUCCESS && Found)
      Cached = reinterpret_cast<intptr_t>(Value);
  }
  if (Cached == 0) {
    const bool Dense = dense(Type);
    const double P = Dense ? 1 : pieces(Type, 0);
    const intptr_t Stored = P < 0 ? 0 : P > double(INTPTR_MAX / 4) ? INTPTR_MAX / 4 : intptr_t(P);
    Cached = ((Stored + 1) << 1) | (Dense ? 1 : 0);
    if (PiecesKey != MPI_KEYVAL_INVALID)
      PMPI_Type_set_attr(Type, PiecesKey, reinterpret_cast<void *>(Cached));
  }
  if (Cached & 1)
    return trace::LayoutContiguous;
  const intptr_t Pieces = (Cached >> 1) - 1;
  if (Pieces <= 0)
    return trace::LayoutUnknown;
  if (Pieces == 1 && Count == 1)
    return trace::LayoutContiguous; // one piece (with gaps around it: an extent set wider)
  int Size = 0;
  PMPI_Type_size(Type, &Size);
  if (Size <= 0)
    return trace::LayoutContiguous;
  return trace::classOfPiece(double(Size) / double(Pieces));
}

} // namespace mpiete
