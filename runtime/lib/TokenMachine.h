// The token machine's shared state and the functions its files share (runtime/lib/Token*.cpp):
// the timing variant's transport, seed 004's token-passing execution (section 3.3) over shared
// memory, so that only one rank computes at a time on one processor and its blocks' times are
// undisturbed. Internal to the runtime; the interface it implements is Transport.h.
//
// How it works (docs/token-passing.md):
//   - Rank 0 creates a control segment that every rank maps (TokenSegment.cpp). There are k
//     tokens (MPIETE_RANKS_PER_NODE, default 1: seed 004's single token); token i is processor
//     i of the node, so up to k ranks compute at once, never two on one processor. A rank
//     touches the segment only inside a transport call and under the segment's process-shared
//     mutex: with k = 1 it is never contended (only the token holder runs), with k > 1 it
//     orders the running ranks.
//   - A message is packed (PMPI_Pack) into shared memory at send time, so it is complete
//     however long its sender sleeps: small and medium ones into a heap in the segment, large
//     ones into a memfd of the sender that the receiver opens through /proc. No byte of user
//     data goes through MPI, so nothing depends on MPI progress in a sleeping process.
//   - The receiver matches its posted receives, in the order it posted them, against its
//     incoming queue, in global send order (TokenMessages.cpp): MPI's ordering rules hold and a
//     wildcard receive is matched the same way on every run (with one token).
//   - A rank runs until it must wait for something not yet there, then hands its token on
//     (cyclically from rank + 1) to the first rank that can run, and sleeps on its semaphore
//     (TokenScheduler.cpp). A blocked rank can run again only once something arrived for it
//     since it last looked (its epoch moved), so a state where nobody can run is seen at once
//     and reported (TokenDeadlock.cpp). With k > 1 a token nobody can take stays idle until a
//     message makes a waiting rank runnable.
//   - The transport's entry points: starts and communicator calls in TokenMachine.cpp, the
//     Wait/Test family, probes and Request_free in TokenWait.cpp.
#ifndef MPIETE_RUNTIME_TOKENMACHINE_H
#define MPIETE_RUNTIME_TOKENMACHINE_H

#include "Comms.h"
#include "Recorder.h"
#include "Transport.h"

#include <cstddef>
#include <cstdint>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <type_traits>

