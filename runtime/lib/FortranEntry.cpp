// The Fortran-callable MPI entry points: an instrumented Fortran source calls
// `mpiete_x(UNIT, IDX, args..., ierr)` for `MPI_X(args..., ierr)`, and `mpiete_x(UNIT,
// -(IDX + 1), args...)` for mpi_f08's `MPI_X(args...)` without ierror (callSite, errorOut). Each
// entry point converts MPI's Fortran arguments to C (handles, statuses, LOGICALs, the MPI_IN_PLACE
// / MPI_BOTTOM / MPI_STATUS(ES)_IGNORE sentinels, request handles) and calls the C entry point of
// routines.def, so the MPI logic exists once (in MpiEntry.cpp and the transport) and the
// Fortran entry points behave the same under both variants.
//
// One line per routine below gives its Fortran parameters as conversion types (FBuf, FInt,
// FComm, ...); forward() deduces the C call from them. A routine added to routines.def
// without a line here fails to compile. The array completions (Waitall, Waitany, Waitsome,
// Testall, Testany, Testsome), whose arrays are sized by another argument, and MPI_Init
// (Fortran has no argc/argv) are written out.
//
// External names: gfortran's `mpiete_x_`, and `mpiete_x__` (g77 / -fsecond-underscore). The
// plain `mpiete_x` is the C entry point itself, so compilers that add no underscore are not
// served.
//
// Requests: the transport's requests need not be MPI's own (the token machine's are not), so
// MPI_Request_c2f cannot name them. Every request the runtime starts gets a Fortran handle
// from a runtime-side table instead (RequestTable), in a range Open MPI's handles (small
// indices) never reach; completing or freeing it releases the slot and sets the Fortran
// handle to MPI_REQUEST_NULL. A handle outside that range (a request the user's code made
// through a routine mpiete does not rewrite) goes through MPI_Request_f2c.
#include "Fortran.h"
#include "Recorder.h"
#include "Util.h"
#include "coll/Collectives.h"
#include "mpiete/BlockId.h"

