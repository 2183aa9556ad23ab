// Persistent point-to-point requests: descriptors behind the user's handles (Persistent.h).
#include "Persistent.h"

#include "Nonblocking.h"
#include "Recorder.h"
#include "Transport.h"
#include "Util.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace mpiete::persistent {
namespace {

/// What MPI_Send_init / MPI_Recv_init were given: the start each MPI_Start repeats.
struct Descriptor {
  void *Buf;
  int Count;
  MPI_Datatype Type;
  int Peer;
  int Tag;
  MPI_Comm Comm;
  MPI_Request Active; ///< the transport's request while started, else MPI_REQUEST_NULL
  SendMode Mode;
  bool Recv;
  bool OwnType; ///< Type is the runtime's duplicate of a derived type (freed with the request)
  bool Used;    ///< the slot holds a live request (Table)
  nbc::Op *Op;  ///< a non-blocking collective's operation (the other fields unused), or null
};

/// Descriptors by slot, their handles made from the slot number. Slots are reused through a
/// free list; a handle names its slot for as long as the request lives.
class Table {
public:
  /// Slots at most: the size of the reserved address range pointer handles come from.
  static constexpr uint32_t MaxSlots = 1u << 24;
  /// Int handles (MPICH): MPICH keeps an object's kind in bits 30..31 and never uses kind 0.
  static constexpr uint32_t IntBase = 0x20000000;

  /// Live persistent requests: while 0 no handle is one of ours.
  uint32_t live() const { return Live; }

  /// The descriptor behind H, or nullptr where H is not a persistent request of ours.
  Descriptor *find(MPI_Request H) {
    const uint64_t Slot = slotOf(H);
    return Slot < Capacity && Slots[Slot].Used ? &Slots[Slot] : nullptr;
  }

  MPI_Request add(const Descriptor &D) {
    if (FreeCount == 0) [[unlikely]]
      grow();
    const uint32_t I = Free[--FreeCount];
    Slots[I] = D;
    Slots[I].Used = true;
    ++Live;
    return handleOf(I);
  }

  void release(Descriptor *D) {
    D->Used = false;
    Free[FreeCount++] = static_cast<uint32_t>(D - Slots);
    --Live;
  }

private:
  // Templates, so that the branch for the other kind of handle is never instantiated.
  template <class H = MPI_Request> uint64_t slotOf(H Handle) const {
    if constexpr (std::is_pointer_v<H>)
      return reinterpret_cast<uintptr_t>(Handle) - reinterpret_cast<uintptr_t>(Region);
    else
      return static_cast<uint64_t>(static_cast<uint32_t>(Handle)) - IntBase;
  }
  template <class H = MPI_Request> H handleOf(uint32_t I) const {
    if constexpr (std::is_pointer_v<H>)
      return reinterpret_cast<H>(Region + I);
    else
      return static_cast<H>(IntBase + I);
  }

