// The simulated transport and MPI calls under the runtime's lowering code: every message start
// and completion becomes the event the trace probe would record; data is never touched.
//
// This file and runtime/lib/coll/*.cpp are compiled with PMPI_* and Open MPI's predefined
// handles renamed to mpiete_sim_* (scaling/CMakeLists.txt), so nothing here clashes with, or
// needs, an MPI library: the handles are this file's own objects behind MPI's opaque types.
#include "mpiete/scaling/CollSim.h"

#include "Collectives.h"
#include "Pack.h"
#include "Transport.h"

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <type_traits>
#include <vector>

namespace mpiete::scaling {
namespace {

using estimator::Event;

struct SimType {
  MPI_Aint Size = 1, Lb = 0, Extent = 1;
};
struct Pending {
  uint64_t Id;
  bool Recv;
  int32_t Source, Tag;
};

/// The state of the one lowering running (lowerCollective is not re-entrant).
struct Sim {
  int Rank = 0, Size = 1;
  bool Commutative = true;
  uint64_t Comm = 0;
  uint64_t *LastRequest = nullptr;
  std::vector<Event> *Out = nullptr;
  std::deque<SimType> Types; // derived types of this lowering (stable addresses)
  std::vector<Pending> Requests;
};
Sim *Cur = nullptr;

const SimType ByteType{1, 0, 1};

// Open MPI's handles are pointers, MPICH's ints: the simulation's own handles are small numbers
// (index + 1) * 16, never a predefined handle of either library, in whichever type MPI uses.
template <class Handle> Handle handleFromIndex(size_t Index) {
  const uintptr_t V = uintptr_t(Index + 1) << 4;
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<Handle>(V);
  else
    return static_cast<Handle>(V);
}
template <class Handle> size_t indexOfHandle(Handle H) {
  uintptr_t V;
  if constexpr (std::is_pointer_v<Handle>)
    V = reinterpret_cast<uintptr_t>(H);
  else
    V = static_cast<uintptr_t>(H);
  return (V >> 4) - 1;
}

const SimType &typeOf(MPI_Datatype T) {
  if (T == MPI_BYTE || T == MPI_DATATYPE_NULL)
    return ByteType;
  return Cur->Types[indexOfHandle(T)];
}
MPI_Datatype newType(const SimType &T) {
  Cur->Types.push_back(T);
  return handleFromIndex<MPI_Datatype>(Cur->Types.size() - 1);
}

MPI_Request requestHandle(size_t Index) { return handleFromIndex<MPI_Request>(Index); }
Pending *pendingOf(MPI_Request R) {
  if (R == MPI_REQUEST_NULL)
    return nullptr;
  const size_t Index = indexOfHandle(R);
  return Index < Cur->Requests.size() ? &Cur->Requests[Index] : nullptr;
}

void emit(Event E) {
  normaliseEvent(E);
  Cur->Out->push_back(std::move(E));
}

void completeInto(Event &E, MPI_Request &R) {
  const Pending *P = pendingOf(R);
  if (P == nullptr)
    return;
  E.Completed.push_back(
      P->Recv ? estimator::CompletedRequest{P->Id, P->Source, P->Tag}
              : estimator::CompletedRequest{P->Id, estimator::NoStatus, estimator::NoStatus});
  R = MPI_REQUEST_NULL;
}

} // namespace
} // namespace mpiete::scaling

using mpiete::scaling::Cur;
using mpiete::scaling::SimType;

