// The token machine's completions: the Wait/Test family (one loop for all eight), the probes
// and MPI_Request_free. A wait that cannot complete gives the token away until something
// arrives for its rank; a test lets the other ranks run once before it answers no.
#include "Nonblocking.h"
#include "TokenMachine.h"

namespace mpiete::transport::token {
namespace {

bool isDone(MPI_Request Req) { return Req == MPI_REQUEST_NULL || fromHandle(Req)->Complete; }

void checkRequests(int N, const MPI_Request Reqs[], mpiete_site_t Block) {
  for (int I = 0; I < N; ++I)
    if (Reqs[I] != MPI_REQUEST_NULL)
      toRequest(Reqs[I], Block);
}

/// Makes a receive-like record for probes (never posted).
Request probeRecord(mpiete_site_t Block, int Source, int Tag, const comms::Info &C) {
  Request P{};
  P.Kind = ReqKind::Recv;
  P.Block = Block;
  P.Source = Source;
  P.SrcWorld = comms::worldRank(C, Source);
  P.Tag = Tag;
  P.CommId = C.Id;
  P.Ctx = Context::User;
  return P;
}

void probeStatus(uint32_t I, MPI_Status *St) {
  if (St == MPI_STATUS_IGNORE)
    return;
  const MsgDesc &D = M.Msgs[I];
  setStatus(*St, D.SrcRank, D.Tag, MPI_SUCCESS, static_cast<int>(D.Bytes));
}

/// Counts a wait of the user's (not one inside a lowered collective, whose site
/// block its entry point counts once as a collective).
void recordWait(mpiete_site_t Block, int N, const MPI_Request *Reqs) {
  if (Block == M.CollectiveBlock)
    return;
  for (int I = 0; I < N; ++I)
    if (const Request *R = Reqs[I] != MPI_REQUEST_NULL ? fromHandle(Reqs[I]) : nullptr;
        R != nullptr && R->Magic == ReqMagic && R->Ctx == Context::Collective)
      return;
  rec().record(Block, Kind::Wait);
}

/// Waitany/Testany: the first completed active request, or -1; Active says
/// whether any is.
int firstDone(int N, const MPI_Request Reqs[], bool &Active) {
  Active = false;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    Active = true;
    if (fromHandle(Reqs[I])->Complete)
      return I;
  }
  return -1;
}

/// Waitsome/Testsome: completes every finished request; returns how many
/// (MPI_UNDEFINED if none is active).
int collectDone(int N, MPI_Request Reqs[], int Indices[], MPI_Status Statuses[], bool &Error) {
  bool Active = false;
  int Out = 0;
  Error = false;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    Active = true;
    if (!fromHandle(Reqs[I])->Complete)
      continue;
    MPI_Status *St = Statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Statuses[Out];
    Error |= finish(&Reqs[I], St) != MPI_SUCCESS;
    Indices[Out++] = I;
  }
  return Active ? Out : MPI_UNDEFINED;
}

/// The body all eight Wait/Test routines share, under the segment lock: counts the wait,
/// checks the handles, then (after progress) asks Done whether the routine can return; Done
/// fills the user's outputs when it can. A wait gives up its token until something arrives for
/// this rank and asks again; a test asks twice, letting the other ranks run once in between,
/// and returns false if both answers were no. MPI_Wait and MPI_Test on MPI_REQUEST_NULL are
/// answered at once, before any progress.
template <typename DoneFn>
bool complete(WaitWhat What, mpiete_site_t Block, int N, MPI_Request Reqs[], DoneFn Done) {
  checkActive(whatName(What));
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, N, Reqs);
  if ((What == WaitWhat::Wait || What == WaitWhat::Test) && Reqs[0] == MPI_REQUEST_NULL)
    return Done();
  checkRequests(N, Reqs, Block);
  const bool Blocking = What == WaitWhat::Wait || What == WaitWhat::Waitall ||
                        What == WaitWhat::Waitany || What == WaitWhat::Waitsome;
  for (int Round = 0;; ++Round) {
    progress();
    if (Done())
      return true;
    if (!Blocking && Round == 1)
      return false;
    describeWait(What, Block, N, Reqs);
    if (Blocking)
      blockUntilArrival();
    else
      yieldAfterFailedPoll();
  }
}

