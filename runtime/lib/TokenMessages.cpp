// The token machine's requests and messages: posted receives matched against each rank's
// incoming queue in send order, messages copied out of shared memory, sent messages released
// once read.
#include "Pack.h"
#include "TokenMachine.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpiete::transport::token {
namespace {

bool matches(const MsgDesc &D, const Request &R) {
  return D.CommId == R.CommId && D.Ctx == R.Ctx &&
         (R.SrcWorld == MPI_ANY_SOURCE || D.SrcWorld == R.SrcWorld) &&
         (R.Tag == MPI_ANY_TAG || D.Tag == R.Tag);
}

void unlinkMsg(uint32_t I, uint32_t Prev) {
  RankSlot &S = self();
  const uint32_t Next = M.Msgs[I].Next;
  if (Prev == NoMsg)
    S.QueueHead = Next;
  else
    M.Msgs[Prev].Next = Next;
  if (S.QueueTail == I)
    S.QueueTail = Prev;
}

/// Copies message I into receive R's buffer and completes R.
void deliver(uint32_t I, Request &R) {
  MsgDesc &D = M.Msgs[I];
  int TypeBytes = 0;
  PMPI_Type_size(R.Type, &TypeBytes);
  const uint64_t Capacity = static_cast<uint64_t>(TypeBytes) * static_cast<uint64_t>(R.Count);
  int Err = MPI_SUCCESS;
  uint64_t Bytes = D.Bytes;
  if (Bytes > Capacity) {
    Err = MPI_ERR_TRUNCATE;
    Bytes = Capacity;
  }
  const int Whole = TypeBytes > 0 ? static_cast<int>(Bytes / static_cast<uint64_t>(TypeBytes)) : 0;
  if (Whole > 0) {
    const void *Data = nullptr;
    void *Map = MAP_FAILED;
    int Fd = -1;
    if (D.Store == Storage::Heap) {
      Data = M.Heap + D.HeapOff;
    } else if (D.Pooled) {
      Data = mapBig(D.SrcWorld, D.Fd, D.Bytes);
    } else {
      char Path[64];
      std::snprintf(Path, sizeof Path, "/proc/%d/fd/%d", slot(D.SrcWorld).Pid, D.Fd);
      Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
      if (Fd < 0)
        fatal("cannot open the %" PRIu64 "-byte message from rank %d ('%s'): %s", D.Bytes,
              D.SrcWorld, Path, std::strerror(errno));
      Map = ::mmap(nullptr, D.Bytes, PROT_READ, MAP_SHARED, Fd, 0);
      if (Map == MAP_FAILED)
        fatal("cannot map the %" PRIu64 "-byte message from rank %d: %s", D.Bytes, D.SrcWorld,
              std::strerror(errno));
      Data = Map;
    }
    int Position = 0;
    // Packing and unpacking name MPI_COMM_WORLD: the data representation is the
    // same for every communicator, and the user's may be freed before its
    // receive completes.
    const int Rc = unpackMessage(Data, static_cast<int>(D.Bytes), &Position, R.Buf, Whole, R.Type,
                                 MPI_COMM_WORLD);
    if (Rc != MPI_SUCCESS && Err == MPI_SUCCESS)
      Err = Rc;
    if (Map != MAP_FAILED)
      ::munmap(Map, D.Bytes);
    if (Fd >= 0)
      ::close(Fd);
  }
  setStatus(R.Status, D.SrcRank, D.Tag, Err, static_cast<int>(Bytes));
  R.Err = Err;
  R.Complete = true;

  if (D.Sync || D.Store == Storage::Memfd) {
    D.Done = 1;
    slot(D.SrcWorld).Epoch += 1;
    fillIdleTokens(D.SrcWorld);
  } else {
    freeMsg(I);
  }
  progressMade();
}

} // namespace

//===-- Requests ----------------------------------------------------------------------------===//

Request **RequestSlots = nullptr;
uint32_t NRequestSlots = 0;
namespace {
uint32_t RequestSlotCap = 0;
} // namespace

Request *newRequest(ReqKind K, mpiete_site_t Block) {
  Request *R = M.FreeReqs;
  uint32_t Slot = 0;
  if (R != nullptr) {
    M.FreeReqs = R->Next;
    Slot = R->Slot;
  } else {
    R = static_cast<Request *>(std::malloc(sizeof(Request)));
    if (R == nullptr)
      fatal("out of memory allocating a request");
    if (NRequestSlots == RequestSlotCap) {
      RequestSlotCap = RequestSlotCap == 0 ? 64 : RequestSlotCap * 2;
      RequestSlots =
          static_cast<Request **>(std::realloc(RequestSlots, RequestSlotCap * sizeof(Request *)));
      if (RequestSlots == nullptr)
        fatal("out of memory allocating a request");
    }
    Slot = NRequestSlots++;
    RequestSlots[Slot] = R;
  }
  std::memset(static_cast<void *>(R), 0, sizeof(Request));
  R->Slot = Slot;
  R->Magic = ReqMagic;
  R->Kind = K;
  R->Block = Block;
  R->Err = MPI_SUCCESS;
  return R;
}