#include <cstdlib>
#include <tuple>

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM are common blocks (mpif-sentinels.h, also
// used by the `mpi` module): the Fortran code passes their addresses, and Open MPI's own
// Fortran wrappers compare against them (OMPI_IS_FORTRAN_IN_PLACE / OMPI_IS_FORTRAN_BOTTOM).
// The symbol follows the Fortran compiler's naming, so all four spellings are declared weak:
// the ones nobody defines have address null. MPICH keeps all four sentinels in common blocks
// of mpif.h and its `mpi` module: /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(5) and
// /MPIPRIV2/ MPI_STATUSES_IGNORE (gfortran names them mpipriv1_, mpipriv2_), and it sets its C
// MPI_F_STATUS_IGNORE only in its own Fortran MPI_Init, which the probes replace.
// MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE have a standard C name for their Fortran
// address: MPI_F_STATUS_IGNORE / MPI_F_STATUSES_IGNORE.
extern "C" {
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int mpipriv1_[7] __attribute__((weak)); // MPICH: BOTTOM, IN_PLACE, STATUS_IGNORE(5)
extern int mpipriv2_[1] __attribute__((weak)); // MPICH: STATUSES_IGNORE
}

namespace mpiete::fortran {
namespace {

/// The call site's block id: its index as written (mpiete/BlockId.h, writtenIndex), so also
/// for a call without ierror.
mpiete_site_t callSite(const MPI_Fint *Unit, const MPI_Fint *Idx) {
  return makeBlockId(static_cast<uint32_t>(*Unit), writtenIndex(*Idx));
}

/// Where the entry point writes its error code: the caller's ierror, or, for a call site that
/// passes none (a negative index), a place nobody reads (that argument was never passed).
MPI_Fint *errorOut(const MPI_Fint *Idx, MPI_Fint *Ierr) {
  static thread_local MPI_Fint Unread;
  return *Idx < 0 ? &Unread : Ierr;
}

bool isOneOf(const void *P, const void *A, const void *B, const void *C, const void *D) {
  return P != nullptr && (P == A || P == B || P == C || P == D);
}

/// A choice buffer from Fortran: the sentinels become C's MPI_IN_PLACE / MPI_BOTTOM.
void *buffer(void *P) {
  if (isOneOf(P, &MPI_FORTRAN_IN_PLACE, &mpi_fortran_in_place, &mpi_fortran_in_place_,
              &mpi_fortran_in_place__))
    return MPI_IN_PLACE;
  if (mpipriv1_ != nullptr && (P == &mpipriv1_[1] || P == &mpipriv1_[0]))
    return P == &mpipriv1_[1] ? MPI_IN_PLACE : MPI_BOTTOM;
  if (isOneOf(P, &MPI_FORTRAN_BOTTOM, &mpi_fortran_bottom, &mpi_fortran_bottom_,
              &mpi_fortran_bottom__))
    return MPI_BOTTOM;
  return P;
}

/// INTEGERs per Fortran status (MPI_STATUS_SIZE): Open MPI's Fortran status is the C struct's
/// words, which MPI_Status_c2f copies.
constexpr int StatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);

bool ignoreStatus(const MPI_Fint *F) {
  return F == MPI_F_STATUS_IGNORE || (mpipriv1_ != nullptr && F == &mpipriv1_[2]);
}
bool ignoreStatuses(const MPI_Fint *F) {
  return F == MPI_F_STATUSES_IGNORE || (mpipriv2_ != nullptr && F == &mpipriv2_[0]);
}

constinit Scratch<MPI_Request> RequestScratch;
constinit Scratch<MPI_Status> StatusScratch;

/// Fortran handles of the runtime's requests: slot I is handle Base + I. A free slot holds
/// MPI_REQUEST_NULL (a live request never is) and sits on the free list.
class RequestTable {
public:
  /// Open MPI's Fortran request handles are indices into its own table, from 0 up; MPICH's
  /// carry their object kind in bits 26..31, and kind 0 is never a request.
  static constexpr MPI_Fint Base = 0x40000000;

  /// The C request behind a Fortran handle.
  MPI_Request toC(MPI_Fint F) {
    if (F == nullHandle())
      return MPI_REQUEST_NULL;
    if (MPI_Request *S = slot(F)) {
      if (*S == MPI_REQUEST_NULL)
        Recorder::get().fail("Fortran request handle %d is not an active request", F);
      return *S;
    }
    return PMPI_Request_f2c(F);
  }

  /// A handle for a request the runtime just started.
  MPI_Fint add(MPI_Request C) {
    if (C == MPI_REQUEST_NULL)
      return nullHandle();
    if (FreeCount == 0) [[unlikely]]
      grow();
    const uint32_t I = Free[--FreeCount];
    Slots[I] = C;
    return Base + static_cast<MPI_Fint>(I);
  }

  /// After a completion or free call left the C request C for handle F: a completed request
  /// releases its slot and F becomes MPI_REQUEST_NULL.
  void update(MPI_Fint &F, MPI_Request C) {
    MPI_Request *S = slot(F);
    if (C == MPI_REQUEST_NULL) {
      if (S != nullptr && *S != MPI_REQUEST_NULL) {
        *S = MPI_REQUEST_NULL;
        Free[FreeCount++] = static_cast<uint32_t>(F - Base);
      }
      F = nullHandle();
    } else if (S != nullptr) {
      *S = C;
    }
  }

private:
  static MPI_Fint nullHandle() { return PMPI_Request_c2f(MPI_REQUEST_NULL); }

  MPI_Request *slot(MPI_Fint F) {
    if (F < Base || static_cast<size_t>(F - Base) >= Capacity)
      return nullptr;
    return &Slots[F - Base];
  }

  void grow() {
    const size_t NewCapacity = Capacity == 0 ? 64 : Capacity * 2;
    if (NewCapacity > static_cast<size_t>(0x7fffffff - Base))
      Recorder::get().fail("more than %zu Fortran requests active at once", Capacity);
    auto *NewSlots =
        static_cast<MPI_Request *>(std::realloc(Slots, NewCapacity * sizeof(MPI_Request)));
    auto *NewFree = static_cast<uint32_t *>(std::realloc(Free, NewCapacity * sizeof(uint32_t)));
    if (NewSlots == nullptr || NewFree == nullptr)
      Recorder::get().fail("out of memory growing the Fortran request table to %zu entries",
                           NewCapacity);
    Slots = NewSlots;
    Free = NewFree;
    // Lowest slots on top of the free list, so handles start at Base.
    for (size_t I = NewCapacity; I-- > Capacity;) {
      Slots[I] = MPI_REQUEST_NULL;
      Free[FreeCount++] = static_cast<uint32_t>(I);
    }
    Capacity = NewCapacity;
  }

  MPI_Request *Slots = nullptr;
  uint32_t *Free = nullptr;
  size_t Capacity = 0;
  size_t FreeCount = 0;
};
constinit RequestTable Requests;

} // namespace

//===-- Argument conversions ----------------------------------------------------------------===//
//
// Each Fortran parameter is declared as a pointer to one of these types (all pointers, as
// Fortran passes by reference); Arg<T> converts it to the C argument before the call (get())
// and writes outputs back after it (post()).

template <class T> struct Arg;

struct FBuf; // a choice buffer (any type), or MPI_IN_PLACE / MPI_BOTTOM
template <> struct Arg<FBuf> {
  void *C;
  explicit Arg(FBuf *P) : C(buffer(P)) {}
  void *get() const { return C; }
  void post() {}
};

struct FInt { // INTEGER, in
  MPI_Fint V;
};
template <> struct Arg<FInt> {
  int C;
  explicit Arg(FInt *P) : C(P->V) {}
  int get() const { return C; }
  void post() {}
};

struct FIntArray { // INTEGER array, in (counts, displacements, dimensions)
  MPI_Fint V;
};
template <> struct Arg<FIntArray> {
  MPI_Fint *C;
  explicit Arg(FIntArray *P) : C(&P->V) {}
  const int *get() const { return C; }
  void post() {}
};

struct FLogical { // LOGICAL, in
  MPI_Fint V;
};
template <> struct Arg<FLogical> {
  int C;
  explicit Arg(FLogical *P) : C(P->V != False) {}
  int get() const { return C; }
  void post() {}
};

/// A LOGICAL array, in: passed as is, since C reads any non-zero int as true and .FALSE. is 0
/// for every Fortran compiler MPI supports.
struct FLogicalArray {
  MPI_Fint V;
};
template <> struct Arg<FLogicalArray> {
  MPI_Fint *C;
  explicit Arg(FLogicalArray *P) : C(&P->V) {}
  const int *get() const { return C; }
  void post() {}
};

struct FLogicalOut { // LOGICAL, out (Test and Iprobe flags)
  MPI_Fint V;
};
template <> struct Arg<FLogicalOut> {
  FLogicalOut *F;
  int C = 0;
  explicit Arg(FLogicalOut *P) : F(P) {}
  int *get() { return &C; }
  void post() { F->V = C ? True : False; }
};

// Handles, in: MPI_X_f2c.
#define MPIETE_FORTRAN_HANDLE(Name, CType)                                                         \
  struct F##Name {                                                                                 \
    MPI_Fint V;                                                                                    \
  };                                                                                               \
  template <> struct Arg<F##Name> {                                                                \
    CType C;                                                                                       \
    explicit Arg(F##Name *P) : C(PMPI_##Name##_f2c(P->V)) {}                                       \
    CType get() const { return C; }                                                                \
    void post() {}                                                                                 \
  };
