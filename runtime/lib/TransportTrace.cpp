// The trace variant's transport: PMPI underneath, and every start, completion, probe and
// communicator event written to the per-rank trace (TraceWriter) as program base data.
//
// Requests get per-rank sequence numbers (1, 2, ...) at their start; a handle -> id table maps
// them back at completion. Peers are recorded as world ranks; a receive's matched source is
// translated through the communicator it was posted on (kept alive by comms::retain while the
// request is pending). Operations on MPI_PROC_NULL are recorded like any other, with the peer
// trace::ProcNull: the estimator treats them as no-ops.
#include "Comms.h"
#include "HandleMap.h"
#include "Layout.h"
#include "Nonblocking.h"
#include "Recorder.h"
#include "TraceWriter.h"
#include "Transport.h"
#include "Util.h"

#include <cstdint>
#include <cstdlib>

namespace mpiete::transport {
namespace {

Recorder &rec() { return Recorder::get(); }
TraceWriter &out() { return TraceWriter::get(); }

struct Pending {
  uint64_t Id;
  const comms::Info *Comm; // retained while pending
  bool Recv;
  bool ProcNull; // a receive posted for MPI_PROC_NULL
};

constinit HandleMap<Pending> Requests;

/// The buffers this rank sent from since its previous receive (the last Slots of them), for
/// the Recv record's same-buffer flag (docs/trace-format.md): a receive into a buffer the peer
/// has just read costs more on shared memory (bench/ring-hops). Only pointer compares, per MPI
/// call. A buffer is [Buf, Buf + bytes): exact for contiguous data, the packed size of a
/// derived type's data from its start otherwise.
class SentSinceReceive {
public:
  void sent(const void *Buf, uint64_t Bytes) {
    if (Buf == nullptr || Bytes == 0)
      return;
    const uintptr_t Lo = reinterpret_cast<uintptr_t>(Buf);
    Ranges[Next] = {Lo, Lo + Bytes};
    Next = (Next + 1) % Slots;
    Count = Count < Slots ? Count + 1 : Slots;
  }
  /// Whether [Buf, Buf + Bytes) overlaps one of them; forgets them (a receive was posted).
  bool receive(const void *Buf, uint64_t Bytes) {
    const uintptr_t Lo = reinterpret_cast<uintptr_t>(Buf), Hi = Lo + Bytes;
    bool Overlap = false;
    if (Buf != nullptr && Bytes != 0)
      for (unsigned I = 0; I < Count; ++I)
        Overlap |= Lo < Ranges[I].Hi && Ranges[I].Lo < Hi;
    Count = 0;
    Next = 0;
    return Overlap;
  }

private:
  static constexpr unsigned Slots = 8;
  struct Range {
    uintptr_t Lo = 0, Hi = 0;
  };
  Range Ranges[Slots] = {};
  unsigned Next = 0, Count = 0;
};
constinit SentSinceReceive SentBuffers;

// Distinct from the Recorder's scratch, which MPI_Sendrecv_replace holds across its waitall.
constinit Scratch<MPI_Request> Before;
constinit Scratch<MPI_Status> OwnStatuses;

/// A trace peer: world rank, or the trace's own ANY_SOURCE / PROC_NULL values.
int32_t tracePeer(const comms::Info &C, int Rank) {
  if (Rank == MPI_PROC_NULL)
    return trace::ProcNull;
  if (Rank == MPI_ANY_SOURCE)
    return trace::AnySource;
  return comms::worldRank(C, Rank);
}
int32_t traceTag(int Tag) { return Tag == MPI_ANY_TAG ? trace::AnyTag : Tag; }

/// The communicator a message of context Ctx travels on.
MPI_Comm matchingSpace(const comms::Info &C, MPI_Comm Comm, Context Ctx) {
  return Ctx == Context::Collective && C.Shadow != MPI_COMM_NULL ? C.Shadow : Comm;
}

void makeShadow(MPI_Comm Comm) {
  MPI_Comm Shadow;
  if (PMPI_Comm_dup(Comm, &Shadow) != MPI_SUCCESS)
    rec().fail("cannot duplicate a communicator for collective traffic");
  comms::setShadow(Comm, Shadow);
}

/// Registers a started request under its id (the writer's start counter).
void started(MPI_Request Req, const comms::Info &C, bool Recv, uint64_t Id, bool ProcNull) {
  Pending &P = Requests.insert(handleKey(Req));
  P.Id = Id;
  P.Comm = &C;
  P.Recv = Recv;
  P.ProcNull = ProcNull;
  comms::retain(C);
}

/// The Wait record: begin it with the number of completions, then complete() each.
void beginWait(mpiete_site_t Block, trace::WaitOp Op, int N) {
  out().wait(Block, Op, static_cast<uint64_t>(N));
}

uint64_t countOf(const MPI_Status &S) {
  int Bytes = 0;
  PMPI_Get_count(&S, MPI_BYTE, &Bytes);
  return Bytes == MPI_UNDEFINED || Bytes < 0 ? 0 : static_cast<uint64_t>(Bytes);
}

/// One request (its handle before the call) completed with status S.
void complete(MPI_Request Handle, MPI_Status &S) {
  Pending P{trace::UnknownRequest, nullptr, false, false};
  Requests.erase(handleKey(Handle), &P);
  if (P.ProcNull) {
    // MPICH 4.0.2 completes an MPI_Irecv from MPI_PROC_NULL with source 0 and tag 0; MPI says
    // MPI_PROC_NULL, MPI_ANY_TAG and no data, which the program and the trace get here.
    S.MPI_SOURCE = MPI_PROC_NULL;
    S.MPI_TAG = MPI_ANY_TAG;
    PMPI_Status_set_elements(&S, MPI_BYTE, 0);
  }
  if (P.Recv)
    out().recvCompleted(P.Id, tracePeer(*P.Comm, S.MPI_SOURCE), traceTag(S.MPI_TAG), countOf(S));
  else
    out().sendCompleted(P.Id);
  if (P.Comm != nullptr)
    comms::release(*P.Comm);
}

/// Copies the handles before a completion call destroys them.
MPI_Request *saveHandles(int N, const MPI_Request Reqs[]) {
  MPI_Request *B = Before.get(N > 0 ? N : 1);
  for (int I = 0; I < N; ++I)
    B[I] = Reqs[I];
  return B;
}

MPI_Status *statusesFor(int N, MPI_Status Statuses[]) {
  return Statuses == MPI_STATUSES_IGNORE ? OwnStatuses.get(N > 0 ? N : 1) : Statuses;
}

/// Records a Waitall/Testall that completed every non-null request.
void allCompleted(mpiete_site_t Block, trace::WaitOp Op, int N, const MPI_Request *B, MPI_Status *S,
                  bool Done) {
  int Count = 0;
  if (Done)
    for (int I = 0; I < N; ++I)
      Count += B[I] != MPI_REQUEST_NULL;
  beginWait(Block, Op, Count);
  if (Done)
    for (int I = 0; I < N; ++I)
      if (B[I] != MPI_REQUEST_NULL)
        complete(B[I], S[I]);
}

/// Records a Waitsome/Testsome.
void someCompleted(mpiete_site_t Block, trace::WaitOp Op, const MPI_Request *B, int OutCount,
                   const int *Indices, MPI_Status *S) {
  const int Count = OutCount == MPI_UNDEFINED || OutCount < 0 ? 0 : OutCount;
  beginWait(Block, Op, Count);
  for (int K = 0; K < Count; ++K)
    complete(B[Indices[K]], S[K]);
}

} // namespace

void init(mpiete_site_t Block) {
  rec().onInit(Block, MPI_SUCCESS); // the rank, for error messages
  makeShadow(MPI_COMM_WORLD);
  makeShadow(MPI_COMM_SELF);
  if (!out().on())
    return;
  out().start(rec().rank(), rec().size());
  out().init(Block);
}

void finalize(mpiete_site_t Block) {
  if (!out().on())
    return;
  out().finalize(Block);
  // End comes at process exit, after the blocks that run past MPI_Finalize.
  out().flush();
}

int isend(mpiete_site_t Block, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm Comm, SendMode Mode, Context Ctx, MPI_Request *Req) {
  const comms::Info &C = comms::lookup(Comm, Block);
  const MPI_Comm Space = matchingSpace(C, Comm, Ctx);
  int Rc;
  switch (Mode) {
  case SendMode::Synchronous:
    Rc = PMPI_Issend(Buf, Count, Type, Dest, Tag, Space, Req);
    break;
  case SendMode::Ready:
    Rc = PMPI_Irsend(Buf, Count, Type, Dest, Tag, Space, Req);
    break;
  case SendMode::Buffered:
    Rc = PMPI_Ibsend(Buf, Count, Type, Dest, Tag, Space, Req);
    break;
  default:
    Rc = PMPI_Isend(Buf, Count, Type, Dest, Tag, Space, Req);
    break;
  }
  if (Rc != MPI_SUCCESS || !out().on())
    return Rc;
  const uint64_t Bytes = bytesOf(Count, Type);
  SentBuffers.sent(Buf, Bytes);
  const uint64_t Id =
      out().send(Block, tracePeer(C, Dest), Tag, C.Id, Bytes, Mode, Ctx, layoutOf(Count, Type));
  started(*Req, C, false, Id, false);
  return Rc;
}

int irecv(mpiete_site_t Block, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
          MPI_Comm Comm, Context Ctx, MPI_Request *Req) {
  const comms::Info &C = comms::lookup(Comm, Block);
  const int Rc = PMPI_Irecv(Buf, Count, Type, Source, Tag, matchingSpace(C, Comm, Ctx), Req);
  if (Rc != MPI_SUCCESS || !out().on())
    return Rc;
  const uint64_t Bytes = bytesOf(Count, Type);
  const bool Same = SentBuffers.receive(Buf, Bytes);
  const uint64_t Id = out().recv(Block, tracePeer(C, Source), traceTag(Tag), C.Id, Bytes, Ctx, Same,
                                 layoutOf(Count, Type));
  started(*Req, C, true, Id, Source == MPI_PROC_NULL);
  return Rc;
}

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *Status) {
  nbc::whileBlocked(Block, 1, Req, false);
  if (!out().on())
    return PMPI_Wait(Req, Status);
  const MPI_Request B = *Req;
  MPI_Status Own;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Own : Status;
  const int Rc = PMPI_Wait(Req, S);
  const bool Done = B != MPI_REQUEST_NULL;
  beginWait(Block, trace::WaitOp::Wait, Done);
  if (Done)
    complete(B, *S);
  return Rc;
}