  void grow() {
    if constexpr (std::is_pointer_v<MPI_Request>) {
      if (Region == nullptr) {
        void *R =
            mmap(nullptr, MaxSlots, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (R == MAP_FAILED)
          Recorder::get().fail("cannot reserve the address range of persistent request handles");
        Region = static_cast<char *>(R);
      }
    }
    const uint32_t NewCapacity = Capacity == 0 ? 16 : Capacity * 2;
    if (NewCapacity > MaxSlots)
      Recorder::get().fail("more than %u persistent requests alive at once", Capacity);
    auto *S = static_cast<Descriptor *>(std::realloc(Slots, NewCapacity * sizeof(Descriptor)));
    auto *F = static_cast<uint32_t *>(std::realloc(Free, NewCapacity * sizeof(uint32_t)));
    if (S == nullptr || F == nullptr)
      failOutOfMemory("persistent requests", NewCapacity);
    Slots = S;
    Free = F;
    // Lowest slots on top of the free list.
    for (uint32_t I = NewCapacity; I-- > Capacity;) {
      Slots[I].Used = false;
      Free[FreeCount++] = I;
    }
    Capacity = NewCapacity;
  }

  Descriptor *Slots = nullptr;
  uint32_t *Free = nullptr;
  uint32_t Capacity = 0, FreeCount = 0, Live = 0;
  char *Region = nullptr;
};
constinit Table Requests;
constinit Scratch<MPI_Request> Translated;

/// The request's own copy of a derived datatype: MPI lets the user free a datatype while a
/// persistent request made with it lives, so the runtime keeps a duplicate of its own.
int keepType(Descriptor &D) {
  const MPI_Datatype Type = D.Type;
  int Ints = 0, Addresses = 0, Types = 0, Combiner = MPI_COMBINER_NAMED;
  if (Type == MPI_DATATYPE_NULL ||
      PMPI_Type_get_envelope(Type, &Ints, &Addresses, &Types, &Combiner) != MPI_SUCCESS ||
      Combiner == MPI_COMBINER_NAMED)
    return MPI_SUCCESS; // a named type, or one the start reports as invalid
  const int Rc = PMPI_Type_dup(Type, &D.Type);
  D.OwnType = Rc == MPI_SUCCESS;
  return Rc;
}

/// MPI_Send_init / MPI_Recv_init: D as given (the user's datatype), its handle in *Req.
int create(Descriptor D, MPI_Request *Req) {
  if (const int Rc = keepType(D); Rc != MPI_SUCCESS)
    return Rc;
  *Req = Requests.add(D);
  return MPI_SUCCESS;
}

void dropType(Descriptor &D) {
  if (D.OwnType)
    PMPI_Type_free(&D.Type);
}

/// Runs Call on the user's request array with every persistent handle replaced by its active
/// request; afterwards the descriptors take the transport's results and the user's persistent
/// handles stay as they were.
template <class Fn> int translated(int N, MPI_Request Reqs[], Fn Call) {
  if (Requests.live() == 0) [[likely]]
    return Call(Reqs);
  MPI_Request *C = Translated.get(N);
  bool Any = false;
  for (int I = 0; I < N; ++I) {
    const Descriptor *D = Requests.find(Reqs[I]);
    Any |= D != nullptr;
    C[I] = D != nullptr ? D->Active : Reqs[I];
  }
  if (!Any)
    return Call(Reqs);
  const int Rc = Call(C);
  for (int I = 0; I < N; ++I) {
    if (Descriptor *D = Requests.find(Reqs[I]))
      D->Active = C[I];
    else
      Reqs[I] = C[I];
  }
  return Rc;
}

int startOne(mpiete_site_t Site, MPI_Request H) {
  Descriptor *D = Requests.find(H);
  if (D == nullptr || D->Op != nullptr)
    Recorder::get().fail("MPI_Start(all) on a request that is not a persistent request made by "
                         "MPI_Send_init or MPI_Recv_init through mpiete (null, freed, or "
                         "from a routine mpiete does not rewrite)");
  if (D->Active != MPI_REQUEST_NULL)
    Recorder::get().fail("MPI_Start(all) on a persistent request that is still active (not "
                         "completed by a wait or a successful test since its last start)");
  if (D->Recv)
    return transport::irecv(Site, D->Buf, D->Count, D->Type, D->Peer, D->Tag, D->Comm,
                            Context::User, &D->Active);
  return transport::isend(Site, D->Buf, D->Count, D->Type, D->Peer, D->Tag, D->Comm, D->Mode,
                          Context::User, &D->Active);
}

} // namespace

int sendInit(SendMode Mode, mpiete_site_t, const void *Buf, int Count, MPI_Datatype Type, int Dest,
             int Tag, MPI_Comm Comm, MPI_Request *Req) {
  return create({const_cast<void *>(Buf), Count, Type, Dest, Tag, Comm, MPI_REQUEST_NULL, Mode,
                 false, false, false, nullptr},
                Req);
}

int recvInit(mpiete_site_t, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
             MPI_Comm Comm, MPI_Request *Req) {
  return create({Buf, Count, Type, Source, Tag, Comm, MPI_REQUEST_NULL, SendMode::Standard, true,
                 false, false, nullptr},
                Req);
}

int start(mpiete_site_t Site, MPI_Request *Req) { return startOne(Site, *Req); }

int startall(mpiete_site_t Site, int N, MPI_Request Reqs[]) {
  for (int I = 0; I < N; ++I)
    if (const int Rc = startOne(Site, Reqs[I]); Rc != MPI_SUCCESS)
      return Rc;
  return MPI_SUCCESS;
}

MPI_Request adoptCollective(nbc::Op *O) {
  Descriptor D{};
  D.Active = MPI_REQUEST_NULL;
  D.Op = O;
  return Requests.add(D);
}

namespace {

// The completion routines with a non-blocking collective among their requests. Each writes its
// own record first (a wait on MPI_REQUEST_NULL at its site, so the records of the operations
// it drives follow inside the call), drives the operations (Nonblocking.h), then, if other
// requests are active, runs the transport's routine over them, the collectives' handles
// standing for MPI_REQUEST_NULL there. A collective's completion has an empty status.

/// The operation behind handle H, or null.
nbc::Op *collectiveOf(MPI_Request H) {
  const Descriptor *D = Requests.find(H);
  return D != nullptr ? D->Op : nullptr;
}

bool anyCollective(int N, const MPI_Request Reqs[]) {
  if (nbc::outstanding() == 0) [[likely]]
    return false;
  for (int I = 0; I < N; ++I)
    if (collectiveOf(Reqs[I]) != nullptr)
      return true;
  return false;
}

/// The call's own record (a wait on MPI_REQUEST_NULL); returns the empty status it gives.
MPI_Status ownRecord(mpiete_site_t Site) {
  MPI_Request Null = MPI_REQUEST_NULL;
  MPI_Status Empty;
  transport::wait(Site, &Null, &Empty);
  return Empty;
}

void put(MPI_Status *St, const MPI_Status &V) {
  if (St != MPI_STATUS_IGNORE)
    *St = V;
}

/// A finished operation's request, completed: its slot released, the handle null, its status
/// empty (with the operation's error).
int completeCollective(MPI_Request *H, MPI_Status *St, const MPI_Status &Empty) {
  Descriptor *D = Requests.find(*H);
  const int Rc = nbc::release(D->Op);
  Requests.release(D);
  *H = MPI_REQUEST_NULL;
  if (St != MPI_STATUS_IGNORE) {
    *St = Empty;
    St->MPI_ERROR = Rc;
  }
  return Rc;
}

/// Whether a request that is not a collective's is active (a persistent one: started).
bool otherActive(int N, const MPI_Request Reqs[]) {
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    const Descriptor *D = Requests.find(Reqs[I]);
    if (D == nullptr || (D->Op == nullptr && D->Active != MPI_REQUEST_NULL))
      return true;
  }
  return false;
}

MPI_Status *statusAt(MPI_Status Statuses[], int I) {
  return Statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Statuses[I];
}

/// Waitall / Testall once every collective among Reqs has finished: completes them; the other
/// requests' statuses, if the transport did not fill them, are empty (Others false).
int completeCollectives(int N, MPI_Request Reqs[], MPI_Status Statuses[], const MPI_Status &Empty,
                        bool Others, int Rc) {
  bool Failed = false;
  for (int I = 0; I < N; ++I) {
    if (collectiveOf(Reqs[I]) != nullptr)
      Failed |= completeCollective(&Reqs[I], statusAt(Statuses, I), Empty) != MPI_SUCCESS;
    else if (!Others)
      put(statusAt(Statuses, I), Empty);
  }
  return Failed ? MPI_ERR_IN_STATUS : Rc;
}

/// Waitany / Testany / Waitsome / Testsome: polls each collective once; the index of the
/// first that has finished, or -1.
int finishedCollective(int N, const MPI_Request Reqs[]) {
  int Found = -1;
  for (int I = 0; I < N; ++I)
    if (nbc::Op *O = collectiveOf(Reqs[I]); O != nullptr && nbc::poll(O) && Found < 0)
      Found = I;
  return Found;
}

/// Waitany / Waitsome: a collective that has finished (each polled once), or, when no other
/// request is active, the first collective run to its end; -1 while others may finish first.
int collectiveToComplete(int N, const MPI_Request Reqs[]) {
  if (const int I = finishedCollective(N, Reqs); I >= 0 || otherActive(N, Reqs))
    return I;
  for (int I = 0; I < N; ++I)
    if (nbc::Op *O = collectiveOf(Reqs[I])) {
      nbc::finish(O);
      return I;
    }
  return -1;
}

/// Waitsome / Testsome: completes every finished collective among Reqs.
int someCollectives(int N, MPI_Request Reqs[], int *OutCount, int Indices[], MPI_Status Statuses[],
                    const MPI_Status &Empty) {
  int Out = 0;
  bool Failed = false;
  for (int K = 0; K < N; ++K) {
    nbc::Op *O = collectiveOf(Reqs[K]);
    if (O == nullptr || !nbc::done(O))
      continue;
    Failed |= completeCollective(&Reqs[K], statusAt(Statuses, Out), Empty) != MPI_SUCCESS;
    Indices[Out++] = K;
  }
  *OutCount = Out;
  return Failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

} // namespace

int wait(mpiete_site_t Site, MPI_Request *Req, MPI_Status *Status) {
  if (nbc::Op *O = nbc::outstanding() != 0 ? collectiveOf(*Req) : nullptr) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    nbc::finish(O);
    return completeCollective(Req, Status, Empty);
  }
  return translated(1, Req, [&](MPI_Request *R) { return transport::wait(Site, R, Status); });
}
int waitall(mpiete_site_t Site, int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  if (anyCollective(N, Reqs)) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    for (int I = 0; I < N; ++I)
      if (nbc::Op *O = collectiveOf(Reqs[I]))
        nbc::finish(O);
    const bool Others = otherActive(N, Reqs);
    int Rc = MPI_SUCCESS;
    if (Others)
      Rc = translated(N, Reqs,
                      [&](MPI_Request *R) { return transport::waitall(Site, N, R, Statuses); });
    return completeCollectives(N, Reqs, Statuses, Empty, Others, Rc);
  }
  return translated(N, Reqs,
                    [&](MPI_Request *R) { return transport::waitall(Site, N, R, Statuses); });
}
int waitany(mpiete_site_t Site, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status) {
  if (anyCollective(N, Reqs)) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    for (;;) {
      if (const int I = collectiveToComplete(N, Reqs); I >= 0) {
        *Index = I;
        return completeCollective(&Reqs[I], Status, Empty);
      }
      // Poll the other requests once (a record each time) and the collectives again.
      int Flag = 0;
      const int Rc = translated(N, Reqs, [&](MPI_Request *R) {
        return transport::testany(Site, N, R, Index, &Flag, Status);
      });
      if (Rc != MPI_SUCCESS || (Flag && *Index != MPI_UNDEFINED))
        return Rc;
    }
  }
  return translated(N, Reqs,
                    [&](MPI_Request *R) { return transport::waitany(Site, N, R, Index, Status); });
}
int waitsome(mpiete_site_t Site, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  if (anyCollective(N, Reqs)) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    for (;;) {
      if (collectiveToComplete(N, Reqs) >= 0) // the finished ones; the others wait for a call
        return someCollectives(N, Reqs, OutCount, Indices, Statuses, Empty);
      const int Rc = translated(N, Reqs, [&](MPI_Request *R) {
        return transport::testsome(Site, N, R, OutCount, Indices, Statuses);
      });
      if (Rc != MPI_SUCCESS || (*OutCount != MPI_UNDEFINED && *OutCount > 0))
        return Rc;
    }
  }
  return translated(N, Reqs, [&](MPI_Request *R) {
    return transport::waitsome(Site, N, R, OutCount, Indices, Statuses);
  });
}
int test(mpiete_site_t Site, MPI_Request *Req, int *Flag, MPI_Status *Status) {
  if (nbc::Op *O = nbc::outstanding() != 0 ? collectiveOf(*Req) : nullptr) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    *Flag = nbc::poll(O);
    return *Flag ? completeCollective(Req, Status, Empty) : MPI_SUCCESS;
  }
  return translated(1, Req, [&](MPI_Request *R) { return transport::test(Site, R, Flag, Status); });
}
int testall(mpiete_site_t Site, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]) {
  if (anyCollective(N, Reqs)) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    bool All = true;
    for (int I = 0; I < N; ++I)
      if (nbc::Op *O = collectiveOf(Reqs[I]))
        All &= nbc::poll(O);
    *Flag = 0;
    if (!All) // MPI completes none of them
      return MPI_SUCCESS;
    const bool Others = otherActive(N, Reqs);
    int Rc = MPI_SUCCESS;
    *Flag = 1;
    if (Others)
      Rc = translated(
          N, Reqs, [&](MPI_Request *R) { return transport::testall(Site, N, R, Flag, Statuses); });
    return *Flag ? completeCollectives(N, Reqs, Statuses, Empty, Others, Rc) : Rc;
  }
  return translated(N, Reqs,
                    [&](MPI_Request *R) { return transport::testall(Site, N, R, Flag, Statuses); });
}
int testany(mpiete_site_t Site, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status) {
  if (anyCollective(N, Reqs)) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    if (const int I = finishedCollective(N, Reqs); I >= 0) {
      *Index = I;
      *Flag = 1;
      return completeCollective(&Reqs[I], Status, Empty);
    }
    *Flag = 0;
    *Index = MPI_UNDEFINED;
    if (!otherActive(N, Reqs))
      return MPI_SUCCESS;
    const int Rc = translated(N, Reqs, [&](MPI_Request *R) {
      return transport::testany(Site, N, R, Index, Flag, Status);
    });
    if (*Flag && *Index == MPI_UNDEFINED)
      *Flag = 0; // the collectives are still active
    return Rc;
  }
  return translated(
      N, Reqs, [&](MPI_Request *R) { return transport::testany(Site, N, R, Index, Flag, Status); });
}
int testsome(mpiete_site_t Site, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  if (anyCollective(N, Reqs)) [[unlikely]] {
    const MPI_Status Empty = ownRecord(Site);
    if (finishedCollective(N, Reqs) >= 0)
      return someCollectives(N, Reqs, OutCount, Indices, Statuses, Empty);
    *OutCount = 0;
    if (!otherActive(N, Reqs))
      return MPI_SUCCESS;
    const int Rc = translated(N, Reqs, [&](MPI_Request *R) {
      return transport::testsome(Site, N, R, OutCount, Indices, Statuses);
    });
    if (*OutCount == MPI_UNDEFINED)
      *OutCount = 0; // the collectives are still active
    return Rc;
  }
  return translated(N, Reqs, [&](MPI_Request *R) {
    return transport::testsome(Site, N, R, OutCount, Indices, Statuses);
  });
}

int requestFree(mpiete_site_t Site, MPI_Request *Req) {
  Descriptor *D = Requests.live() == 0 ? nullptr : Requests.find(*Req);
  if (D == nullptr)
    return transport::requestFree(Site, Req);
  if (D->Op != nullptr)
    Recorder::get().fail("MPI_Request_free on the request of a non-blocking collective (MPI "
                         "makes that erroneous: complete it with a wait or a test)");
  // An active request is freed as MPI frees it: the activation still completes, and keeps
  // its datatype (the runtime's duplicate is then never freed).
  int Rc = MPI_SUCCESS;
  if (D->Active != MPI_REQUEST_NULL)
    Rc = transport::requestFree(Site, &D->Active);
  else
    dropType(*D);
  Requests.release(D);
  *Req = MPI_REQUEST_NULL;
  return Rc;
}

} // namespace mpiete::persistent