MPIETE_FORTRAN_HANDLE(Comm, MPI_Comm)
MPIETE_FORTRAN_HANDLE(Type, MPI_Datatype)
MPIETE_FORTRAN_HANDLE(Op, MPI_Op)
MPIETE_FORTRAN_HANDLE(Group, MPI_Group)
MPIETE_FORTRAN_HANDLE(Info, MPI_Info)
#undef MPIETE_FORTRAN_HANDLE

struct FCommOut { // a new communicator, out
  MPI_Fint V;
};
template <> struct Arg<FCommOut> {
  FCommOut *F;
  MPI_Comm C = MPI_COMM_NULL;
  explicit Arg(FCommOut *P) : F(P) {}
  MPI_Comm *get() { return &C; }
  void post() { F->V = PMPI_Comm_c2f(C); }
};

struct FCommInOut { // MPI_Comm_free's communicator, MPI_COMM_NULL afterwards
  MPI_Fint V;
};
template <> struct Arg<FCommInOut> {
  FCommInOut *F;
  MPI_Comm C;
  explicit Arg(FCommInOut *P) : F(P), C(PMPI_Comm_f2c(P->V)) {}
  MPI_Comm *get() { return &C; }
  void post() { F->V = PMPI_Comm_c2f(C); }
};

struct FRequestOut { // a started request, out
  MPI_Fint V;
};
template <> struct Arg<FRequestOut> {
  FRequestOut *F;
  MPI_Request C = MPI_REQUEST_NULL;
  explicit Arg(FRequestOut *P) : F(P) {}
  MPI_Request *get() { return &C; }
  void post() { F->V = Requests.add(C); }
};

struct FRequestInOut { // a request to complete, test or free
  MPI_Fint V;
};
template <> struct Arg<FRequestInOut> {
  FRequestInOut *F;
  MPI_Request C;
  explicit Arg(FRequestInOut *P) : F(P), C(Requests.toC(P->V)) {}
  MPI_Request *get() { return &C; }
  void post() { Requests.update(F->V, C); }
};

struct FStatus { // INTEGER status(MPI_STATUS_SIZE), or MPI_STATUS_IGNORE; out
  MPI_Fint V;
};
template <> struct Arg<FStatus> {
  MPI_Fint *F;
  MPI_Status C{};
  explicit Arg(FStatus *P) : F(ignoreStatus(&P->V) ? nullptr : &P->V) {}
  MPI_Status *get() { return F != nullptr ? &C : MPI_STATUS_IGNORE; }
  void post() {
    if (F != nullptr)
      PMPI_Status_c2f(&C, F);
  }
};

/// Calls the C entry point Fn with the converted arguments, then writes the outputs back.
template <class... C, class... F>
int forward(int (*Fn)(mpiete_site_t, C...), mpiete_site_t Site, F *...P) {
  static_assert(sizeof...(C) == sizeof...(F), "one Fortran parameter per C parameter");
  std::tuple<Arg<F>...> A(P...);
  const int Rc = std::apply([&](Arg<F> &...X) { return Fn(Site, X.get()...); }, A);
  std::apply([](Arg<F> &...X) { (X.post(), ...); }, A);
  return Rc;
}

//===-- Arrays of requests and statuses -----------------------------------------------------===//

/// array_of_requests(N): C copies for the call, the Fortran handles updated after it.
struct RequestArray {
  MPI_Fint *F;
  int N;
  MPI_Request *C;
  RequestArray(MPI_Fint *F, int N) : F(F), N(N), C(RequestScratch.get(N)) {
    for (int I = 0; I < N; ++I)
      C[I] = Requests.toC(F[I]);
  }
  void post() {
    for (int I = 0; I < N; ++I)
      Requests.update(F[I], C[I]);
  }
};

/// array_of_statuses(MPI_STATUS_SIZE, N), or MPI_STATUSES_IGNORE.
struct StatusArray {
  MPI_Fint *F;
  MPI_Status *C;
  StatusArray(MPI_Fint *F, int N)
      : F(ignoreStatuses(F) ? nullptr : F),
        C(ignoreStatuses(F) ? MPI_STATUSES_IGNORE : StatusScratch.get(N)) {}
  /// Converts the first Count statuses.
  void post(int Count) {
    if (F != nullptr)
      for (int I = 0; I < Count; ++I)
        PMPI_Status_c2f(&C[I], F + static_cast<size_t>(I) * StatusSize);
  }
};