int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  nbc::whileBlocked(Block, N, Reqs, false);
  if (!out().on())
    return PMPI_Waitall(N, Reqs, Statuses);
  MPI_Request *B = saveHandles(N, Reqs);
  MPI_Status *S = statusesFor(N, Statuses);
  const int Rc = PMPI_Waitall(N, Reqs, S);
  allCompleted(Block, trace::WaitOp::Waitall, N, B, S, true);
  return Rc;
}

int waitany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status) {
  nbc::whileBlocked(Block, N, Reqs, true);
  if (!out().on())
    return PMPI_Waitany(N, Reqs, Index, Status);
  MPI_Request *B = saveHandles(N, Reqs);
  MPI_Status Own;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Own : Status;
  const int Rc = PMPI_Waitany(N, Reqs, Index, S);
  const bool Done = *Index != MPI_UNDEFINED && *Index >= 0 && *Index < N;
  beginWait(Block, trace::WaitOp::Waitany, Done);
  if (Done)
    complete(B[*Index], *S);
  return Rc;
}

int waitsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  nbc::whileBlocked(Block, N, Reqs, true);
  if (!out().on())
    return PMPI_Waitsome(N, Reqs, OutCount, Indices, Statuses);
  MPI_Request *B = saveHandles(N, Reqs);
  MPI_Status *S = statusesFor(N, Statuses);
  const int Rc = PMPI_Waitsome(N, Reqs, OutCount, Indices, S);
  someCompleted(Block, trace::WaitOp::Waitsome, B, *OutCount, Indices, S);
  return Rc;
}

