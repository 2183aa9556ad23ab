// The timing variant's transport (Transport.h) as seed 004's token machine: start and end of the
// machine, message starts and communicator calls. How it works: TokenMachine.h; the
// completions are in TokenWait.cpp.
#include "TokenMachine.h"
#include "HeapPin.h"
#include "Pack.h"
#include "TimingControl.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <unistd.h>

namespace mpiete::transport::token {

Machine M;

void fatal(const char *Fmt, ...) {
  char Msg[900];
  va_list Ap;
  va_start(Ap, Fmt);
  std::vsnprintf(Msg, sizeof Msg, Fmt, Ap);
  va_end(Ap);
  Recorder::get().fail("%s", Msg);
}

namespace {
/// The MPI name of a standard error class (the numbers differ between libraries), or null.
const char *errorClassName(int Class) {
  switch (Class) {
#define MPIETE_CLASS(C)                                                                            \
  case C:                                                                                          \
    return #C;
    MPIETE_CLASS(MPI_ERR_BUFFER)
    MPIETE_CLASS(MPI_ERR_COUNT)
    MPIETE_CLASS(MPI_ERR_TYPE)
    MPIETE_CLASS(MPI_ERR_TAG)
    MPIETE_CLASS(MPI_ERR_COMM)
    MPIETE_CLASS(MPI_ERR_RANK)
    MPIETE_CLASS(MPI_ERR_REQUEST)
    MPIETE_CLASS(MPI_ERR_ROOT)
    MPIETE_CLASS(MPI_ERR_GROUP)
    MPIETE_CLASS(MPI_ERR_OP)
    MPIETE_CLASS(MPI_ERR_ARG)
    MPIETE_CLASS(MPI_ERR_UNKNOWN)
    MPIETE_CLASS(MPI_ERR_TRUNCATE)
    MPIETE_CLASS(MPI_ERR_OTHER)
    MPIETE_CLASS(MPI_ERR_INTERN)
    MPIETE_CLASS(MPI_ERR_IN_STATUS)
    MPIETE_CLASS(MPI_ERR_PENDING)
#undef MPIETE_CLASS
  default:
    return nullptr;
  }
}
} // namespace

int mpiError(int Rc, mpiete_site_t Block, const char *Call) {
  if (Rc == MPI_SUCCESS)
    return Rc;
  MPI_Errhandler H = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &H);
  const bool Fatal = H == MPI_ERRORS_ARE_FATAL;
  if (H != MPI_ERRHANDLER_NULL)
    PMPI_Errhandler_free(&H);
  if (!Fatal)
    return Rc;
  char Id[BlockIdBufferSize];
  formatBlockId(Block, Id, sizeof Id);
  char Text[MPI_MAX_ERROR_STRING] = {};
  int Len = 0;
  int Class = Rc;
  PMPI_Error_class(Rc, &Class);
  PMPI_Error_string(Class, Text, &Len);
  // Open MPI's text starts with the class's name, MPICH's does not: name it for both.
  const char *Name = errorClassName(Class);
  const bool Named = Name == nullptr || std::strncmp(Text, Name, std::strlen(Name)) == 0;
  fatal("%s at site %s failed: %s%s%s (error class %d; MPI_COMM_WORLD's handler is "
        "MPI_ERRORS_ARE_FATAL, so a real run stops here too)",
        Call, Id, Named ? "" : Name, Named ? "" : ": ", Text, Class);
}

uint64_t envNumber(const char *Name, uint64_t Default) {
  const char *V = std::getenv(Name);
  if (V == nullptr || V[0] == '\0')
    return Default;
  char *End = nullptr;
  const unsigned long long X = std::strtoull(V, &End, 0);
  if (*End != '\0')
    fatal("%s='%s' is not a number", Name, V);
  return X;
}

void checkActive(const char *Fn) {
  if (!M.Active)
    fatal("%s called outside MPI_Init .. MPI_Finalize", Fn);
}

} // namespace mpiete::transport::token