/// A 0-based C index to Fortran's 1-based one (MPI_UNDEFINED stays).
MPI_Fint fortranIndex(int I) { return I == MPI_UNDEFINED || I < 0 ? I : I + 1; }

} // namespace mpiete::fortran

//===-- Entry points ------------------------------------------------------------------------===//

using namespace mpiete::fortran;

#define MPIETE_EXPAND(...) __VA_ARGS__

// Declares the Fortran entry point Name_ (its body follows the macro) and its Name__ alias.
#define MPIETE_FORTRAN_ENTRY(Name, ...)                                                            \
  extern "C" void Name##_(const MPI_Fint *unit, const MPI_Fint *idx,                               \
                          __VA_ARGS__ __VA_OPT__(, ) MPI_Fint *ierr);                              \
  extern "C" decltype(Name##_) Name##__ __attribute__((alias(#Name "_")));                         \
  extern "C" void Name##_(const MPI_Fint *unit, const MPI_Fint *idx,                               \
                          __VA_ARGS__ __VA_OPT__(, ) MPI_Fint *ierr)

// An entry point whose Fortran parameters map one to one onto the C entry point's.
#define MPIETE_FORTRAN_FORWARD(Runtime, Params, Args)                                              \
  MPIETE_FORTRAN_ENTRY(Runtime, MPIETE_EXPAND Params) {                                            \
    *errorOut(idx, ierr) = forward(&Runtime, callSite(unit, idx), MPIETE_EXPAND Args);             \
  }
// An entry point written out below.
#define MPIETE_FORTRAN_WRITTEN(Runtime)

// Fortran parameter lists shared by several routines.
#define MPIETE_F_SEND                                                                              \
  (FBuf * buf, FInt * count, FType * datatype, FInt * dest, FInt * tag, FComm * comm),             \
      (buf, count, datatype, dest, tag, comm)
#define MPIETE_F_ISEND                                                                             \
  (FBuf * buf, FInt * count, FType * datatype, FInt * dest, FInt * tag, FComm * comm,              \
   FRequestOut * request),                                                                         \
      (buf, count, datatype, dest, tag, comm, request)
#define MPIETE_F_IRECV                                                                             \
  (FBuf * buf, FInt * count, FType * datatype, FInt * source, FInt * tag, FComm * comm,            \
   FRequestOut * request),                                                                         \
      (buf, count, datatype, source, tag, comm, request)
#define MPIETE_F_REDUCE_LIKE                                                                       \
  (FBuf * sendbuf, FBuf * recvbuf, FInt * count, FType * datatype, FOp * op, FComm * comm),        \
      (sendbuf, recvbuf, count, datatype, op, comm)
#define MPIETE_F_GATHER_LIKE                                                                       \
  (FBuf * sendbuf, FInt * sendcount, FType * sendtype, FBuf * recvbuf, FInt * recvcount,           \
   FType * recvtype, FInt * root, FComm * comm),                                                   \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define MPIETE_F_ALLGATHER_LIKE                                                                    \
  (FBuf * sendbuf, FInt * sendcount, FType * sendtype, FBuf * recvbuf, FInt * recvcount,           \
   FType * recvtype, FComm * comm),                                                                \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
#define MPIETE_FWD(Runtime, ...) MPIETE_FORTRAN_FORWARD(Runtime, __VA_ARGS__)

// One line per routine of routines.def.
#define MPIETE_FORTRAN_MPI_Init MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Init_thread MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Finalize MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Send(R) MPIETE_FWD(R, MPIETE_F_SEND)
#define MPIETE_FORTRAN_MPI_Ssend(R) MPIETE_FWD(R, MPIETE_F_SEND)
#define MPIETE_FORTRAN_MPI_Rsend(R) MPIETE_FWD(R, MPIETE_F_SEND)
#define MPIETE_FORTRAN_MPI_Bsend(R) MPIETE_FWD(R, MPIETE_F_SEND)
#define MPIETE_FORTRAN_MPI_Recv(R)                                                                 \
  MPIETE_FWD(R,                                                                                    \
             (FBuf * buf, FInt * count, FType * datatype, FInt * source, FInt * tag, FComm * comm, \
              FStatus * status),                                                                   \
             (buf, count, datatype, source, tag, comm, status))
#define MPIETE_FORTRAN_MPI_Sendrecv(R)                                                             \
  MPIETE_FWD(R,                                                                                    \
             (FBuf * sendbuf, FInt * sendcount, FType * sendtype, FInt * dest, FInt * sendtag,     \
              FBuf * recvbuf, FInt * recvcount, FType * recvtype, FInt * source, FInt * recvtag,   \
              FComm * comm, FStatus * status),                                                     \
             (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,   \
              recvtag, comm, status))
#define MPIETE_FORTRAN_MPI_Sendrecv_replace(R)                                                     \
  MPIETE_FWD(R,                                                                                    \
             (FBuf * buf, FInt * count, FType * datatype, FInt * dest, FInt * sendtag,             \
              FInt * source, FInt * recvtag, FComm * comm, FStatus * status),                      \
             (buf, count, datatype, dest, sendtag, source, recvtag, comm, status))
