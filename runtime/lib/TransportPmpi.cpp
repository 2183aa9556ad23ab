// A plain PMPI transport that only counts each block's events in the Recorder: the timing
// variant's stand-in until the token machine (TokenMachine.cpp) replaces it.
#include "Comms.h"
#include "Recorder.h"
#include "Transport.h"

namespace mpiete::transport {
namespace {

Recorder &rec() { return Recorder::get(); }

/// The communicator a message of context Ctx travels on.
MPI_Comm matchingSpace(mpiete_site_t Block, MPI_Comm Comm, Context Ctx) {
  if (Ctx == Context::User)
    return Comm;
  const comms::Info &C = comms::lookup(Comm, Block);
  return C.Shadow != MPI_COMM_NULL ? C.Shadow : Comm;
}

void makeShadow(MPI_Comm Comm) {
  MPI_Comm Shadow;
  if (PMPI_Comm_dup(Comm, &Shadow) != MPI_SUCCESS)
    rec().fail("cannot duplicate a communicator for collective traffic");
  comms::setShadow(Comm, Shadow);
}

} // namespace

void init(mpiete_site_t Block) {
  rec().onInit(Block, MPI_SUCCESS);
  makeShadow(MPI_COMM_WORLD);
  makeShadow(MPI_COMM_SELF);
}

void finalize(mpiete_site_t Block) { rec().onFinalize(Block); }

int isend(mpiete_site_t Block, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
          MPI_Comm Comm, SendMode Mode, Context Ctx, MPI_Request *Req) {
  rec().record(Block, Kind::Start);
  const MPI_Comm Space = matchingSpace(Block, Comm, Ctx);
  switch (Mode) {
  case SendMode::Synchronous:
    return PMPI_Issend(Buf, Count, Type, Dest, Tag, Space, Req);
  case SendMode::Ready:
    return PMPI_Irsend(Buf, Count, Type, Dest, Tag, Space, Req);
  case SendMode::Buffered:
    return PMPI_Ibsend(Buf, Count, Type, Dest, Tag, Space, Req);
  case SendMode::Standard:
    break;
  }
  return PMPI_Isend(Buf, Count, Type, Dest, Tag, Space, Req);
}

int irecv(mpiete_site_t Block, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
          MPI_Comm Comm, Context Ctx, MPI_Request *Req) {
  rec().record(Block, Kind::Start);
  return PMPI_Irecv(Buf, Count, Type, Source, Tag, matchingSpace(Block, Comm, Ctx), Req);
}

int wait(mpiete_site_t Block, MPI_Request *Req, MPI_Status *Status) {
  rec().record(Block, Kind::Wait);
  return PMPI_Wait(Req, Status);
}
int waitall(mpiete_site_t Block, int N, MPI_Request Reqs[], MPI_Status Statuses[]) {
  rec().record(Block, Kind::Wait);
  return PMPI_Waitall(N, Reqs, Statuses);
}
int waitany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status) {
  rec().record(Block, Kind::Wait);
  return PMPI_Waitany(N, Reqs, Index, Status);
}
int waitsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  rec().record(Block, Kind::Wait);
  return PMPI_Waitsome(N, Reqs, OutCount, Indices, Statuses);
}
int test(mpiete_site_t Block, MPI_Request *Req, int *Flag, MPI_Status *Status) {
  rec().record(Block, Kind::Wait);
  return PMPI_Test(Req, Flag, Status);
}
int testall(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]) {
  rec().record(Block, Kind::Wait);
  return PMPI_Testall(N, Reqs, Flag, Statuses);
}
int testany(mpiete_site_t Block, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status) {
  rec().record(Block, Kind::Wait);
  return PMPI_Testany(N, Reqs, Index, Flag, Status);
}
int testsome(mpiete_site_t Block, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]) {
  rec().record(Block, Kind::Wait);
  return PMPI_Testsome(N, Reqs, OutCount, Indices, Statuses);
}
int probe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, MPI_Status *Status) {
  rec().record(Block, Kind::Wait);
  return PMPI_Probe(Source, Tag, Comm, Status);
}
int iprobe(mpiete_site_t Block, int Source, int Tag, MPI_Comm Comm, int *Flag, MPI_Status *Status) {
  rec().record(Block, Kind::Wait);
  return PMPI_Iprobe(Source, Tag, Comm, Flag, Status);
}
int requestFree(mpiete_site_t Block, MPI_Request *Req) {
  rec().record(Block, Kind::Wait);
  return PMPI_Request_free(Req);
}

int collectiveCall(mpiete_site_t Block, MPI_Comm, int (*Fn)(void *), void *Arg) {
  rec().record(Block, Kind::Comm);
  return Fn(Arg);
}

void commCreated(mpiete_site_t, MPI_Comm, MPI_Comm New) {
  if (New != MPI_COMM_NULL)
    makeShadow(New);
}

void commFreed(mpiete_site_t Block, MPI_Comm Comm) {
  MPI_Comm Shadow = comms::lookup(Comm, Block).Shadow;
  if (Shadow != MPI_COMM_NULL)
    PMPI_Comm_free(&Shadow);
}

} // namespace mpiete::transport