void releaseRequest(Request *R) {
  R->Magic = 0;
  R->Next = M.FreeReqs;
  M.FreeReqs = R;
}

Request *toRequest(MPI_Request Req, mpiete_site_t Block) {
  Request *R = fromHandle(Req);
  if (R == nullptr || R->Magic != ReqMagic) {
    char Id[BlockIdBufferSize];
    formatBlockId(Block, Id, sizeof Id);
    fatal("invalid request passed at block %s (not made by a rewritten MPI call)", Id);
  }
  return R;
}

void setStatus(MPI_Status &St, int Source, int Tag, int Err, int Bytes) {
  St.MPI_SOURCE = Source;
  St.MPI_TAG = Tag;
  St.MPI_ERROR = Err;
  PMPI_Status_set_elements(&St, MPI_BYTE, Bytes);
  PMPI_Status_set_cancelled(&St, 0);
}

void emptyStatus(MPI_Status *St) {
  if (St != MPI_STATUS_IGNORE)
    setStatus(*St, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
}

/// A completed request's status and error; releases it and sets the handle to
/// null.
int finish(MPI_Request *Handle, MPI_Status *St) {
  Request *R = fromHandle(*Handle);
  const int Err = R->Err;
  if (St != MPI_STATUS_IGNORE) {
    if (R->Kind == ReqKind::Recv)
      *St = R->Status;
    else
      setStatus(*St, MPI_ANY_SOURCE, MPI_ANY_TAG, Err, 0);
  }
  releaseRequest(R);
  *Handle = MPI_REQUEST_NULL;
  return Err;
}

//===-- Progress ----------------------------------------------------------------------------===//

void addOwned(uint32_t Msg, Request *Req) {
  if (M.NOwned == M.OwnedCap) {
    const size_t Cap = M.OwnedCap == 0 ? 64 : M.OwnedCap * 2;
    auto *New = static_cast<Owned *>(std::realloc(M.OwnedList, Cap * sizeof(Owned)));
    if (New == nullptr)
      fatal("out of memory tracking sent messages");
    M.OwnedList = New;
    M.OwnedCap = Cap;
  }
  M.OwnedList[M.NOwned++] = Owned{Msg, Req};
}

/// Releases the messages the receivers have read; completes synchronous sends.
void sweepOwned() {
  size_t Kept = 0;
  for (size_t I = 0; I < M.NOwned; ++I) {
    Owned &O = M.OwnedList[I];
    if (!M.Msgs[O.Msg].Done) {
      M.OwnedList[Kept++] = O;
      continue;
    }
    releaseMemfd(M.Msgs[O.Msg]);
    if (O.Req != nullptr) {
      O.Req->Complete = true;
      if (O.Req->Freed)
        releaseRequest(O.Req);
    }
    freeMsg(O.Msg);
  }
  M.NOwned = Kept;
}

/// The first message in this rank's queue that the receive (or probe) R
/// matches; Prev gets its predecessor (NoMsg for the head).
uint32_t findMatch(const Request &R, uint32_t &Prev) {
  Prev = NoMsg;
  for (uint32_t I = self().QueueHead; I != NoMsg; Prev = I, I = M.Msgs[I].Next)
    if (matches(M.Msgs[I], R))
      return I;
  return NoMsg;
}

/// Everything this rank can do without waiting: release read messages, match
/// posted receives.
void progress() {
  if (M.NOwned != 0)
    sweepOwned();
  Request **Link = &M.Pending;
  Request *Prev = nullptr;
  while (Request *R = *Link) {
    uint32_t PrevMsg;
    const uint32_t I = findMatch(*R, PrevMsg);
    if (I == NoMsg) {
      Prev = R;
      Link = &R->Next;
      continue;
    }
    unlinkMsg(I, PrevMsg);
    *Link = R->Next;
    if (M.PendingTail == R)
      M.PendingTail = Prev;
    R->Next = nullptr;
    deliver(I, *R);
    if (R->Freed)
      releaseRequest(R);
  }
}

} // namespace mpiete::transport::token

//===-- Reused memfds for large messages ----------------------------------------------------===//