#define MPIETE_FORTRAN_MPI_Isend(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Issend(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Irsend(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Ibsend(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Irecv(R) MPIETE_FWD(R, MPIETE_F_IRECV)
#define MPIETE_FORTRAN_MPI_Send_init(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Ssend_init(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Rsend_init(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Bsend_init(R) MPIETE_FWD(R, MPIETE_F_ISEND)
#define MPIETE_FORTRAN_MPI_Recv_init(R) MPIETE_FWD(R, MPIETE_F_IRECV)
// A persistent request keeps its Fortran handle: the C handle behind it never becomes null
// before MPI_Request_free (runtime/lib/Persistent.h).
#define MPIETE_FORTRAN_MPI_Start(R) MPIETE_FWD(R, (FRequestInOut * request), (request))
#define MPIETE_FORTRAN_MPI_Startall MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Wait(R)                                                                 \
  MPIETE_FWD(R, (FRequestInOut * request, FStatus * status), (request, status))
#define MPIETE_FORTRAN_MPI_Waitall MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Waitany MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Waitsome MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Test(R)                                                                 \
  MPIETE_FWD(R, (FRequestInOut * request, FLogicalOut * flag, FStatus * status),                   \
             (request, flag, status))
#define MPIETE_FORTRAN_MPI_Testall MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Testany MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Testsome MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Request_free(R) MPIETE_FWD(R, (FRequestInOut * request), (request))
#define MPIETE_FORTRAN_MPI_Probe(R)                                                                \
  MPIETE_FWD(R, (FInt * source, FInt * tag, FComm * comm, FStatus * status),                       \
             (source, tag, comm, status))
#define MPIETE_FORTRAN_MPI_Iprobe(R)                                                               \
  MPIETE_FWD(R, (FInt * source, FInt * tag, FComm * comm, FLogicalOut * flag, FStatus * status),   \
             (source, tag, comm, flag, status))
// Collectives: each one's parameters once, for the blocking routine and for its non-blocking
// twin, which takes the same and the request (MPIETE_F_NB).
#define MPIETE_F_NB(...) MPIETE_F_NB_(__VA_ARGS__)
#define MPIETE_F_NB_(Params, Args)                                                                 \
  (MPIETE_EXPAND Params, FRequestOut * request), (MPIETE_EXPAND Args, request)
#define MPIETE_F_BARRIER (FComm * comm), (comm)
#define MPIETE_F_BCAST                                                                             \
  (FBuf * buffer, FInt * count, FType * datatype, FInt * root, FComm * comm),                      \
      (buffer, count, datatype, root, comm)
#define MPIETE_F_REDUCE                                                                            \
  (FBuf * sendbuf, FBuf * recvbuf, FInt * count, FType * datatype, FOp * op, FInt * root,          \
   FComm * comm),                                                                                  \
      (sendbuf, recvbuf, count, datatype, op, root, comm)
#define MPIETE_F_GATHERV                                                                           \
  (FBuf * sendbuf, FInt * sendcount, FType * sendtype, FBuf * recvbuf, FIntArray * recvcounts,     \
   FIntArray * displs, FType * recvtype, FInt * root, FComm * comm),                               \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm)
#define MPIETE_F_SCATTERV                                                                          \
  (FBuf * sendbuf, FIntArray * sendcounts, FIntArray * displs, FType * sendtype, FBuf * recvbuf,   \
   FInt * recvcount, FType * recvtype, FInt * root, FComm * comm),                                 \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define MPIETE_F_ALLGATHERV                                                                        \
  (FBuf * sendbuf, FInt * sendcount, FType * sendtype, FBuf * recvbuf, FIntArray * recvcounts,     \
   FIntArray * displs, FType * recvtype, FComm * comm),                                            \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)
#define MPIETE_F_ALLTOALLV                                                                         \
  (FBuf * sendbuf, FIntArray * sendcounts, FIntArray * sdispls, FType * sendtype, FBuf * recvbuf,  \
   FIntArray * recvcounts, FIntArray * rdispls, FType * recvtype, FComm * comm),                   \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)
#define MPIETE_F_REDUCE_SCATTER                                                                    \
  (FBuf * sendbuf, FBuf * recvbuf, FIntArray * recvcounts, FType * datatype, FOp * op,             \
   FComm * comm),                                                                                  \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm)