bool ready(int N, const MPI_Request Reqs[], bool Any) {
  return requestsReady(N, Reqs, Any, [](MPI_Request R) {
    int Flag = 0;
    PMPI_Request_get_status(R, &Flag, MPI_STATUS_IGNORE); // completes nothing
    return Flag != 0;
  });
}

void idle(mpiete_site_t, int, const MPI_Request[]) {}

double driveGraceSeconds() {
  // 5 ms: longer than a wait for a message that is on its way, even on an oversubscribed
  // node (the ranks' time slices), short beside a stuck rank's cost. MPIETE_NBC_GRACE_MS
  // overrides it (0: drive at once).
  static const double Seconds = [] {
    const char *V = std::getenv("MPIETE_NBC_GRACE_MS");
    return V != nullptr && *V != '\0' ? std::strtod(V, nullptr) / 1000 : 0.005;
  }();
  return Seconds;
}

int test(mpiete_site_t Block, MPI_Request *Req, int *Flag, MPI_Status *Status) {
  if (!out().on())
    return PMPI_Test(Req, Flag, Status);
  const MPI_Request B = *Req;
  MPI_Status Own;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Own : Status;
  const int Rc = PMPI_Test(Req, Flag, S);
  const bool Done = *Flag && B != MPI_REQUEST_NULL;
  beginWait(Block, trace::WaitOp::Test, Done);
  if (Done)
    complete(B, *S);
  return Rc;
}

int testall(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]) {
  if (!out().on())
    return PMPI_Testall(N, Reqs, Flag, Statuses);
  MPI_Request *B = saveHandles(N, Reqs);
  MPI_Status *S = statusesFor(N, Statuses);
  const int Rc = PMPI_Testall(N, Reqs, Flag, S);
  allCompleted(Block, trace::WaitOp::Testall, N, B, S, *Flag != 0);
  return Rc;
}

