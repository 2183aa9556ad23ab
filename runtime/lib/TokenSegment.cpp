// The token machine's shared segment (one per job, mapped by every rank) and the heap and
// message descriptors inside it.
#include "TokenMachine.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpiete::transport::token {
namespace {

int mapSegment(int Fd, size_t Bytes) {
  void *P = ::mmap(nullptr, Bytes, PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
  if (P == MAP_FAILED)
    return errno;
  M.H = static_cast<Header *>(P);
  M.MapBytes = Bytes;
  return 0;
}

size_t alignUp(size_t X, size_t A) { return (X + A - 1) / A * A; }

int heapClass(uint64_t Bytes) {
  int C = 0;
  uint64_t Chunk = MinHeapChunk;
  while (Chunk < Bytes) {
    Chunk <<= 1;
    ++C;
  }
  return C;
}

} // namespace

void lockSegment() {
  if (const int Err = pthread_mutex_lock(&M.H->Lock); Err != 0)
    fatal("cannot lock the token-passing segment: %s", std::strerror(Err));
}

void unlockSegment() { pthread_mutex_unlock(&M.H->Lock); }

void setUpSegment(const char *Name, int K, const cpu_set_t &JobSet) {
  const uint32_t MaxMsgs = static_cast<uint32_t>(envNumber("MPIETE_MAX_MESSAGES", 1 << 16));
  const uint64_t HeapSize = envNumber("MPIETE_SHM_HEAP", 32ULL << 20);
  const size_t SlotsOff = alignUp(sizeof(Header), 64);
  const size_t MsgsOff = alignUp(SlotsOff + sizeof(RankSlot) * static_cast<size_t>(M.N), 64);
  const size_t HeapOff = alignUp(MsgsOff + sizeof(MsgDesc) * MaxMsgs, 4096);
  const size_t Bytes = HeapOff + HeapSize;

  int Err = 0;
  if (M.Me == 0) {
    const int Fd = shm_open(Name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (Fd < 0 || ::ftruncate(Fd, static_cast<off_t>(Bytes)) != 0 ||
        (Err = mapSegment(Fd, Bytes)) != 0)
      fatal("cannot create the token-passing segment '%s' (%zu bytes): %s", Name, Bytes,
            std::strerror(Err != 0 ? Err : errno));
    ::close(Fd);
    Header &H = *M.H;
    pthread_mutexattr_t Attr;
    pthread_mutexattr_init(&Attr);
    pthread_mutexattr_setpshared(&Attr, PTHREAD_PROCESS_SHARED);
    if (const int E = pthread_mutex_init(&H.Lock, &Attr); E != 0)
      fatal("cannot make the token-passing mutex: %s", std::strerror(E));
    pthread_mutexattr_destroy(&Attr);
    H.Magic = SegmentMagic;
    H.NRanks = M.N;
    H.NTokens = K;
    chooseCpus(K, JobSet, H.Cpus);
    H.MaxMsgs = MaxMsgs;
    H.HeapSize = HeapSize;
    for (uint64_t &F : H.FreeChunks)
      F = NoOffset;
    auto *Slots = reinterpret_cast<RankSlot *>(reinterpret_cast<char *>(M.H) + SlotsOff);
    for (int R = 0; R < M.N; ++R) {
      if (sem_init(&Slots[R].Wake, 1, 0) != 0)
        fatal("sem_init failed: %s", std::strerror(errno));
      // Ranks First .. First + k - 1 (cyclically) start with tokens 0 .. k - 1.
      const int T = M.startPlace(R);
      Slots[R].State = T < K ? RankState::Running : RankState::Ready;
      Slots[R].Token = T < K ? T : -1;
      Slots[R].Cpu = -1;
      Slots[R].QueueHead = Slots[R].QueueTail = NoMsg;
      Slots[R].WaitEpoch = UINT64_MAX;
    }
    auto *Msgs = reinterpret_cast<MsgDesc *>(reinterpret_cast<char *>(M.H) + MsgsOff);
    for (uint32_t I = 0; I < MaxMsgs; ++I)
      Msgs[I].Next = I + 1 < MaxMsgs ? I + 1 : NoMsg;
    H.FreeMsg = MaxMsgs > 0 ? 0 : NoMsg;
    for (int T = 0; T < K; ++T)
      H.TokenHolder[T] = T < M.N ? (M.First + T) % M.N : -1;
    H.HeldTokens = K < M.N ? K : M.N;
    H.BusyCpu = -1; // until the first holder has pinned itself (init)
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  if (M.Me != 0) {
    const int Fd = shm_open(Name, O_RDWR, 0600);
    if (Fd < 0 || (Err = mapSegment(Fd, Bytes)) != 0)
      fatal("cannot open the token-passing segment '%s': %s", Name,
            std::strerror(Err != 0 ? Err : errno));
    ::close(Fd);
    if (M.H->Magic != SegmentMagic || M.H->NRanks != M.N)
      fatal("the token-passing segment '%s' is not this job's", Name);
  }
  M.Slots = reinterpret_cast<RankSlot *>(reinterpret_cast<char *>(M.H) + SlotsOff);
  M.Msgs = reinterpret_cast<MsgDesc *>(reinterpret_cast<char *>(M.H) + MsgsOff);
  M.Heap = reinterpret_cast<unsigned char *>(M.H) + HeapOff;
  __atomic_store_n(&self().Pid, static_cast<int>(getpid()), __ATOMIC_SEQ_CST);
  PMPI_Barrier(MPI_COMM_WORLD);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (M.Me == 0)
    shm_unlink(Name); // every rank has it mapped: nothing can leak from here on
}

uint64_t heapAlloc(uint64_t Bytes) {
  if (Bytes > MaxHeapChunk)
    return NoOffset;
  const int C = heapClass(Bytes);
  Header &H = *M.H;
  if (H.FreeChunks[C] != NoOffset) {
    const uint64_t Off = H.FreeChunks[C];
    std::memcpy(&H.FreeChunks[C], M.Heap + Off, sizeof(uint64_t));
    return Off;
  }
  const uint64_t Chunk = MinHeapChunk << C;
  if (H.HeapTop + Chunk > H.HeapSize)
    return NoOffset;
  const uint64_t Off = H.HeapTop;
  H.HeapTop += Chunk;
  return Off;
}

void heapFree(uint64_t Off, uint64_t Bytes) {
  const int C = heapClass(Bytes);
  std::memcpy(M.Heap + Off, &M.H->FreeChunks[C], sizeof(uint64_t));
  M.H->FreeChunks[C] = Off;
}

uint32_t allocMsg() {
  Header &H = *M.H;
  if (H.FreeMsg == NoMsg)
    fatal("more than %u messages sent and not yet received under token passing "
          "(raise "
          "MPIETE_MAX_MESSAGES)",
          H.MaxMsgs);
  const uint32_t I = H.FreeMsg;
  H.FreeMsg = M.Msgs[I].Next;
  H.InUseMsgs += 1;
  return I;
}

void freeMsg(uint32_t I) {
  MsgDesc &D = M.Msgs[I];
  if (D.Store == Storage::Heap)
    heapFree(D.HeapOff, D.HeapChunk);
  D.Store = Storage::None;
  D.Next = M.H->FreeMsg;
  M.H->FreeMsg = I;
  M.H->InUseMsgs -= 1;
}

} // namespace mpiete::transport::token