#define MPIETE_FORTRAN_MPI_Barrier(R) MPIETE_FWD(R, MPIETE_F_BARRIER)
#define MPIETE_FORTRAN_MPI_Bcast(R) MPIETE_FWD(R, MPIETE_F_BCAST)
#define MPIETE_FORTRAN_MPI_Reduce(R) MPIETE_FWD(R, MPIETE_F_REDUCE)
#define MPIETE_FORTRAN_MPI_Allreduce(R) MPIETE_FWD(R, MPIETE_F_REDUCE_LIKE)
#define MPIETE_FORTRAN_MPI_Gather(R) MPIETE_FWD(R, MPIETE_F_GATHER_LIKE)
#define MPIETE_FORTRAN_MPI_Gatherv(R) MPIETE_FWD(R, MPIETE_F_GATHERV)
#define MPIETE_FORTRAN_MPI_Scatter(R) MPIETE_FWD(R, MPIETE_F_GATHER_LIKE)
#define MPIETE_FORTRAN_MPI_Scatterv(R) MPIETE_FWD(R, MPIETE_F_SCATTERV)
#define MPIETE_FORTRAN_MPI_Allgather(R) MPIETE_FWD(R, MPIETE_F_ALLGATHER_LIKE)
#define MPIETE_FORTRAN_MPI_Allgatherv(R) MPIETE_FWD(R, MPIETE_F_ALLGATHERV)
#define MPIETE_FORTRAN_MPI_Alltoall(R) MPIETE_FWD(R, MPIETE_F_ALLGATHER_LIKE)
#define MPIETE_FORTRAN_MPI_Alltoallv(R) MPIETE_FWD(R, MPIETE_F_ALLTOALLV)
#define MPIETE_FORTRAN_MPI_Reduce_scatter(R) MPIETE_FWD(R, MPIETE_F_REDUCE_SCATTER)
#define MPIETE_FORTRAN_MPI_Reduce_scatter_block(R) MPIETE_FWD(R, MPIETE_F_REDUCE_LIKE)
#define MPIETE_FORTRAN_MPI_Scan(R) MPIETE_FWD(R, MPIETE_F_REDUCE_LIKE)
#define MPIETE_FORTRAN_MPI_Exscan(R) MPIETE_FWD(R, MPIETE_F_REDUCE_LIKE)
#define MPIETE_FORTRAN_MPI_Ibarrier(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_BARRIER))
#define MPIETE_FORTRAN_MPI_Ibcast(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_BCAST))
#define MPIETE_FORTRAN_MPI_Ireduce(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_REDUCE))
#define MPIETE_FORTRAN_MPI_Iallreduce(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_REDUCE_LIKE))
#define MPIETE_FORTRAN_MPI_Igather(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_GATHER_LIKE))
#define MPIETE_FORTRAN_MPI_Igatherv(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_GATHERV))
#define MPIETE_FORTRAN_MPI_Iscatter(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_GATHER_LIKE))
#define MPIETE_FORTRAN_MPI_Iscatterv(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_SCATTERV))
#define MPIETE_FORTRAN_MPI_Iallgather(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLGATHER_LIKE))
#define MPIETE_FORTRAN_MPI_Iallgatherv(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLGATHERV))
#define MPIETE_FORTRAN_MPI_Ialltoall(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLGATHER_LIKE))
#define MPIETE_FORTRAN_MPI_Ialltoallv(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLTOALLV))
#define MPIETE_FORTRAN_MPI_Ireduce_scatter(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_REDUCE_SCATTER))
#define MPIETE_FORTRAN_MPI_Ireduce_scatter_block(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_REDUCE_LIKE))
#define MPIETE_FORTRAN_MPI_Iscan(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_REDUCE_LIKE))
#define MPIETE_FORTRAN_MPI_Iexscan(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_REDUCE_LIKE))
#define MPIETE_FORTRAN_MPI_Neighbor_allgather(R) MPIETE_FWD(R, MPIETE_F_ALLGATHER_LIKE)
#define MPIETE_FORTRAN_MPI_Neighbor_allgatherv(R) MPIETE_FWD(R, MPIETE_F_ALLGATHERV)
#define MPIETE_FORTRAN_MPI_Neighbor_alltoall(R) MPIETE_FWD(R, MPIETE_F_ALLGATHER_LIKE)
#define MPIETE_FORTRAN_MPI_Neighbor_alltoallv(R) MPIETE_FWD(R, MPIETE_F_ALLTOALLV)
#define MPIETE_FORTRAN_MPI_Ineighbor_allgather(R)                                                  \
  MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLGATHER_LIKE))
#define MPIETE_FORTRAN_MPI_Ineighbor_allgatherv(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLGATHERV))
#define MPIETE_FORTRAN_MPI_Ineighbor_alltoall(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLGATHER_LIKE))
#define MPIETE_FORTRAN_MPI_Ineighbor_alltoallv(R) MPIETE_FWD(R, MPIETE_F_NB(MPIETE_F_ALLTOALLV))
// A datatype per peer: arrays of handles whose length is the communicator's size (or its
// neighbour count), written out below.
#define MPIETE_FORTRAN_MPI_Alltoallw MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Ialltoallw MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Neighbor_alltoallw MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Ineighbor_alltoallw MPIETE_FORTRAN_WRITTEN
#define MPIETE_FORTRAN_MPI_Comm_split(R)                                                           \
  MPIETE_FWD(R, (FComm * comm, FInt * color, FInt * key, FCommOut * newcomm),                      \
             (comm, color, key, newcomm))
#define MPIETE_FORTRAN_MPI_Comm_split_type(R)                                                      \
  MPIETE_FWD(R, (FComm * comm, FInt * split_type, FInt * key, FInfo * info, FCommOut * newcomm),   \
             (comm, split_type, key, info, newcomm))
#define MPIETE_FORTRAN_MPI_Comm_dup(R)                                                             \
  MPIETE_FWD(R, (FComm * comm, FCommOut * newcomm), (comm, newcomm))
#define MPIETE_FORTRAN_MPI_Comm_create(R)                                                          \
  MPIETE_FWD(R, (FComm * comm, FGroup * group, FCommOut * newcomm), (comm, group, newcomm))
#define MPIETE_FORTRAN_MPI_Cart_create(R)                                                          \
  MPIETE_FWD(R,                                                                                    \
             (FComm * comm_old, FInt * ndims, FIntArray * dims, FLogicalArray * periods,           \
              FLogical * reorder, FCommOut * comm_cart),                                           \
             (comm_old, ndims, dims, periods, reorder, comm_cart))