namespace mpiete::transport::token {

int acquireBig(uint64_t Bytes) {
  if (!M.BigPool)
    return -1;
  // The smallest free buffer that holds the message; else grow the largest free one, or open a
  // new one while there is room.
  int Fit = -1, Free = -1, Empty = -1;
  for (int B = 0; B < MaxBigBuffers; ++B) {
    BigBuffer &X = M.Big[B];
    if (X.Fd < 0) {
      Empty = Empty < 0 ? B : Empty;
    } else if (!X.InUse) {
      if (X.Capacity >= Bytes && (Fit < 0 || X.Capacity < M.Big[Fit].Capacity))
        Fit = B;
      if (Free < 0 || X.Capacity > M.Big[Free].Capacity)
        Free = B;
    }
  }
  const int B = Fit >= 0 ? Fit : Empty >= 0 ? Empty : Free;
  if (B < 0)
    return -1;
  BigBuffer &X = M.Big[B];
  if (X.Capacity < Bytes) {
    // Whole mebibytes: a message a little larger than the last reuses the buffer.
    const uint64_t Capacity = (Bytes + (1ULL << 20) - 1) & ~((1ULL << 20) - 1);
    if (X.Fd < 0) {
      X.Fd = memfd_create("mpiete-big-message", MFD_CLOEXEC);
      if (X.Fd < 0)
        return -1;
    }
    if (X.Map != nullptr)
      ::munmap(X.Map, X.Capacity);
    X.Map = nullptr;
    X.Capacity = 0;
    if (::ftruncate(X.Fd, static_cast<off_t>(Capacity)) != 0)
      return -1;
    void *Map = ::mmap(nullptr, Capacity, PROT_READ | PROT_WRITE, MAP_SHARED, X.Fd, 0);
    if (Map == MAP_FAILED)
      return -1;
    X.Map = Map;
    X.Capacity = Capacity;
  }
  X.InUse = true;
  return B;
}

void releaseMemfd(const MsgDesc &D) {
  if (D.Pooled)
    releaseBig(D.Fd);
  else if (D.Fd >= 0)
    ::close(D.Fd);
}

void releaseBig(int Fd) {
  for (BigBuffer &X : M.Big)
    if (X.Fd == Fd)
      X.InUse = false;
}

const void *mapBig(int SrcWorld, int Fd, uint64_t Bytes) {
  BigMapping *Use = nullptr, *Oldest = &M.BigMaps[0];
  for (BigMapping &X : M.BigMaps) {
    if (X.SrcWorld == SrcWorld && X.Fd == Fd)
      Use = &X;
    if (X.LastUse < Oldest->LastUse)
      Oldest = &X;
  }
  if (Use == nullptr) {
    Use = Oldest;
    if (Use->Map != nullptr)
      ::munmap(Use->Map, Use->Length);
    *Use = BigMapping{};
  }
  Use->LastUse = ++M.BigUses;
  if (Use->Map != nullptr && Use->Length >= Bytes)
    return Use->Map;
  // A new buffer, or one that grew since it was mapped here (the sender only ever grows it).
  if (Use->Map != nullptr)
    ::munmap(Use->Map, Use->Length);
  Use->Map = nullptr;
  char Path[64];
  std::snprintf(Path, sizeof Path, "/proc/%d/fd/%d", slot(SrcWorld).Pid, Fd);
  const int F = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (F < 0)
    fatal("cannot open the %" PRIu64 "-byte message from rank %d ('%s'): %s", Bytes, SrcWorld, Path,
          std::strerror(errno));
  struct stat St;
  const uint64_t Length = ::fstat(F, &St) == 0 && static_cast<uint64_t>(St.st_size) >= Bytes
                              ? static_cast<uint64_t>(St.st_size)
                              : Bytes;
  void *Map = ::mmap(nullptr, Length, PROT_READ, MAP_SHARED, F, 0);
  ::close(F);
  if (Map == MAP_FAILED)
    fatal("cannot map the %" PRIu64 "-byte message from rank %d: %s", Bytes, SrcWorld,
          std::strerror(errno));
  Use->SrcWorld = SrcWorld;
  Use->Fd = Fd;
  Use->Length = Length;
  Use->Map = Map;
  return Map;
}

void unmapAllBig() {
  for (BigMapping &X : M.BigMaps) {
    if (X.Map != nullptr)
      ::munmap(X.Map, X.Length);
    X = BigMapping{};
  }
  for (BigBuffer &X : M.Big) {
    if (X.Map != nullptr)
      ::munmap(X.Map, X.Capacity);
    if (X.Fd >= 0)
      ::close(X.Fd);
    X = BigBuffer{};
  }
}

} // namespace mpiete::transport::token