namespace mpiete::transport {

using namespace token;

namespace {

/// After the communicator call on C: a freed communicator's record can go now.
int finishCommCall(const comms::Info &C, int Rc) {
  if (&C == M.FreeingInfo) {
    comms::release(C);
    M.FreeingInfo = nullptr;
    M.Freeing = MPI_COMM_NULL;
  }
  return Rc;
}

} // namespace

namespace {

/// Reads this rank's line of MPIETE_WILDCARD_SOURCES (`rank source source ...`, a line per
/// rank with wildcard receives; written by probe-compute from the traces).
void loadWildcardSources() {
  const char *Path = std::getenv("MPIETE_WILDCARD_SOURCES");
  if (Path == nullptr || Path[0] == '\0')
    return;
  FILE *F = std::fopen(Path, "r");
  if (F == nullptr)
    fatal("MPIETE_WILDCARD_SOURCES='%s': %s", Path, std::strerror(errno));
  char *Line = nullptr;
  size_t Cap = 0;
  size_t LineNo = 0;
  while (getline(&Line, &Cap, F) > 0) {
    ++LineNo;
    char *P = Line, *End = nullptr;
    const long Rank = std::strtol(P, &End, 10);
    if (End == P)
      fatal("%s:%zu: a line starts with the rank", Path, LineNo);
    if (Rank != M.Me)
      continue;
    size_t N = 0, Capacity = 0;
    int *Sources = nullptr;
    for (P = End;;) {
      const long S = std::strtol(P, &End, 10);
      if (End == P)
        break;
      if (S < -1 || S >= M.N)
        fatal("%s:%zu: source %ld is no world rank of %d", Path, LineNo, S, M.N);
      if (N == Capacity) {
        Capacity = Capacity == 0 ? 64 : Capacity * 2;
        Sources = static_cast<int *>(std::realloc(Sources, Capacity * sizeof(int)));
        if (Sources == nullptr)
          fatal("out of memory reading '%s'", Path);
      }
      Sources[N++] = static_cast<int>(S);
      P = End;
    }
    while (*P == ' ' || *P == '\n')
      ++P;
    if (*P != '\0')
      fatal("%s:%zu: '%s' is no source", Path, LineNo, P);
    M.WildSources = Sources;
    M.NWildSources = N;
    break;
  }
  std::free(Line);
  std::fclose(F);
}

} // namespace

void init(mpiete_site_t Block) {
  rec().onInit(Block, MPI_SUCCESS);
  int Me = 0, N = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Me);
  PMPI_Comm_size(MPI_COMM_WORLD, &N);
  M.Me = Me;
  M.N = N;
  M.PollLimit = envNumber("MPIETE_POLL_LIMIT", 1000000);
  M.BigPool = envNumber("MPIETE_BIG_BUFFERS", 1) != 0;
  heap::enable();
  loadWildcardSources();