namespace mpiete::transport::token {

constexpr uint64_t SegmentMagic = 0x6d70696574656b31ULL; // "mpietek1"
constexpr uint32_t NoMsg = UINT32_MAX;
constexpr uint64_t NoOffset = UINT64_MAX;
// 64 B .. 4 MiB: a halo or a row block of 64 KiB-4 MiB is common, and a message in a memfd of
// its own costs memfd_create, ftruncate, two mmap/munmap pairs (each munmap a TLB flush) and
// fresh pages every time; chunks of the heap are reused (docs/token-passing.md).
constexpr int NumHeapClasses = 17;
constexpr uint64_t MinHeapChunk = 64;
constexpr uint64_t MaxHeapChunk = MinHeapChunk << (NumHeapClasses - 1);
constexpr int MaxCollSlots = 64;
constexpr int MaxWaitConds = 4;
constexpr int MaxTokens = 1024; // ranks per node: no node has more processors (CPU_SETSIZE)

//===-- Shared state (one segment per job) --------------------------------------------------===//

enum class RankState : uint32_t {
  Running,    // holds a token
  Ready,      // can run as soon as it gets a token (not yet started, or polling)
  Blocked,    // waits for something to arrive (runnable again once its epoch
              // moves)
  PollWait,   // (k > 1) polled in vain while other ranks ran: sleeps like Blocked, but
              // counts as Ready once no rank holds a token, as a poller does with k = 1
  Parked,     // arrived at a communicator call, waits for the other members
  Collective, // runs a communicator call with the other members; nobody holds
              // the token
  Finished,   // reached MPI_Finalize
};

enum class WaitWhat : uint8_t {
  None,
  Wait,
  Waitall,
  Waitany,
  Waitsome,
  Test,
  Testall,
  Testany,
  Testsome,
  Probe,
  Iprobe,
  CommCall,
  Finalize,
};

enum class CondKind : uint8_t { Recv, SyncSend, Probe };

/// One thing a waiting rank waits for, kept only for the deadlock report.
struct WaitCond {
  uint64_t CommId;
  uint64_t StartBlock;
  int Peer; // as the user gave it (rank in the communicator, MPI_ANY_SOURCE)
  int Tag;
  CondKind Kind;
  Context Ctx;
};

struct WaitDesc {
  uint64_t Block;
  uint64_t CommId; // CommCall
  uint32_t NPending;
  WaitWhat What;
  WaitCond Conds[MaxWaitConds];
};

struct RankSlot {
  sem_t Wake;
  RankState State;
  int Token; // the token it holds (Running), or -1
  int Pid;
  int Cpu;            // its own processor (MPIETE_PIN=rank), or -1
  uint64_t Epoch;     // moves when a message arrives for this rank or its synchronous
                      // send is matched: the only events that can end its wait
  uint64_t WaitEpoch; // Epoch when it last found that it cannot go on
  uint32_t QueueHead; // incoming unmatched messages in send order
  uint32_t QueueTail;
  WaitDesc Wait;
};

enum class Storage : uint8_t { None, Heap, Memfd };

struct MsgDesc {
  uint64_t Seq;
  uint64_t CommId;
  uint64_t Bytes;
  uint64_t HeapOff;
  uint64_t HeapChunk; // the size the heap chunk was allocated for (its size class)
  int SrcWorld;
  int DstWorld;
  int SrcRank; // the sender's rank in the communicator: the receiver's
               // MPI_SOURCE
  int Tag;
  int Fd; // Memfd: the sender's descriptor
  uint32_t Next;
  Context Ctx;
  Storage Store;
  uint8_t Sync;
  uint8_t Done;   // matched and read: the sender may release it (Sync, Memfd)
  uint8_t Pooled; // Memfd: one of the sender's reused buffers (BigBuffer): the receiver may keep
                  // its mapping, since the descriptor stays open and names that buffer
};

struct CollSlot {
  uint64_t CommId;
  int Used;
  int Size;
  int Arrived;
  int Last; // the member that arrived last: it holds a token again afterwards
  int Started;
  int Remaining;
};

struct Header {
  pthread_mutex_t Lock; // every access to the segment below holds it
  uint64_t Magic;
  int NRanks;
  int NFinished;
  int Arrived;     // ranks through MPI_Init (pinned, about to wait for a token)
  int NTokens;     // ranks per node: how many ranks compute at once
  int HeldTokens;  // tokens held by Running ranks; the others are idle
  int Draining;    // communicator calls whose members all arrived, waiting for every token
  int ActiveColls; // communicator calls running (nobody holds a token meanwhile)
  // One token, a processor per rank: the processor of the rank holding the token, or -1. A
  // waiting rank's spinner keeps its processor busy only while no rank computes there (more
  // ranks than processors). In the segment's first page, which every rank keeps mapped after
  // MPI_Finalize: the spinner reads it without the lock, and may still look once more.
  int BusyCpu;
  int Cpus[MaxTokens];        // token i runs on processor Cpus[i] (-1: not pinned)
  int TokenHolder[MaxTokens]; // the rank holding token i, or -1
  uint64_t Epoch;             // global progress: any message sent or matched
  uint64_t Seq;
  uint64_t FruitlessPolls; // failed polls since the last progress
  uint32_t FreeMsg;
  uint32_t MaxMsgs;
  uint32_t InUseMsgs;
  uint64_t HeapSize;
  uint64_t HeapTop;
  uint64_t FreeChunks[NumHeapClasses];
  CollSlot Colls[MaxCollSlots];
};
static_assert(offsetof(Header, BusyCpu) + sizeof(int) <= 4096,
              "BusyCpu must lie in the page kept mapped after MPI_Finalize");

//===-- Process-local state -----------------------------------------------------------------===//

enum class ReqKind : uint8_t { Send, Recv };
constexpr uint32_t ReqMagic = 0x7265716bU;

struct Request {
  uint32_t Magic;
  ReqKind Kind;
  bool Complete;
  bool Freed; // the user released it (MPI_Request_free) before it completed
  bool Sync;
  int Err;
  mpiete_site_t Block;
  MPI_Status Status;
  // Receives.
  void *Buf;
  int Count;
  MPI_Datatype Type;
  int Source; // as given (rank in the communicator or MPI_ANY_SOURCE)
  int SrcWorld;
  int Tag;
  uint64_t CommId;
  Context Ctx;
  Request *Next; // pending-receive list, or free list
  uint32_t Slot; // its index in RequestSlots (kept when the request is reused)
};

/// A message this process sent that it must release later: synchronous sends
/// (complete when matched) and memfd messages (the descriptor stays open until
/// the receiver has read it).
struct Owned {
  uint32_t Msg; // its descriptor says which memfd to release (releaseMemfd)
  Request *Req; // the synchronous send's request, or null
};

/// A message too large for the segment's heap goes into a memfd. A fresh memfd per message
/// costs fresh zeroed pages (a page fault per 4 KiB on both sides) and a TLB flush per munmap,
/// and that disturbs the computation around it (a transpose's 11 MB messages: its compute
/// 1.6-1.8x the original's, docs/token-passing.md). The sender keeps up to MaxBigBuffers of them
/// open and mapped and reuses one once its receiver has read it; the receiver keeps its mappings
/// of them (BigMapping).
struct BigBuffer {
  int Fd = -1;
  uint64_t Capacity = 0;
  void *Map = nullptr;
  bool InUse = false;
};
struct BigMapping {
  int SrcWorld = -1;
  int Fd = -1;
  uint64_t Length = 0;
  void *Map = nullptr;
  uint64_t LastUse = 0;
};
constexpr int MaxBigBuffers = 8;
constexpr int MaxBigMappings = 32;

struct Machine {
  bool Active = false;
  int Me = -1;
  int N = 0;
  Header *H = nullptr;
  RankSlot *Slots = nullptr;
  MsgDesc *Msgs = nullptr;
  unsigned char *Heap = nullptr;
  size_t MapBytes = 0;
  uint64_t PollLimit = 1000000;
  int PinnedCpu = -1;
  // One token, one processor per rank (MPIETE_PIN=rank): the rank stays on its own processor
  // and never follows the token (docs/token-passing.md, "Processors").
  bool OwnCpu = false;
  // k > 1 tokens, MPIETE_PIN=rank (the default): token i belongs to processor Cpus[i], and rank
  // R may hold only token tokenOf(R), staying on that processor for the whole run, as a node
  // that runs more ranks than processors keeps each on one (docs/token-passing.md, "Several
  // tokens"). With MPIETE_PIN=token a rank holds any token and moves to its processor.
  bool TokenPerCpu = false;
  // The rank that holds token 0 at the start (MPIETE_TOKEN_FIRST, rank 0's value; default 0):
  // ranks First .. First + k - 1 (cyclically) start with the tokens. probe-compute --repeat
  // starts each run at another rank, so a disturbance at a fixed time into the run falls on
  // different ranks for the median to drop (docs/token-passing.md, "The first rank").
  int First = 0;
  // Rank R's place in the start order: the ranks at 0 .. k - 1 start with tokens 0 .. k - 1.
  int startPlace(int R) const { return (R - First + N) % N; }
  // The token rank R may hold with TokenPerCpu (the ranks at 0 .. k - 1 start with theirs).
  int tokenOf(int R) const { return startPlace(R) % H->NTokens; }
  // While the rank waits for the token, an idle-priority thread keeps its processor busy
  // (chooseWaiting, TokenScheduler.cpp).
  bool SpinWait = false;

