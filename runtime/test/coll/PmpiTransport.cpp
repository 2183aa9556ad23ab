// A test double of Transport.h over PMPI: the user's context on the user's communicator, the
// collective context on a PMPI_Comm_dup'ed shadow of it, plus per-peer message counters so the
// tests can check which messages a lowered collective sends. Not part of any probe library.
#include "PmpiTransport.h"

#include "Transport.h"

#include <cstdio>
#include <cstring>

namespace mpiete {
namespace {

struct Shadow {
  MPI_Comm User = MPI_COMM_NULL;
  MPI_Comm Coll = MPI_COMM_NULL;
};
Shadow Shadows[32];
testing::Counts TheCounts;
mpiete_site_t Expected = 0;

MPI_Comm commFor(MPI_Comm Comm, transport::Context Ctx) {
  if (Ctx == transport::Context::User)
    return Comm;
  for (const Shadow &S : Shadows)
    if (S.User == Comm)
      return S.Coll;
  std::fprintf(stderr, "mpiete: test transport: collective on an unregistered communicator\n");
  PMPI_Abort(MPI_COMM_WORLD, 3);
  return MPI_COMM_NULL;
}

void note(mpiete_site_t Block) {
  if (Block != Expected)
    ++TheCounts.OtherBlocks;
}

} // namespace

namespace testing {

void registerComm(MPI_Comm Comm) {
  for (Shadow &S : Shadows)
    if (S.User == MPI_COMM_NULL) {
      S.User = Comm;
      PMPI_Comm_dup(Comm, &S.Coll);
      return;
    }
  PMPI_Abort(MPI_COMM_WORLD, 3);
}

void unregisterComm(MPI_Comm Comm) {
  for (Shadow &S : Shadows)
    if (S.User == Comm) {
      PMPI_Comm_free(&S.Coll);
      S.User = MPI_COMM_NULL;
    }
}

void resetCounts(mpiete_site_t Block) {
  std::memset(&TheCounts, 0, sizeof TheCounts);
  Expected = Block;
}

const Counts &counts() { return TheCounts; }

} // namespace testing

namespace transport {

void init(mpiete_site_t) {}
void finalize(mpiete_site_t) {}

int isend(mpiete_site_t Block, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm Comm, SendMode Mode, Context Ctx, MPI_Request *Req) {
  note(Block);
  ++TheCounts.Starts;
  if (Ctx == Context::User)
    ++TheCounts.UserContext;
  if (Dest >= 0 && Dest < testing::Counts::MaxPeers) {
    int Size = 0;
    PMPI_Type_size(Type, &Size);
    ++TheCounts.SentMsgs[Dest];
    TheCounts.SentBytes[Dest] += static_cast<uint64_t>(Size) * static_cast<uint64_t>(Count);
  }
  const MPI_Comm C = commFor(Comm, Ctx);
  switch (Mode) {
  case SendMode::Synchronous:
    return PMPI_Issend(Buf, Count, Type, Dest, Tag, C, Req);
  case SendMode::Ready:
    return PMPI_Irsend(Buf, Count, Type, Dest, Tag, C, Req);
  case SendMode::Buffered:
    return PMPI_Ibsend(Buf, Count, Type, Dest, Tag, C, Req);
  default:
    return PMPI_Isend(Buf, Count, Type, Dest, Tag, C, Req);
  }
}

int irecv(mpiete_site_t Block, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
          MPI_Comm Comm, Context Ctx, MPI_Request *Req) {
  note(Block);
  ++TheCounts.Starts;
  if (Ctx == Context::User)
    ++TheCounts.UserContext;
  return PMPI_Irecv(Buf, Count, Type, Source, Tag, commFor(Comm, Ctx), Req);
}

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *Status) {
  note(Block);
  ++TheCounts.Waits;
  return PMPI_Wait(Req, Status);
}
int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  note(Block);
  ++TheCounts.Waits;
  return PMPI_Waitall(N, Reqs, Statuses);
}
int waitany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status) {
  note(Block);
  return PMPI_Waitany(N, Reqs, Index, Status);
}
int waitsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  note(Block);
  return PMPI_Waitsome(N, Reqs, OutCount, Indices, Statuses);
}
// Non-blocking collectives (Nonblocking.cpp, linked in) ask these; the lowered collectives
// checked here never run as one.
bool ready(int N, const MPI_Request Reqs[], bool Any) {
  return requestsReady(N, Reqs, Any, [](MPI_Request R) {
    int Flag = 0;
    PMPI_Request_get_status(R, &Flag, MPI_STATUS_IGNORE);
    return Flag != 0;
  });
}
void idle(mpiete_site_t, int, const MPI_Request[]) {}
double driveGraceSeconds() { return 0; }
int test(mpiete_site_t Block, MPI_Request *Req, int *Flag, MPI_Status *Status) {
  note(Block);
  return PMPI_Test(Req, Flag, Status);
}
int testall(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]) {
  note(Block);
  return PMPI_Testall(N, Reqs, Flag, Statuses);
}
int testany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status) {
  note(Block);
  return PMPI_Testany(N, Reqs, Index, Flag, Status);
}
int testsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  note(Block);
  return PMPI_Testsome(N, Reqs, OutCount, Indices, Statuses);
}
int probe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status) {
  note(Block);
  return PMPI_Probe(Source, Tag, Comm, Status);
}
int iprobe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, int *Flag, MPI_Status *Status) {
  note(Block);
  return PMPI_Iprobe(Source, Tag, Comm, Flag, Status);
}
int requestFree(mpiete_site_t Block, MPI_Request *Req) {
  note(Block);
  return PMPI_Request_free(Req);
}
int collectiveCall(mpiete_site_t, MPI_Comm, int (*Fn)(void *), void *Arg) { return Fn(Arg); }

} // namespace transport
} // namespace mpiete