  // The segment's name and the number of tokens (ranks per node): rank 0 decides; with the
  // processors (below), the last MPI traffic of the run.
  // Also (one token) whether each rank gets a processor of its own, and token 0's processor.
  // And the rank that starts with token 0.
  long long Agreed[5] = {0, 0, 0, -1, 0};
  if (Me == 0) {
    timespec Ts;
    clock_gettime(CLOCK_REALTIME, &Ts);
    Agreed[0] = static_cast<long long>((static_cast<uint64_t>(getpid()) << 32) ^
                                       static_cast<uint64_t>(Ts.tv_nsec) ^
                                       (static_cast<uint64_t>(Ts.tv_sec) << 20));
    Agreed[1] = static_cast<long long>(envNumber("MPIETE_RANKS_PER_NODE", 1));
    if (Agreed[1] < 1 || Agreed[1] > MaxTokens)
      fatal("MPIETE_RANKS_PER_NODE=%lld: the ranks per node must be 1 to %d", Agreed[1], MaxTokens);
    // MPIETE_PIN=rank (the default): one token, a processor per rank; k > 1 tokens, each rank
    // on the processor of token tokenOf(R), the only one it holds. MPIETE_PIN=token: every
    // rank runs on the processor of whichever token it holds.
    Agreed[2] = pinPerRank() ? 1 : 0;
    Agreed[3] = firstCpu();
    Agreed[4] = static_cast<long long>(envNumber("MPIETE_TOKEN_FIRST", 0) % uint64_t(N));
  }
  PMPI_Bcast(Agreed, 5, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const int K = static_cast<int>(Agreed[1]);
  M.OwnCpu = K == 1 && Agreed[2] != 0 && Agreed[3] >= 0;
  M.TokenPerCpu = K > 1 && Agreed[2] != 0;
  M.First = static_cast<int>(Agreed[4]);
  // The processors any rank may use: rank 0 needs them for k > 1 tokens, every rank for a
  // processor of its own.
  cpu_set_t JobSet;
  CPU_ZERO(&JobSet);
  if (K > 1 || M.OwnCpu) {
    cpu_set_t Mine;
    CPU_ZERO(&Mine);
    if (sched_getaffinity(0, sizeof Mine, &Mine) != 0)
      CPU_ZERO(&Mine);
    PMPI_Allreduce(&Mine, &JobSet, static_cast<int>(sizeof Mine), MPI_BYTE, MPI_BOR,
                   MPI_COMM_WORLD);
  }
  char Name[96];
  std::snprintf(Name, sizeof Name, "/mpiete-tok-%u-%llx", static_cast<unsigned>(getuid()),
                static_cast<unsigned long long>(Agreed[0]));
  setUpSegment(Name, K, JobSet);
  chooseWaiting(JobSet);
  M.Active = true;

  // Every rank starts on token 0's processor (all of them, with one token), or on its own (its
  // token's, with k > 1 tokens a processor).
  const int Start = M.OwnCpu        ? rankCpu(JobSet, static_cast<int>(Agreed[3]), M.Me)
                    : M.TokenPerCpu ? M.H->Cpus[M.tokenOf(M.Me)]
                                    : M.H->Cpus[0];
  pinToCpu(Start);
  timing::setCpu(Start);
  timing::setRanksPerNode(M.H->NTokens);
  {
    SegmentLock L;
    self().Cpu = M.OwnCpu ? Start : -1;
    if (self().Token >= 0)
      setBusyCpu(self().Cpu);
    M.H->Arrived += 1;
    // A rank that starts without a token always sleeps once: it may already have been given
    // one (and posted) by a rank that ran ahead.
    if (self().Token < 0)
      sleepForToken();
    else if (!M.OwnCpu && M.H->Cpus[self().Token] != M.PinnedCpu)
      pinToCpu(M.H->Cpus[self().Token]);
  }
  // The ranks that start with a token run the program only once every rank has arrived: the
  // others' last MPI_Init traffic (Open MPI's barrier above, busy-polling until each is
  // scheduled) would otherwise share their processors. At 64 ranks on 2 processors rank 0's
  // first segment took 18-40% longer than the other ranks' (docs/scale.md).
  if (M.startPlace(M.Me) < M.H->NTokens)
    while (__atomic_load_n(&M.H->Arrived, __ATOMIC_ACQUIRE) < M.N) {
      const timespec Nap{0, 50000};
      nanosleep(&Nap, nullptr);
    }
  // Measured while this rank runs alone on its processor (holding a token).
  timing::calibrate();
}

void finalize(mpiete_site_t Block) {
  checkActive("MPI_Finalize");
  rec().onFinalize(Block); // the output, written while this rank still holds its token
  lockSegment();
  yieldToCommCalls();
  progress();
  RankSlot &S = self();
  S.Wait.What = WaitWhat::Finalize;
  S.Wait.Block = Block;
  S.Wait.NPending = 0;
  S.State = RankState::Finished;
  M.H->NFinished += 1;
  progressMade();
  if (M.H->NFinished == M.N) {
    for (int R = 0; R < M.N; ++R)
      if (R != M.Me)
        wake(R);
  } else {
    releaseToken();
    sleepForToken(); // woken by the last rank to finish
  }
  unlockSegment();
  for (size_t I = 0; I < M.NOwned; ++I)
    releaseMemfd(M.Msgs[M.OwnedList[I].Msg]);
  M.NOwned = 0;
  unmapAllBig();
  M.Active = false;
  // This process touches the segment no more (its name was unlinked at init), bar its first
  // page: the waiting spinner may still read BusyCpu there once (TokenScheduler.cpp).
  const auto Page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (M.MapBytes > Page)
    ::munmap(reinterpret_cast<char *>(M.H) + Page, M.MapBytes - Page);
  M.H = nullptr;
}

int isend(mpiete_site_t Block, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm Comm, SendMode Mode, Context Ctx, MPI_Request *Req) {
  checkActive("MPI_Isend");
  SegmentLock Lock;
  yieldToCommCalls();
  if (Ctx == Context::User)
    rec().record(Block, Kind::Start);
  else
    M.CollectiveBlock = Block;
  if (Count < 0)
    return MPI_ERR_COUNT;
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Dest != MPI_PROC_NULL && (Dest < 0 || Dest >= C.Size))
    return MPI_ERR_RANK;
  if (Ctx == Context::User && Tag < 0)
    return MPI_ERR_TAG;
  Request *R = newRequest(ReqKind::Send, Block);
  R->Source = Dest;
  R->Tag = Tag;
  R->CommId = C.Id;
  R->Ctx = Ctx;
  *Req = toHandle(R);
  if (Dest == MPI_PROC_NULL) {
    R->Complete = true;
    return MPI_SUCCESS;
  }
  if (M.NOwned != 0)
    sweepOwned();