#define MPIETE_FORTRAN_MPI_Cart_sub(R)                                                             \
  MPIETE_FWD(R, (FComm * comm, FLogicalArray * remain_dims, FCommOut * newcomm),                   \
             (comm, remain_dims, newcomm))
#define MPIETE_FORTRAN_MPI_Comm_free(R) MPIETE_FWD(R, (FCommInOut * comm), (comm))

#define MPIETE_ROUTINE(Mpi, Runtime, Role, Params, Args) MPIETE_FORTRAN_##Mpi(Runtime)
#include "mpiete/routines.def"

// MPI_INIT(ierr) has no argc / argv: C's init gets none, as Open MPI's Fortran MPI_INIT does.
MPIETE_FORTRAN_ENTRY(mpiete_init) {
  *errorOut(idx, ierr) = mpiete_init(callSite(unit, idx), nullptr, nullptr);
}

MPIETE_FORTRAN_ENTRY(mpiete_init_thread, const MPI_Fint *required, MPI_Fint *provided) {
  int Provided = MPI_THREAD_SINGLE;
  *errorOut(idx, ierr) =
      mpiete_init_thread(callSite(unit, idx), nullptr, nullptr, *required, &Provided);
  *provided = Provided;
}

MPIETE_FORTRAN_ENTRY(mpiete_finalize) {
  *errorOut(idx, ierr) = mpiete_finalize(callSite(unit, idx));
}

MPIETE_FORTRAN_ENTRY(mpiete_waitall, const MPI_Fint *count, MPI_Fint *array_of_requests,
                     MPI_Fint *array_of_statuses) {
  const int N = *count;
  RequestArray Reqs(array_of_requests, N);
  StatusArray Statuses(array_of_statuses, N);
  *errorOut(idx, ierr) = mpiete_waitall(callSite(unit, idx), N, Reqs.C, Statuses.C);
  Reqs.post();
  Statuses.post(N);
}

MPIETE_FORTRAN_ENTRY(mpiete_startall, const MPI_Fint *count, MPI_Fint *array_of_requests) {
  const int N = *count;
  RequestArray Reqs(array_of_requests, N);
  *errorOut(idx, ierr) = mpiete_startall(callSite(unit, idx), N, Reqs.C);
  Reqs.post();
}

MPIETE_FORTRAN_ENTRY(mpiete_testall, const MPI_Fint *count, MPI_Fint *array_of_requests,
                     MPI_Fint *flag, MPI_Fint *array_of_statuses) {
  const int N = *count;
  RequestArray Reqs(array_of_requests, N);
  StatusArray Statuses(array_of_statuses, N);
  int Flag = 0;
  const int Rc = mpiete_testall(callSite(unit, idx), N, Reqs.C, &Flag, Statuses.C);
  *errorOut(idx, ierr) = Rc;
  Reqs.post();
  // Statuses are defined only once every request completed (or on MPI_ERR_IN_STATUS).
  if (Flag || Rc == MPI_ERR_IN_STATUS)
    Statuses.post(N);
  *flag = Flag ? True : False;
}

MPIETE_FORTRAN_ENTRY(mpiete_waitany, const MPI_Fint *count, MPI_Fint *array_of_requests,
                     MPI_Fint *index, MPI_Fint *status) {
  const int N = *count;
  RequestArray Reqs(array_of_requests, N);
  Arg<FStatus> Status(reinterpret_cast<FStatus *>(status));
  int Index = MPI_UNDEFINED;
  *errorOut(idx, ierr) = mpiete_waitany(callSite(unit, idx), N, Reqs.C, &Index, Status.get());
  Reqs.post();
  Status.post();
  *index = fortranIndex(Index);
}

MPIETE_FORTRAN_ENTRY(mpiete_testany, const MPI_Fint *count, MPI_Fint *array_of_requests,
                     MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status) {
  const int N = *count;
  RequestArray Reqs(array_of_requests, N);
  Arg<FStatus> Status(reinterpret_cast<FStatus *>(status));
  int Index = MPI_UNDEFINED;
  int Flag = 0;
  *errorOut(idx, ierr) =
      mpiete_testany(callSite(unit, idx), N, Reqs.C, &Index, &Flag, Status.get());
  Reqs.post();
  if (Flag)
    Status.post();
  *index = fortranIndex(Index);
  *flag = Flag ? True : False;
}

namespace {

/// Waitsome and Testsome: the same arguments, the same conversions.
template <class Fn>
void someCall(Fn Call, mpiete_site_t Site, const MPI_Fint *incount, MPI_Fint *array_of_requests,
              MPI_Fint *outcount, MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses,
              MPI_Fint *ierr) {
  const int N = *incount;
  RequestArray Reqs(array_of_requests, N);
  StatusArray Statuses(array_of_statuses, N);
  int Out = MPI_UNDEFINED;
  *ierr = Call(Site, N, Reqs.C, &Out, array_of_indices, Statuses.C);
  Reqs.post();
  if (Out != MPI_UNDEFINED && Out > 0) {
    Statuses.post(Out);
    for (int I = 0; I < Out; ++I)
      array_of_indices[I] = fortranIndex(array_of_indices[I]);
  }
  *outcount = Out;
}

} // namespace