// The MPI calls the lowering code makes, under their renamed names (local work only).
extern "C" {
int mpiete_sim_Comm_rank(MPI_Comm, int *R) {
  *R = Cur->Rank;
  return MPI_SUCCESS;
}
int mpiete_sim_Comm_size(MPI_Comm, int *S) {
  *S = Cur->Size;
  return MPI_SUCCESS;
}
int mpiete_sim_Type_size(MPI_Datatype T, int *S) {
  *S = int(mpiete::scaling::typeOf(T).Size);
  return MPI_SUCCESS;
}
int mpiete_sim_Type_get_extent(MPI_Datatype T, MPI_Aint *Lb, MPI_Aint *Extent) {
  *Lb = mpiete::scaling::typeOf(T).Lb;
  *Extent = mpiete::scaling::typeOf(T).Extent;
  return MPI_SUCCESS;
}
int mpiete_sim_Type_get_true_extent(MPI_Datatype T, MPI_Aint *Lb, MPI_Aint *Extent) {
  // One byte more than the extent: coll::copy then takes its pack path (a no-op here) and never
  // copies through the dummy buffers.
  *Lb = mpiete::scaling::typeOf(T).Lb;
  *Extent = mpiete::scaling::typeOf(T).Extent + 1;
  return MPI_SUCCESS;
}
int mpiete_sim_Type_indexed(int N, const int Lens[], const int Displs[], MPI_Datatype Old,
                            MPI_Datatype *New) {
  const SimType &O = mpiete::scaling::typeOf(Old);
  MPI_Aint Size = 0, Lo = 0, Hi = 0;
  for (int I = 0; I < N; ++I) {
    Size += MPI_Aint(Lens[I]) * O.Size;
    if (I == 0 || Displs[I] < Lo)
      Lo = Displs[I];
    if (I == 0 || Displs[I] + Lens[I] > Hi)
      Hi = Displs[I] + Lens[I];
  }
  *New = mpiete::scaling::newType({Size, Lo * O.Extent, (Hi - Lo) * O.Extent});
  return MPI_SUCCESS;
}
int mpiete_sim_Type_create_indexed_block(int N, int Len, const int Displs[], MPI_Datatype Old,
                                         MPI_Datatype *New) {
  const std::vector<int> Lens(static_cast<size_t>(N > 0 ? N : 0), Len);
  return mpiete_sim_Type_indexed(N, Lens.data(), Displs, Old, New);
}
int mpiete_sim_Type_commit(MPI_Datatype *) { return MPI_SUCCESS; }
int mpiete_sim_Type_free(MPI_Datatype *T) {
  *T = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
int mpiete_sim_Pack_size(int Count, MPI_Datatype T, MPI_Comm, int *Size) {
  *Size = int(Count * mpiete::scaling::typeOf(T).Size);
  return MPI_SUCCESS;
}
int mpiete_sim_Pack(const void *, int Count, MPI_Datatype T, void *, int, int *Position, MPI_Comm) {
  *Position += int(Count * mpiete::scaling::typeOf(T).Size);
  return MPI_SUCCESS;
}
int mpiete_sim_Unpack(const void *, int, int *Position, void *, int Count, MPI_Datatype T,
                      MPI_Comm) {
  *Position += int(Count * mpiete::scaling::typeOf(T).Size);
  return MPI_SUCCESS;
}
int mpiete_sim_Reduce_local(const void *, void *, int, MPI_Datatype, MPI_Op) { return MPI_SUCCESS; }
int mpiete_sim_Op_commutative(MPI_Op, int *C) {
  *C = Cur->Commutative;
  return MPI_SUCCESS;
}
int mpiete_sim_Abort(MPI_Comm, int) { std::abort(); }
}

// runtime/lib/Pack.h's MPI_BOTTOM path: a simulated buffer holds no bytes (it may be null), so
// packing from or into it only counts them, as for any other buffer.
namespace mpiete {
int packFromBottom(const void *Buf, int Count, MPI_Datatype Type, void *Out, int OutSize,
                   int *Position, MPI_Comm Comm) {
  return mpiete_sim_Pack(Buf, Count, Type, Out, OutSize, Position, Comm);
}
int unpackToBottom(const void *In, int InSize, int *Position, void *Buf, int Count,
                   MPI_Datatype Type, MPI_Comm Comm) {
  return mpiete_sim_Unpack(In, InSize, Position, Buf, Count, Type, Comm);
}
} // namespace mpiete

// The transport the lowering code sends through.
namespace mpiete::transport {

using scaling::Cur;

int isend(mpiete_site_t Block, const void *, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm, SendMode Mode, Context Ctx, MPI_Request *Req) {
  const uint64_t Id = ++*Cur->LastRequest;
  scaling::emit(estimator::Event::send(Block, Dest, Tag,
                                       uint64_t(Count) * uint64_t(scaling::typeOf(Type).Size), Id,
                                       Cur->Comm, uint8_t(Ctx), Mode));
  Cur->Requests.push_back({Id, false, 0, 0});
  *Req = scaling::requestHandle(Cur->Requests.size() - 1);
  return MPI_SUCCESS;
}

int irecv(mpiete_site_t Block, void *, int Count, MPI_Datatype Type, int Source, int Tag, MPI_Comm,
          Context Ctx, MPI_Request *Req) {
  const uint64_t Id = ++*Cur->LastRequest;
  scaling::emit(estimator::Event::recv(Block, Source, Tag,
                                       uint64_t(Count) * uint64_t(scaling::typeOf(Type).Size), Id,
                                       Cur->Comm, uint8_t(Ctx)));
  Cur->Requests.push_back({Id, true, Source, Tag});
  *Req = scaling::requestHandle(Cur->Requests.size() - 1);
  return MPI_SUCCESS;
}

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *) {
  estimator::Event E = estimator::Event::completion(Block, {});
  scaling::completeInto(E, *Req);
  scaling::emit(std::move(E));
  return MPI_SUCCESS;
}

int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status *) {
  estimator::Event E = estimator::Event::completion(Block, {});
  for (int I = 0; I < N; ++I)
    scaling::completeInto(E, Reqs[I]);
  scaling::emit(std::move(E));
  return MPI_SUCCESS;
}

} // namespace mpiete::transport

