// The token machine's deadlock report: what each rank waits for, recorded when it stops, and
// printed for every rank once nobody can run any more.
#include "TokenMachine.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace mpiete::transport::token {
namespace {

/// The routine the user wrote: a blocking call was split into a start and a
/// wait whose blocks follow each other (SEND/RECV: site, site + 1; SENDRECV:
/// site, site + 1, site + 2).
const char *routineName(const WaitDesc &W) {
  if (W.NPending >= 1 && W.Conds[0].Ctx == Context::Collective)
    return "a collective operation";
  if (W.What == WaitWhat::Wait && W.NPending == 1 && W.Conds[0].StartBlock + 1 == W.Block)
    return W.Conds[0].Kind == CondKind::Recv ? "MPI_Recv" : "MPI_Ssend";
  if (W.What == WaitWhat::Waitall && W.Conds[0].StartBlock + 2 == W.Block &&
      (W.NPending == 1 || W.Conds[1].StartBlock + 1 == W.Block))
    return "MPI_Sendrecv";
  return whatName(W.What);
}

void appendf(char *Buf, size_t Size, size_t &Len, const char *Fmt, ...)
    __attribute__((format(printf, 4, 5)));
void appendf(char *Buf, size_t Size, size_t &Len, const char *Fmt, ...) {
  if (Len >= Size)
    return;
  va_list Ap;
  va_start(Ap, Fmt);
  const int N = std::vsnprintf(Buf + Len, Size - Len, Fmt, Ap);
  va_end(Ap);
  if (N > 0)
    Len = Len + static_cast<size_t>(N) < Size ? Len + static_cast<size_t>(N) : Size - 1;
}

void describeCond(char *Buf, size_t Size, size_t &Len, const WaitCond &C) {
  char Peer[24], Tag[24];
  if (C.Peer == MPI_ANY_SOURCE)
    std::snprintf(Peer, sizeof Peer, "any source");
  else
    std::snprintf(Peer, sizeof Peer, "%s %d", C.Kind == CondKind::SyncSend ? "dest" : "source",
                  C.Peer);
  if (C.Tag == MPI_ANY_TAG)
    std::snprintf(Tag, sizeof Tag, "any tag");
  else
    std::snprintf(Tag, sizeof Tag, "tag %d", C.Tag);
  const char *What = C.Kind == CondKind::SyncSend ? "the receive of a synchronous send to " : "";
  appendf(Buf, Size, Len, "%s%s %s on communicator %" PRIx64, What, Peer, Tag, C.CommId);
}

void describeRank(char *Buf, size_t Size, size_t &Len, int R) {
  const RankSlot &S = slot(R);
  const WaitDesc &W = S.Wait;
  char Block[BlockIdBufferSize];
  formatBlockId(W.Block, Block, sizeof Block);
  appendf(Buf, Size, Len, "rank %d ", R);
  switch (S.State) {
  case RankState::Finished:
    appendf(Buf, Size, Len, "has finished (MPI_Finalize, block %s)", Block);
    return;
  case RankState::Parked:
    appendf(Buf, Size, Len,
            "waits in a communicator call (block %s) for the other members of "
            "communicator "
            "%" PRIx64,
            Block, W.CommId);
    return;
  case RankState::Ready:
  case RankState::PollWait:
    appendf(Buf, Size, Len, "polls in %s (block %s) without progress", routineName(W), Block);
    break;
  case RankState::Blocked:
    appendf(Buf, Size, Len, "waits in %s (block %s)", routineName(W), Block);
    break;
  case RankState::Running:
    appendf(Buf, Size, Len, "waits in %s (block %s)", routineName(W), Block);
    break;
  case RankState::Collective:
    appendf(Buf, Size, Len, "is in a communicator call");
    return;
  }
  const uint32_t Shown = W.NPending < MaxWaitConds ? W.NPending : MaxWaitConds;
  if (W.NPending > 1)
    appendf(Buf, Size, Len, " for %u requests:", W.NPending);
  for (uint32_t I = 0; I < Shown; ++I) {
    appendf(Buf, Size, Len, I == 0 ? " for " : ", ");
    describeCond(Buf, Size, Len, W.Conds[I]);
  }
  if (W.NPending > Shown)
    appendf(Buf, Size, Len, ", ...");
}

void describeRequest(WaitCond &C, const Request &R) {
  C.StartBlock = R.Block;
  C.Ctx = R.Ctx;
  C.CommId = R.CommId;
  C.Peer = R.Source;
  C.Tag = R.Tag;
  C.Kind = R.Kind == ReqKind::Recv ? CondKind::Recv : CondKind::SyncSend;
}

} // namespace

const char *whatName(WaitWhat W) {
  switch (W) {
  case WaitWhat::Wait:
    return "MPI_Wait";
  case WaitWhat::Waitall:
    return "MPI_Waitall";
  case WaitWhat::Waitany:
    return "MPI_Waitany";
  case WaitWhat::Waitsome:
    return "MPI_Waitsome";
  case WaitWhat::Test:
    return "MPI_Test";
  case WaitWhat::Testall:
    return "MPI_Testall";
  case WaitWhat::Testany:
    return "MPI_Testany";
  case WaitWhat::Testsome:
    return "MPI_Testsome";
  case WaitWhat::Probe:
    return "MPI_Probe";
  case WaitWhat::Iprobe:
    return "MPI_Iprobe";
  case WaitWhat::CommCall:
    return "a communicator call";
  case WaitWhat::Finalize:
    return "MPI_Finalize";
  case WaitWhat::None:
    break;
  }
  return "?";
}

/// Records what this rank waits for: the incomplete requests among Reqs.
void describeWait(WaitWhat What, mpiete_site_t Block, int N, const MPI_Request *Reqs) {
  WaitDesc &W = self().Wait;
  W.What = What;
  W.Block = Block;
  W.NPending = 0;
  for (int I = 0; I < N; ++I) {
    if (Reqs[I] == MPI_REQUEST_NULL)
      continue;
    const Request &R = *fromHandle(Reqs[I]);
    if (R.Complete)
      continue;
    if (W.NPending < MaxWaitConds)
      describeRequest(W.Conds[W.NPending], R);
    W.NPending += 1;
  }
}

void describeProbe(WaitWhat What, mpiete_site_t Block, const Request &Probe) {
  WaitDesc &W = self().Wait;
  W.What = What;
  W.Block = Block;
  W.NPending = 1;
  describeRequest(W.Conds[0], Probe);
  W.Conds[0].Kind = CondKind::Probe;
}

[[noreturn]] void reportDeadlock() {
  const size_t Size = 256 + 256 * static_cast<size_t>(M.N);
  char *Buf = static_cast<char *>(std::malloc(Size));
  if (Buf == nullptr)
    fatal("deadlock under token passing (no memory to describe it)");
  size_t Len = 0;
  appendf(Buf, Size, Len, "mpiete: rank %d: error: deadlock under token passing: ", M.Me);
  for (int R = 0; R < M.N; ++R) {
    if (R != 0)
      appendf(Buf, Size, Len, "; ");
    describeRank(Buf, Size, Len, R);
  }
  std::fprintf(stderr, "%s\n", Buf);
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

} // namespace mpiete::transport::token