/// Waitall/Testall once every request is done: each one's status; MPI_ERR_IN_STATUS if any
/// failed.
int finishAll(int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  bool AnyError = false;
  for (int I = 0; I < N; ++I) {
    MPI_Status *St = Statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &Statuses[I];
    if (Reqs[I] == MPI_REQUEST_NULL)
      emptyStatus(St);
    else
      AnyError |= finish(&Reqs[I], St) != MPI_SUCCESS;
  }
  return AnyError ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

bool allDone(int N, const MPI_Request Reqs[]) {
  bool All = true;
  for (int I = 0; I < N && All; ++I)
    All = isDone(Reqs[I]);
  return All;
}

/// Wait/Test on one request.
bool oneDone(MPI_Request *Req, MPI_Status *Status, int &Rc) {
  if (*Req == MPI_REQUEST_NULL) {
    emptyStatus(Status);
    return true;
  }
  if (!isDone(*Req))
    return false;
  Rc = finish(Req, Status);
  return true;
}

/// Waitany/Testany: no active request, or the first completed one.
bool anyDone(int N, MPI_Request Reqs[], int *Index, MPI_Status *Status, int &Rc) {
  bool Active;
  const int I = firstDone(N, Reqs, Active);
  if (!Active) {
    *Index = MPI_UNDEFINED;
    emptyStatus(Status);
    return true;
  }
  if (I < 0)
    return false;
  *Index = I;
  Rc = finish(&Reqs[I], Status);
  return true;
}

/// Waitsome/Testsome: every completed request, if there is one (or no active one).
bool someDone(int N, MPI_Request Reqs[], int *OutCount, int Indices[], MPI_Status Statuses[],
              int &Rc) {
  bool Error;
  const int Out = collectDone(N, Reqs, Indices, Statuses, Error);
  if (Out == 0)
    return false;
  *OutCount = Out;
  Rc = Error ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
  return true;
}

} // namespace
} // namespace mpiete::transport::token

namespace mpiete::transport {

using namespace token;

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *Status) {
  nbc::whileBlocked(Block, 1, Req, false);
  int Rc = MPI_SUCCESS;
  complete(WaitWhat::Wait, Block, 1, Req, [&] { return oneDone(Req, Status, Rc); });
  return mpiError(Rc, Block, "MPI_Wait");
}

int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  nbc::whileBlocked(Block, N, Reqs, false);
  int Rc = MPI_SUCCESS;
  complete(WaitWhat::Waitall, Block, N, Reqs, [&] {
    if (!allDone(N, Reqs))
      return false;
    Rc = finishAll(N, Reqs, Statuses);
    return true;
  });
  return mpiError(Rc, Block, "MPI_Waitall");
}

int waitany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status) {
  nbc::whileBlocked(Block, N, Reqs, true);
  int Rc = MPI_SUCCESS;
  complete(WaitWhat::Waitany, Block, N, Reqs, [&] { return anyDone(N, Reqs, Index, Status, Rc); });
  return mpiError(Rc, Block, "MPI_Waitany");
}

int waitsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  nbc::whileBlocked(Block, N, Reqs, true);
  int Rc = MPI_SUCCESS;
  complete(WaitWhat::Waitsome, Block, N, Reqs,
           [&] { return someDone(N, Reqs, OutCount, Indices, Statuses, Rc); });
  return mpiError(Rc, Block, "MPI_Waitsome");
}

bool ready(int N, const MPI_Request Reqs[], bool Any) {
  SegmentLock Lock;
  progress();
  return requestsReady(N, Reqs, Any, [](MPI_Request R) { return fromHandle(R)->Complete; });
}

double driveGraceSeconds() { return 0; }

void idle(mpiete_site_t Block, int N, const MPI_Request Reqs[]) {
  // A poll, not blockUntilArrival: an operation's message may have arrived since the last
  // look (ranks that share a node run at once), and polling cannot miss it.
  SegmentLock Lock;
  describeWait(N == 1 ? WaitWhat::Wait : WaitWhat::Waitall, Block, N, Reqs);
  yieldAfterFailedPoll();
}

int test(mpiete_site_t Block, MPI_Request *Req, int *Flag, MPI_Status *Status) {
  int Rc = MPI_SUCCESS;
  *Flag = complete(WaitWhat::Test, Block, 1, Req, [&] { return oneDone(Req, Status, Rc); });
  return mpiError(Rc, Block, "MPI_Test");
}

int testall(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]) {
  int Rc = MPI_SUCCESS;
  *Flag = complete(WaitWhat::Testall, Block, N, Reqs, [&] {
    if (!allDone(N, Reqs))
      return false;
    Rc = finishAll(N, Reqs, Statuses);
    return true;
  });
  return mpiError(Rc, Block, "MPI_Testall");
}

int testany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status) {
  int Rc = MPI_SUCCESS;
  *Flag = complete(WaitWhat::Testany, Block, N, Reqs,
                   [&] { return anyDone(N, Reqs, Index, Status, Rc); });
  if (!*Flag)
    *Index = MPI_UNDEFINED;
  return mpiError(Rc, Block, "MPI_Testany");
}

int testsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  int Rc = MPI_SUCCESS;
  if (!complete(WaitWhat::Testsome, Block, N, Reqs,
                [&] { return someDone(N, Reqs, OutCount, Indices, Statuses, Rc); }))
    *OutCount = 0;
  return mpiError(Rc, Block, "MPI_Testsome");
}