namespace mpiete::scaling {

using trace::CollKind;

std::string collNotLowered(CollKind K) {
  if (unsigned(K) <= trace::LastGlobalCollKind)
    return {};
  if (K == CollKind::Alltoallw)
    return "an alltoallw is not extrapolated: its datatypes per peer, which decide its byte "
           "counts, are not in the trace";
  return std::string("a neighbourhood collective (") + trace::CollKindNames[unsigned(K)] +
         ") is not extrapolated: its peers come from the communicator's Cartesian topology, "
         "which the trace does not record";
}

bool collHasRankBytes(CollKind K) {
  return K == CollKind::Gatherv || K == CollKind::Allgatherv || K == CollKind::Alltoallv ||
         K == CollKind::Scatterv;
}

bool collSplitsBytes(CollKind K) {
  return K == CollKind::Scatter || K == CollKind::Scatterv || K == CollKind::Alltoall ||
         K == CollKind::Alltoallv || K == CollKind::ReduceScatter ||
         K == CollKind::ReduceScatterBlock;
}

bool collBytesFromRoot(CollKind K) {
  return K == CollKind::Bcast || K == CollKind::Scatter || K == CollKind::Scatterv;
}

void normaliseEvent(Event &E) {
  using estimator::EventKind;
  const EventKind K = E.Kind;
  const bool Message = K == EventKind::SendStart || K == EventKind::RecvStart;
  if (K != EventKind::Segment)
    E.From = 0;
  if (!Message && K != EventKind::Probe) {
    E.Peer = 0;
    E.Tag = 0;
    E.Comm = 0;
  }
  if (!Message && K != EventKind::Loop)
    E.Count = 0;
  if (!Message && K != EventKind::RequestFree)
    E.Request = 0;
  // A receive record carries no mode (the reader leaves the last send's there).
  if (K != EventKind::SendStart)
    E.Mode = SendMode::Standard;
  if (!Message)
    E.Context = 0;
  if (K != EventKind::Probe)
    E.Found = true;
  if (K != EventKind::Completion)
    E.Completed.clear();
  E.Index = 0;
}

bool lowerCollective(const CollCall &C, int R, int P, uint64_t &LastRequest,
                     std::vector<Event> &Out, std::string &Why) {
  Sim S;
  S.Rank = R;
  S.Size = P;
  S.Commutative = C.Commutative;
  S.Comm = C.Comm;
  S.LastRequest = &LastRequest;
  S.Out = &Out;
  Cur = &S;
  const MPI_Datatype T = newType({C.Elem, 0, C.Elem});
  // Never read: Op_commutative answers from the call (and no builtin op is ever simulated).
  const MPI_Op Op = handleFromIndex<MPI_Op>(0);
  const MPI_Comm W = MPI_COMM_WORLD;
  // Buffers are never read or written (copies and reductions are no-ops here).
  static char Dummy[64];
  void *Buf = Dummy;
  const int Count = int(C.Bytes / C.Elem);
  const int PerRank = P > 0 ? int(C.Bytes / C.Elem / uint64_t(P)) : 0;
  std::vector<int> Counts(static_cast<size_t>(P), Count), Displs(Counts.size());
  std::vector<int> Blocks(static_cast<size_t>(P), PerRank), BlockDispls(Blocks.size());
  if (C.RankBytes != nullptr && collHasRankBytes(C.Kind)) {
    // Uneven counts: the members' own (a gather's), or the outer product of their shares (an
    // all-to-all's blocks), in whole elements.
    const std::vector<uint64_t> &B = *C.RankBytes;
    if (B.size() != size_t(P) || R < 0 || R >= P) {
      Why = "the members' counts do not match the communicator's size";
      return false;
    }
    unsigned __int128 Sum = 0;
    for (size_t I = 0; I < B.size(); ++I) {
      if (B[I] % C.Elem != 0 || B[I] / C.Elem > uint64_t(INT32_MAX)) {
        Why = "a member's count is no whole number of elements";
        return false;
      }
      Counts[I] = int(B[I] / C.Elem);
      Sum += B[I];
    }
    if (C.Kind == CollKind::Scatterv)
      Blocks = Counts;
    for (size_t I = 0; I < B.size() && C.Kind == CollKind::Alltoallv; ++I) {
      const unsigned __int128 Block = Sum == 0 ? 0 : (unsigned __int128)B[size_t(R)] * B[I];
      if (Sum != 0 && (Block % Sum != 0 || (Block / Sum) % C.Elem != 0)) {
        Why = "an all-to-all block of the members' shares is no whole number of elements";
        return false;
      }
      Blocks[I] = Sum == 0 ? 0 : int(Block / Sum / C.Elem);
    }
  }
  for (int I = 1; I < P; ++I) {
    Displs[size_t(I)] = Displs[size_t(I - 1)] + Counts[size_t(I - 1)];
    BlockDispls[size_t(I)] = BlockDispls[size_t(I - 1)] + Blocks[size_t(I - 1)];
  }
  const int Own = R >= 0 && R < P ? Counts[size_t(R)] : Count;
  const mpiete_site_t Site = C.Site;
  int Rc = MPI_SUCCESS;
  switch (C.Kind) {
  case CollKind::Barrier:
    Rc = coll::barrier(Site, W);
    break;
  case CollKind::Bcast:
    Rc = coll::bcast(Site, Buf, Count, T, C.Root, W);
    break;
  case CollKind::Reduce:
    Rc = coll::reduce(Site, Buf, Buf, Count, T, Op, C.Root, W);
    break;
  case CollKind::Allreduce:
    Rc = coll::allreduce(Site, Buf, Buf, Count, T, Op, W);
    break;
  case CollKind::Gather:
    Rc = coll::gather(Site, Buf, Count, T, Buf, Count, T, C.Root, W);
    break;
  case CollKind::Gatherv:
    Rc = coll::gatherv(Site, Buf, Own, T, Buf, Counts.data(), Displs.data(), T, C.Root, W);
    break;
  case CollKind::Scatter:
    Rc = coll::scatter(Site, Buf, PerRank, T, Buf, PerRank, T, C.Root, W);
    break;
  case CollKind::Scatterv:
    Rc = coll::scatterv(Site, Buf, Blocks.data(), BlockDispls.data(), T, Buf,
                        C.RankBytes != nullptr ? Own : PerRank, T, C.Root, W);
    break;
  case CollKind::Allgather:
    Rc = coll::allgather(Site, Buf, Count, T, Buf, Count, T, W);
    break;
  case CollKind::Allgatherv:
    Rc = coll::allgatherv(Site, Buf, Own, T, Buf, Counts.data(), Displs.data(), T, W);
    break;
  case CollKind::Alltoall:
    Rc = coll::alltoall(Site, Buf, PerRank, T, Buf, PerRank, T, W);
    break;
  case CollKind::Alltoallv:
    Rc = coll::alltoallv(Site, Buf, Blocks.data(), BlockDispls.data(), T, Buf, Blocks.data(),
                         BlockDispls.data(), T, W);
    break;
  case CollKind::ReduceScatter:
    Rc = coll::reduceScatter(Site, Buf, Buf, Blocks.data(), T, Op, W);
    break;
  case CollKind::ReduceScatterBlock:
    Rc = coll::reduceScatterBlock(Site, Buf, Buf, PerRank, T, Op, W);
    break;
  case CollKind::Scan:
    Rc = coll::scan(Site, Buf, Buf, Count, T, Op, W);
    break;
  case CollKind::Exscan:
    Rc = coll::exscan(Site, Buf, Buf, Count, T, Op, W);
    break;
  default:
    Cur = nullptr;
    Why = collNotLowered(C.Kind);
    return false;
  }
  Cur = nullptr;
  if (Rc != MPI_SUCCESS) {
    Why = "the lowering of this collective failed in simulation";
    return false;
  }
  return true;
}

} // namespace mpiete::scaling
