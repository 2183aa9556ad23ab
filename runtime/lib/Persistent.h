// Persistent point-to-point requests (MPI_Send_init and its modes, MPI_Recv_init, MPI_Start,
// MPI_Startall), on top of the transport layer, so both variants get them at once.
//
// A persistent request is a descriptor the runtime keeps: MPI_Send_init stores its arguments
// and starts nothing; each MPI_Start runs the matching non-blocking start (transport::isend or
// irecv) under MPI_Start's own site, so the trace holds an ordinary start for every activation
// and the estimator needs nothing new. The user's handle names the descriptor, never the
// transport's request: it stays valid when a wait completes the activation (MPI's rule for
// persistent requests) and becomes MPI_REQUEST_NULL only in MPI_Request_free.
//
// The completion routines therefore take the user's handles through this layer: a persistent
// handle is replaced by its active request for the transport call (MPI_REQUEST_NULL while
// inactive, which MPI completes at once with an empty status, as it does an inactive
// persistent request), and the user's handle is left as it was. Until the program creates its
// first persistent request, that costs one comparison per call.
//
// Handles: with Open MPI (pointer handles) addresses inside a reserved, inaccessible region of
// the runtime's address space, so no MPI object can have them; with MPICH (int handles) values
// whose kind bits are 0, which MPICH never hands out. A persistent handle passed to an MPI
// routine mpiete does not rewrite (MPI_Request_get_status, MPI_Request_c2f) is not translated.
#ifndef MPIETE_RUNTIME_PERSISTENT_H
#define MPIETE_RUNTIME_PERSISTENT_H

#include "mpiete/SendMode.h"
#include "mpiete/instrument.h"

#include <mpi.h>

namespace mpiete::nbc {
struct Op;
}

namespace mpiete::persistent {

/// A non-blocking collective's request (Nonblocking.h): a handle of the same table, so the
/// completion routines below complete it too.
MPI_Request adoptCollective(nbc::Op *O);

int sendInit(SendMode Mode, mpiete_site_t Site, const void *Buf, int Count, MPI_Datatype Type,
             int Dest, int Tag, MPI_Comm Comm, MPI_Request *Req);
template <SendMode Mode>
int sendInit(mpiete_site_t Site, const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
             MPI_Comm Comm, MPI_Request *Req) {
  return sendInit(Mode, Site, Buf, Count, Type, Dest, Tag, Comm, Req);
}
int recvInit(mpiete_site_t Site, void *Buf, int Count, MPI_Datatype Type, int Source, int Tag,
             MPI_Comm Comm, MPI_Request *Req);
int start(mpiete_site_t Site, MPI_Request *Req);
int startall(mpiete_site_t Site, int N, MPI_Request Reqs[]);

// The completion and release routines of routines.def, with persistent handles translated.
int wait(mpiete_site_t Site, MPI_Request *Req, MPI_Status *Status);
int waitall(mpiete_site_t Site, int N, MPI_Request Reqs[], MPI_Status Statuses[]);
int waitany(mpiete_site_t Site, int N, MPI_Request Reqs[], int *Index, MPI_Status *Status);
int waitsome(mpiete_site_t Site, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]);
int test(mpiete_site_t Site, MPI_Request *Req, int *Flag, MPI_Status *Status);
int testall(mpiete_site_t Site, int N, MPI_Request Reqs[], int *Flag, MPI_Status Statuses[]);
int testany(mpiete_site_t Site, int N, MPI_Request Reqs[], int *Index, int *Flag,
            MPI_Status *Status);
int testsome(mpiete_site_t Site, int N, MPI_Request Reqs[], int *OutCount, int Indices[],
             MPI_Status Statuses[]);
int requestFree(mpiete_site_t Site, MPI_Request *Req);

} // namespace mpiete::persistent

#endif // MPIETE_RUNTIME_PERSISTENT_H