MPIETE_FORTRAN_ENTRY(mpiete_waitsome, const MPI_Fint *incount, MPI_Fint *array_of_requests,
                     MPI_Fint *outcount, MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses) {
  someCall(&mpiete_waitsome, callSite(unit, idx), incount, array_of_requests, outcount,
           array_of_indices, array_of_statuses, errorOut(idx, ierr));
}

MPIETE_FORTRAN_ENTRY(mpiete_testsome, const MPI_Fint *incount, MPI_Fint *array_of_requests,
                     MPI_Fint *outcount, MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses) {
  someCall(&mpiete_testsome, callSite(unit, idx), incount, array_of_requests, outcount,
           array_of_indices, array_of_statuses, errorOut(idx, ierr));
}

//===-- The w-variants: a datatype per peer -------------------------------------------------===//

namespace {

/// The C handles of N send types (none in place) then N receive types, malloc'd.
MPI_Datatype *typesToC(const void *SendBuf, const MPI_Fint *SendTypes, const MPI_Fint *RecvTypes,
                       int N) {
  auto *T = static_cast<MPI_Datatype *>(std::malloc(sizeof(MPI_Datatype) * size_t(2 * N + 1)));
  if (T == nullptr)
    mpiete::Recorder::get().fail("out of memory converting %d Fortran datatypes", 2 * N);
  for (int I = 0; I < N; ++I) {
    T[I] = SendBuf == MPI_IN_PLACE ? MPI_DATATYPE_NULL : PMPI_Type_f2c(SendTypes[I]);
    T[N + I] = PMPI_Type_f2c(RecvTypes[I]);
  }
  return T;
}
int commSize(MPI_Comm C) {
  int N = 0;
  PMPI_Comm_size(C, &N);
  return N;
}

} // namespace

MPIETE_FORTRAN_ENTRY(mpiete_alltoallw, void *sendbuf, const MPI_Fint *sendcounts,
                     const MPI_Fint *sdispls, const MPI_Fint *sendtypes, void *recvbuf,
                     const MPI_Fint *recvcounts, const MPI_Fint *rdispls, const MPI_Fint *recvtypes,
                     const MPI_Fint *comm) {
  const MPI_Comm C = PMPI_Comm_f2c(*comm);
  void *S = buffer(sendbuf);
  const int N = commSize(C);
  MPI_Datatype *T = typesToC(S, sendtypes, recvtypes, N);
  *errorOut(idx, ierr) = mpiete_alltoallw(callSite(unit, idx), S, sendcounts, sdispls, T,
                                          buffer(recvbuf), recvcounts, rdispls, T + N, C);
  std::free(T);
}

MPIETE_FORTRAN_ENTRY(mpiete_ialltoallw, void *sendbuf, const MPI_Fint *sendcounts,
                     const MPI_Fint *sdispls, const MPI_Fint *sendtypes, void *recvbuf,
                     const MPI_Fint *recvcounts, const MPI_Fint *rdispls, const MPI_Fint *recvtypes,
                     const MPI_Fint *comm, MPI_Fint *request) {
  const MPI_Comm C = PMPI_Comm_f2c(*comm);
  void *S = buffer(sendbuf);
  MPI_Datatype *T = typesToC(S, sendtypes, recvtypes, commSize(C));
  Arg<FRequestOut> Req(reinterpret_cast<FRequestOut *>(request));
  *errorOut(idx, ierr) = ialltoallwOwned(callSite(unit, idx), S, sendcounts, sdispls, T,
                                         buffer(recvbuf), recvcounts, rdispls, C, Req.get());
  Req.post();
}

MPIETE_FORTRAN_ENTRY(mpiete_neighbor_alltoallw, void *sendbuf, const MPI_Fint *sendcounts,
                     const MPI_Aint *sdispls, const MPI_Fint *sendtypes, void *recvbuf,
                     const MPI_Fint *recvcounts, const MPI_Aint *rdispls, const MPI_Fint *recvtypes,
                     const MPI_Fint *comm) {
  const MPI_Comm C = PMPI_Comm_f2c(*comm);
  void *S = buffer(sendbuf);
  const int N = mpiete::coll::neighborCount(C);
  MPI_Datatype *T = typesToC(S, sendtypes, recvtypes, N);
  *errorOut(idx, ierr) = mpiete_neighbor_alltoallw(callSite(unit, idx), S, sendcounts, sdispls, T,
                                                   buffer(recvbuf), recvcounts, rdispls, T + N, C);
  std::free(T);
}

MPIETE_FORTRAN_ENTRY(mpiete_ineighbor_alltoallw, void *sendbuf, const MPI_Fint *sendcounts,
                     const MPI_Aint *sdispls, const MPI_Fint *sendtypes, void *recvbuf,
                     const MPI_Fint *recvcounts, const MPI_Aint *rdispls, const MPI_Fint *recvtypes,
                     const MPI_Fint *comm, MPI_Fint *request) {
  const MPI_Comm C = PMPI_Comm_f2c(*comm);
  void *S = buffer(sendbuf);
  MPI_Datatype *T = typesToC(S, sendtypes, recvtypes, mpiete::coll::neighborCount(C));
  Arg<FRequestOut> Req(reinterpret_cast<FRequestOut *>(request));
  *errorOut(idx, ierr) =
      ineighborAlltoallwOwned(callSite(unit, idx), S, sendcounts, sdispls, T, buffer(recvbuf),
                              recvcounts, rdispls, C, Req.get());
  Req.post();
}