  int PackBytes = 0;
  int Rc = PMPI_Pack_size(Count, Type, MPI_COMM_WORLD, &PackBytes);
  if (Rc != MPI_SUCCESS)
    return Rc;
  const uint32_t I = allocMsg();
  MsgDesc &D = M.Msgs[I];
  D.Store = Storage::None;
  D.Fd = -1;
  D.Pooled = 0;
  D.HeapOff = NoOffset;
  void *Dst = nullptr;
  void *Map = MAP_FAILED;
  if (PackBytes > 0) {
    D.HeapChunk = static_cast<uint64_t>(PackBytes);
    D.HeapOff = heapAlloc(D.HeapChunk);
    int B = -1;
    if (D.HeapOff != NoOffset) {
      D.Store = Storage::Heap;
      Dst = M.Heap + D.HeapOff;
    } else if ((B = acquireBig(static_cast<uint64_t>(PackBytes))) >= 0) {
      D.Store = Storage::Memfd;
      D.Fd = M.Big[B].Fd;
      D.Pooled = 1;
      Dst = M.Big[B].Map;
    } else {
      D.Fd = memfd_create("mpiete-message", MFD_CLOEXEC);
      if (D.Fd < 0 || ::ftruncate(D.Fd, PackBytes) != 0)
        fatal("cannot store a %d-byte message: %s", PackBytes, std::strerror(errno));
      Map = ::mmap(nullptr, static_cast<size_t>(PackBytes), PROT_READ | PROT_WRITE, MAP_SHARED,
                   D.Fd, 0);
      if (Map == MAP_FAILED)
        fatal("cannot map a %d-byte message: %s", PackBytes, std::strerror(errno));
      D.Store = Storage::Memfd;
      Dst = Map;
    }
  }
  int Position = 0;
  if (PackBytes > 0)
    Rc = packMessage(Buf, Count, Type, Dst, PackBytes, &Position, MPI_COMM_WORLD);
  if (Map != MAP_FAILED)
    ::munmap(Map, static_cast<size_t>(PackBytes));
  if (Rc != MPI_SUCCESS) {
    releaseMemfd(D);
    freeMsg(I);
    releaseRequest(R);
    *Req = MPI_REQUEST_NULL;
    return Rc;
  }
  D.Bytes = static_cast<uint64_t>(Position);

  const int DstWorld = comms::worldRank(C, Dest);
  D.Seq = M.H->Seq++;
  D.CommId = C.Id;
  D.SrcWorld = M.Me;
  D.DstWorld = DstWorld;
  D.SrcRank = C.MyRank;
  D.Tag = Tag;
  D.Ctx = Ctx;
  D.Sync = Mode == SendMode::Synchronous;
  D.Done = 0;
  D.Next = NoMsg;
  RankSlot &To = slot(DstWorld);
  if (To.QueueTail == NoMsg)
    To.QueueHead = I;
  else
    M.Msgs[To.QueueTail].Next = I;
  To.QueueTail = I;
  To.Epoch += 1;
  progressMade();
  fillIdleTokens(DstWorld);

  R->Sync = D.Sync;
  if (D.Sync || D.Store == Storage::Memfd)
    addOwned(I, D.Sync ? R : nullptr);
  if (!D.Sync)
    R->Complete = true;
  return MPI_SUCCESS;
}