namespace {

/// The start Probe and Iprobe share, under the caller's lock: records the wait, answers a probe
/// of MPI_PROC_NULL (Rc = MPI_SUCCESS) or of a bad rank (Rc = MPI_ERR_RANK) with false, else
/// fills P with the pending probe.
bool startProbe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status,
                Request &P, int &Rc) {
  yieldToCommCalls();
  rec().record(Block, Kind::Wait);
  Rc = MPI_SUCCESS;
  if (Source == MPI_PROC_NULL) {
    if (Status != MPI_STATUS_IGNORE)
      setStatus(*Status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return false;
  }
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Source != MPI_ANY_SOURCE && (Source < 0 || Source >= C.Size)) {
    Rc = MPI_ERR_RANK;
    return false;
  }
  P = probeRecord(Block, Source, Tag, C);
  // A wildcard probe finds the message the traced run's found (probe-compute --program); the
  // caller moves past the traced source once the probe finds it.
  if (Source == MPI_ANY_SOURCE && tracedSource() >= 0)
    P.SrcWorld = tracedSource();
  return true;
}

} // namespace

namespace {

/// A look for MPI_Probe's message while non-blocking collectives run (Nonblocking.h), recording
/// nothing: whether it is there (or the probe answers at once); if not and Idle, the other
/// ranks run once.
bool probeLook(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, bool Idle) {
  SegmentLock Lock;
  if (Source == MPI_PROC_NULL)
    return true;
  const comms::Info &C = comms::lookup(Comm, Block);
  if (Source != MPI_ANY_SOURCE && (Source < 0 || Source >= C.Size))
    return true; // MPI_Probe reports the bad rank
  Request P = probeRecord(Block, Source, Tag, C);
  if (Source == MPI_ANY_SOURCE && tracedSource() >= 0)
    P.SrcWorld = tracedSource();
  progress();
  uint32_t Prev;
  if (findMatch(P, Prev) != NoMsg)
    return true;
  if (Idle) {
    describeProbe(WaitWhat::Probe, Block, P);
    yieldAfterFailedPoll();
  }
  return false;
}

} // namespace

int probe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status) {
  checkActive("MPI_Probe");
  // Its messages may need this rank's operations.
  nbc::driveUntil([&] { return probeLook(Block, Source, Tag, Comm, false); },
                  [&] { probeLook(Block, Source, Tag, Comm, true); });
  SegmentLock Lock;
  Request P;
  int Rc;
  if (!startProbe(Block, Source, Tag, Comm, Status, P, Rc))
    return Rc;
  for (;;) {
    progress();
    uint32_t Prev;
    const uint32_t I = findMatch(P, Prev);
    if (I != NoMsg) {
      probeStatus(I, Status);
      if (Source == MPI_ANY_SOURCE)
        takeTracedSource();
      return MPI_SUCCESS;
    }
    describeProbe(WaitWhat::Probe, Block, P);
    blockUntilArrival();
  }
}

int iprobe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, int *Flag, MPI_Status *Status) {
  checkActive("MPI_Iprobe");
  SegmentLock Lock;
  Request P;
  int Rc;
  if (!startProbe(Block, Source, Tag, Comm, Status, P, Rc)) {
    if (Rc == MPI_SUCCESS)
      *Flag = 1; // a probe of MPI_PROC_NULL finds its empty message at once
    return Rc;
  }
  for (int Round = 0; Round < 2; ++Round) {
    progress();
    uint32_t Prev;
    const uint32_t I = findMatch(P, Prev);
    if (I != NoMsg) {
      *Flag = 1;
      probeStatus(I, Status);
      if (Source == MPI_ANY_SOURCE)
        takeTracedSource(); // a probe that finds nothing was no match in the trace either
      return MPI_SUCCESS;
    }
    if (Round == 0) {
      describeProbe(WaitWhat::Iprobe, Block, P);
      yieldAfterFailedPoll();
    }
  }
  *Flag = 0;
  return MPI_SUCCESS;
}

int requestFree(mpiete_site_t Block, MPI_Request *Req) {
  checkActive("MPI_Request_free");
  SegmentLock Lock;
  yieldToCommCalls();
  recordWait(Block, 1, Req);
  if (*Req == MPI_REQUEST_NULL)
    return MPI_ERR_REQUEST;
  Request *R = toRequest(*Req, Block);
  *Req = MPI_REQUEST_NULL;
  if (R->Complete) {
    releaseRequest(R);
    return MPI_SUCCESS;
  }
  // Still pending: the receive still lands in its buffer, the synchronous send
  // still waits for its match; the record goes when that happens (progress,
  // sweepOwned).
  R->Freed = true;
  return MPI_SUCCESS;
}

} // namespace mpiete::transport