int testany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status) {
  if (!out().on())
    return PMPI_Testany(N, Reqs, Index, Flag, Status);
  MPI_Request *B = saveHandles(N, Reqs);
  MPI_Status Own;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Own : Status;
  const int Rc = PMPI_Testany(N, Reqs, Index, Flag, S);
  const bool Done = *Flag && *Index != MPI_UNDEFINED && *Index >= 0 && *Index < N;
  beginWait(Block, trace::WaitOp::Testany, Done);
  if (Done)
    complete(B[*Index], *S);
  return Rc;
}

int testsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  if (!out().on())
    return PMPI_Testsome(N, Reqs, OutCount, Indices, Statuses);
  MPI_Request *B = saveHandles(N, Reqs);
  MPI_Status *S = statusesFor(N, Statuses);
  const int Rc = PMPI_Testsome(N, Reqs, OutCount, Indices, S);
  someCompleted(Block, trace::WaitOp::Testsome, B, *OutCount, Indices, S);
  return Rc;
}

namespace {
/// The Probe record.
void recordProbe(mpiete_site_t Block, bool Blocking, int Source, int Tag, MPI_Comm Comm, bool Found,
                 const MPI_Status &S) {
  const comms::Info &C = comms::lookup(Comm, Block);
  out().probe(Block, Blocking, tracePeer(C, Source), traceTag(Tag), C.Id, Found,
              Found ? tracePeer(C, S.MPI_SOURCE) : 0, Found ? traceTag(S.MPI_TAG) : 0,
              Found ? countOf(S) : 0);
}
} // namespace

int probe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status) {
  // Its messages may need this rank's operations.
  nbc::driveUntil(
      [&] {
        int Flag = 0;
        PMPI_Iprobe(Source, Tag, Comm, &Flag, MPI_STATUS_IGNORE); // records nothing
        return Flag != 0;
      },
      [] {});
  if (!out().on())
    return PMPI_Probe(Source, Tag, Comm, Status);
  MPI_Status Own;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Own : Status;
  const int Rc = PMPI_Probe(Source, Tag, Comm, S);
  recordProbe(Block, true, Source, Tag, Comm, Rc == MPI_SUCCESS, *S);
  return Rc;
}

int iprobe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, int *Flag, MPI_Status *Status) {
  if (!out().on())
    return PMPI_Iprobe(Source, Tag, Comm, Flag, Status);
  MPI_Status Own;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Own : Status;
  const int Rc = PMPI_Iprobe(Source, Tag, Comm, Flag, S);
  recordProbe(Block, false, Source, Tag, Comm, Rc == MPI_SUCCESS && *Flag, *S);
  return Rc;
}

int requestFree(mpiete_site_t Block, MPI_Request *Req) {
  const MPI_Request B = *Req;
  const int Rc = PMPI_Request_free(Req);
  if (!out().on())
    return Rc;
  Pending P{trace::UnknownRequest, nullptr, false, false};
  Requests.erase(handleKey(B), &P);
  if (P.Comm != nullptr)
    comms::release(*P.Comm);
  out().requestFree(Block, P.Id);
  return Rc;
}

bool recordsCollectives() { return out().on(); }

void collectiveStarted(mpiete_site_t Block, const comms::Info &C, trace::CollKind K, int Root,
                       uint64_t Bytes) {
  out().collective(Block, K, C.Id, Root < 0 ? -1 : comms::worldRank(C, Root), Bytes);
}

int collectiveCall(mpiete_site_t, MPI_Comm, int (*Fn)(void *), void *Arg) { return Fn(Arg); }

void commCreated(mpiete_site_t Block, MPI_Comm Parent, MPI_Comm New) {
  if (New != MPI_COMM_NULL)
    makeShadow(New);
  if (!out().on())
    return;
  const uint64_t ParentId = comms::lookup(Parent, Block).Id;
  if (New == MPI_COMM_NULL) {
    out().commCreate(Block, ParentId, false, 0, 0, nullptr);
    return;
  }
  const comms::Info &C = comms::lookup(New, Block);
  out().commCreate(Block, ParentId, true, C.Id, C.Size, C.World);
}

void commFreed(mpiete_site_t Block, MPI_Comm Comm) {
  const comms::Info &C = comms::lookup(Comm, Block);
  MPI_Comm Shadow = C.Shadow;
  if (Shadow != MPI_COMM_NULL)
    PMPI_Comm_free(&Shadow);
  if (!out().on())
    return;
  out().commFree(Block, C.Id);
}

} // namespace mpiete::transport