int irecv(mpiete_site_t Block, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
          MPI_Comm Comm, Context Ctx, MPI_Request *Req) {
  checkActive("MPI_Irecv");
  SegmentLock Lock;
  yieldToCommCalls();
  if (Ctx == Context::User)
    rec().record(Block, Kind::Start);
  else
    M.CollectiveBlock = Block;
  if (Count < 0)
    return MPI_ERR_COUNT;
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Source != MPI_PROC_NULL && Source != MPI_ANY_SOURCE && (Source < 0 || Source >= C.Size))
    return MPI_ERR_RANK;
  if (Ctx == Context::User && Tag < 0 && Tag != MPI_ANY_TAG)
    return MPI_ERR_TAG;
  Request *R = newRequest(ReqKind::Recv, Block);
  R->Buf = Buf;
  R->Count = Count;
  R->Type = Type;
  R->Source = Source;
  R->SrcWorld = comms::worldRank(C, Source);
  // A wildcard takes the message the traced run's took (the status still names the sender).
  if (Source == MPI_ANY_SOURCE && Ctx == Context::User) {
    if (const int Traced = tracedSource(); Traced >= 0)
      R->SrcWorld = Traced;
    takeTracedSource();
  }
  R->Tag = Tag;
  R->CommId = C.Id;
  R->Ctx = Ctx;
  *Req = toHandle(R);
  if (Source == MPI_PROC_NULL) {
    setStatus(R->Status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    R->Complete = true;
    return MPI_SUCCESS;
  }
  if (M.PendingTail == nullptr)
    M.Pending = R;
  else
    M.PendingTail->Next = R;
  M.PendingTail = R;
  progress();
  return MPI_SUCCESS;
}

bool recordsCollectives() { return false; }
void collectiveStarted(mpiete_site_t, const comms::Info &, trace::CollKind, int, uint64_t) {}

int collectiveCall(mpiete_site_t Block, MPI_Comm Comm, int (*Fn)(void *), void *Arg) {
  checkActive("a communicator call");
  rec().record(Block, Kind::Comm);
  const comms::Info &C = Comm == M.Freeing ? *M.FreeingInfo : comms::lookup(Comm, Block);
  if (C.Size <= 1)
    return finishCommCall(C, Fn(Arg));
  lockSegment();
  yieldToCommCalls();
  progress();

  Header &H = *M.H;
  CollSlot *S = nullptr;
  for (CollSlot &Cand : H.Colls)
    if (Cand.Used && Cand.CommId == C.Id)
      S = &Cand;
  if (S == nullptr) {
    for (CollSlot &Cand : H.Colls)
      if (!Cand.Used) {
        S = &Cand;
        break;
      }
    if (S == nullptr)
      fatal("more than %d communicator calls waiting for their members at once", MaxCollSlots);
    S->Used = 1;
    S->Started = 0;
    S->CommId = C.Id;
    S->Size = C.Size;
    S->Arrived = 0;
  }
  S->Arrived += 1;
  progressMade();
  RankSlot &Me = self();
  Me.State = RankState::Parked;
  Me.Wait.What = WaitWhat::CommCall;
  Me.Wait.Block = Block;
  Me.Wait.CommId = C.Id;
  Me.Wait.NPending = 0;
  if (S->Arrived == S->Size) {
    // The last member: the call starts once no rank holds a token, so nothing is timed
    // while it runs (with one token, at once: this rank holds it).
    S->Last = M.Me;
    H.Draining += 1;
  }
  releaseToken();
  if (Me.State != RankState::Collective)
    sleepForToken(); // woken when the call starts
  unlockSegment();

  const int Rc = Fn(Arg);

  lockSegment();
  Me.State = RankState::Ready;
  if (--S->Remaining == 0) {
    const int Last = S->Last;
    S->Used = 0;
    H.ActiveColls -= 1;
    // The last to finish: the member that arrived last runs first, then the others.
    if (H.ActiveColls == 0)
      fillIdleTokens(Last);
  }
  if (Me.Token < 0)
    sleepForToken();
  else
    moveToTokenCpu();
  unlockSegment();
  return finishCommCall(C, Rc);
}

void commCreated(mpiete_site_t, MPI_Comm, MPI_Comm) {}

void commFreed(mpiete_site_t Block, MPI_Comm Comm) {
  if (M.FreeingInfo != nullptr)
    comms::release(*M.FreeingInfo);
  M.FreeingInfo = &comms::lookup(Comm, Block);
  comms::retain(*M.FreeingInfo);
  M.Freeing = Comm;
}

} // namespace mpiete::transport