  Request *Pending = nullptr; // posted receives in post order
  Request *PendingTail = nullptr;
  Request *FreeReqs = nullptr;
  // MPI_Comm_free: the record of the communicator being freed, kept for its
  // collective call (comms::freed forgets the handle before the call runs).
  MPI_Comm Freeing = MPI_COMM_NULL;
  const comms::Info *FreeingInfo = nullptr;

  // The block of the last start in a lowered collective's matching space: the
  // collective's site, counted by its entry point, so its internal waits are
  // not counted again.
  mpiete_site_t CollectiveBlock = ~0ULL;

  Owned *OwnedList = nullptr;
  size_t NOwned = 0;
  size_t OwnedCap = 0;

  // Reused memfds for messages larger than a heap chunk (MPIETE_BIG_BUFFERS=0: a fresh one per
  // message, as before the forty-sixth session).
  bool BigPool = true;
  BigBuffer Big[MaxBigBuffers];
  BigMapping BigMaps[MaxBigMappings];
  uint64_t BigUses = 0;

  // The traced run's matches (MPIETE_WILDCARD_SOURCES, probe-compute --program): the world
  // rank each of this rank's user MPI_ANY_SOURCE receives and found MPI_ANY_SOURCE probes
  // took, in program order (-1: unknown, left to the token's order). The timing run then does
  // the work the trace shows (a task farm's assignment), not the token order's.
  int *WildSources = nullptr;
  size_t NWildSources = 0;
  size_t NextWild = 0;
};

extern Machine M;

inline Recorder &rec() { return Recorder::get(); }
inline RankSlot &slot(int R) { return M.Slots[R]; }
inline RankSlot &self() { return M.Slots[M.Me]; }
/// With one token: Cpu is the processor of the rank now holding it (-1: none holds it).
inline void setBusyCpu(int Cpu) {
  if (M.H->NTokens == 1)
    __atomic_store_n(&M.H->BusyCpu, Cpu, __ATOMIC_RELAXED);
}

/// The traced source of this rank's next user MPI_ANY_SOURCE receive or found probe
/// (MPIETE_WILDCARD_SOURCES): a world rank, -1 when the trace does not say, NoTracedSource
/// past the list (or without one). takeTracedSource() moves past it.
constexpr int NoTracedSource = -2;
inline int tracedSource() {
  return M.NextWild < M.NWildSources ? M.WildSources[M.NextWild] : NoTracedSource;
}
inline void takeTracedSource() {
  if (M.NextWild < M.NWildSources)
    ++M.NextWild;
}

/// `mpiete: rank N: error: ...` and the job ends (Recorder::fail).
[[noreturn]] void fatal(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
/// Rc of Call at Block as real MPI would treat it: an error under MPI_COMM_WORLD's default
/// handler (MPI_ERRORS_ARE_FATAL) ends the job naming the rank, the call site and the error
/// class (issue 14, finding 7: a truncation must not pass for a result); returned otherwise.
int mpiError(int Rc, mpiete_site_t Block, const char *Call);
/// The environment variable Name as a number (0x and 0 prefixes as strtoull), else Default.
uint64_t envNumber(const char *Name, uint64_t Default);
/// Outside MPI_Init .. MPI_Finalize the machine is not there: a fatal error naming Fn.
void checkActive(const char *Fn);

//===-- Segment and heap (TokenSegment.cpp) -------------------------------------------------===//

void lockSegment();
void unlockSegment();

/// Holds the segment's mutex for the rest of a transport call.
struct SegmentLock {
  SegmentLock() { lockSegment(); }
  ~SegmentLock() { unlockSegment(); }
  SegmentLock(const SegmentLock &) = delete;
  SegmentLock &operator=(const SegmentLock &) = delete;
};

/// Creates (rank 0) or maps (the others) the job's segment Name for K tokens, rank 0 choosing
/// the tokens' processors among JobSet; on return every rank has it mapped and its name is
/// unlinked. Collective over MPI_COMM_WORLD.
void setUpSegment(const char *Name, int K, const cpu_set_t &JobSet);

/// A heap chunk of at least Bytes bytes (its offset in the heap), or NoOffset: the message
/// goes into a memfd instead.
uint64_t heapAlloc(uint64_t Bytes);
void heapFree(uint64_t Off, uint64_t Bytes);
/// A free message descriptor (fatal if none is left).
uint32_t allocMsg();
/// Returns message I's descriptor and its heap chunk.
void freeMsg(uint32_t I);

//===-- Tokens, sleeping, pinning (TokenScheduler.cpp) --------------------------------------===//

/// Pins this process to Cpu (the processor of the token it holds), unless MPIETE_CPU=none.
void pinToCpu(int Cpu);
/// Rank 0: the processor of each of the K tokens (TokenScheduler.cpp says how they are chosen).
void chooseCpus(int K, const cpu_set_t &JobSet, int *Cpus);
/// Token 0's processor: MPIETE_CPU, else the first one this process may use; -1 with
/// MPIETE_CPU=none.
int firstCpu();
/// Whether each rank stays on a processor (MPIETE_PIN=rank, the default; rank 0 decides): its own
/// with one token, its token's with k > 1 (then it holds only that one).
bool pinPerRank();
/// With one token and pinPerRank(): rank Me's processor, the (Me mod n)-th of the n processors
/// of JobSet from First on (cyclically).
int rankCpu(const cpu_set_t &JobSet, int First, int Me);
/// Holding a token, the rank runs on that token's processor.
void moveToTokenCpu();
/// How a rank without the token waits: its processor kept busy by an idle-priority spinner
/// thread where every rank stays on its own processor (one token, MPIETE_PIN=rank; with more
/// ranks than JobSet's processors only while no rank computes on that processor), else
/// sleeping; MPIETE_WAIT=busy|spin|sleep overrides (busy and spin only with MPIETE_PIN=rank and
/// one token).
void chooseWaiting(const cpu_set_t &JobSet);
/// Sleeps (without the mutex) until another rank posts this rank's semaphore.
void sleepForToken();
void wake(int R);
/// Something was sent or matched: the global epoch moves and polls are no longer fruitless.
void progressMade();
/// Gives the idle tokens to ranks that can run, searching cyclically from rank From.
void fillIdleTokens(int From);
/// This rank gives up its token (its state already says why).
void releaseToken();
/// At the start of a transport call: gives the token back while communicator calls wait for
/// every token.
void yieldToCommCalls();
/// Gives up the token until something arrives for this rank.
void blockUntilArrival();
/// After a poll that found nothing: lets the other ranks run once.
void yieldAfterFailedPoll();

//===-- Deadlock report (TokenDeadlock.cpp) -------------------------------------------------===//

/// The routine a rank waits in ("MPI_Waitall"), as messages name it.
const char *whatName(WaitWhat W);
/// Records what this rank waits for, for the report: the incomplete requests among Reqs.
void describeWait(WaitWhat What, mpiete_site_t Block, int N, const MPI_Request *Reqs);
void describeProbe(WaitWhat What, mpiete_site_t Block, const Request &Probe);
/// Prints what every rank waits for and ends the job.
[[noreturn]] void reportDeadlock();

//===-- Requests and messages (TokenMessages.cpp) -------------------------------------------===//

Request *newRequest(ReqKind K, mpiete_site_t Block);
void releaseRequest(Request *R);
/// Req as a request of this machine (fatal if it is not one).
Request *toRequest(MPI_Request Req, mpiete_site_t Block);
/// Every request object ever allocated, by slot: MPICH's MPI_Request is an int, so there a
/// request's handle is RequestHandleBase + its slot (a range MPICH's own handles, 0x2c... for
/// null and 0xac... for requests, never use); Open MPI's is a pointer, the request itself.
extern Request **RequestSlots;
extern uint32_t NRequestSlots;
constexpr uint32_t RequestHandleBase = 0x10000000;
template <class H = MPI_Request> inline H toHandle(Request *R) {
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<H>(R);
  else
    return static_cast<H>(RequestHandleBase + R->Slot);
}
/// The request a handle names, unchecked (null for an int handle outside the table).
template <class H> inline Request *fromHandle(H Handle) {
  if constexpr (std::is_pointer_v<H>) {
    return reinterpret_cast<Request *>(Handle);
  } else {
    const uint32_t I = static_cast<uint32_t>(Handle) - RequestHandleBase;
    return I < NRequestSlots ? RequestSlots[I] : nullptr;
  }
}
void setStatus(MPI_Status &St, int Source, int Tag, int Err, int Bytes);
/// The status of an operation on MPI_REQUEST_NULL (unless St is MPI_STATUS_IGNORE).
void emptyStatus(MPI_Status *St);
/// A completed request's status and error; releases it and sets the handle to null.
int finish(MPI_Request *Handle, MPI_Status *St);
/// A message this process sent and must release later (a synchronous send's Req, or null).
void addOwned(uint32_t Msg, Request *Req);
/// Releases the messages the receivers have read; completes synchronous sends.
void sweepOwned();
/// A reused memfd of at least Bytes for a message (its index, or -1: none free, send through a
/// fresh memfd); releaseBig when the receiver has read it.
int acquireBig(uint64_t Bytes);
void releaseBig(int Fd);
/// Gives a sent message's memfd back: a reused one to the pool, a fresh one closed.
void releaseMemfd(const MsgDesc &D);
/// The receiver's mapping of a sender's reused memfd, at least Bytes long.
const void *mapBig(int SrcWorld, int Fd, uint64_t Bytes);
void unmapAllBig();
/// The first message in this rank's queue that the receive (or probe) R matches; Prev gets its
/// predecessor (NoMsg for the head).
uint32_t findMatch(const Request &R, uint32_t &Prev);
/// Everything this rank can do without waiting: release read messages, match posted receives.
void progress();

} // namespace mpiete::transport::token

#endif // MPIETE_RUNTIME_TOKENMACHINE_H
