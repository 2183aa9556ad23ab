// The collectives the instrumented program calls, lowered to point-to-point starts and waits
// on the transport (Transport.h), all recorded under the collective's one site block.
//
// Each follows MPI's semantics for its arguments (MPI_IN_PLACE where MPI allows it, derived
// datatypes, built-in and user-defined operations in MPI's operand order) and uses the
// algorithm the selected library's default decision picks (CollDecision.h), so the messages
// are those that library would send. Parameters are MPI's, after the site id.
#ifndef MPIETE_RUNTIME_COLLECTIVES_H
#define MPIETE_RUNTIME_COLLECTIVES_H

#include "mpiete/instrument.h"

namespace mpiete::coll {

int barrier(mpiete_site_t Site, MPI_Comm Comm);
int bcast(mpiete_site_t Site, void *Buf, int Count, MPI_Datatype Type, int Root, MPI_Comm Comm);
int reduce(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
           MPI_Op Op, int Root, MPI_Comm Comm);
int allreduce(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
              MPI_Op Op, MPI_Comm Comm);
int gather(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
           void *RecvBuf, int RecvCount, MPI_Datatype RecvType, int Root, MPI_Comm Comm);
int gatherv(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
            void *RecvBuf, const int RecvCounts[], const int Displs[], MPI_Datatype RecvType,
            int Root, MPI_Comm Comm);
int scatter(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
            void *RecvBuf, int RecvCount, MPI_Datatype RecvType, int Root, MPI_Comm Comm);
int scatterv(mpiete_site_t Site, const void *SendBuf, const int SendCounts[], const int Displs[],
             MPI_Datatype SendType, void *RecvBuf, int RecvCount, MPI_Datatype RecvType, int Root,
             MPI_Comm Comm);
int allgather(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
              void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm);
int allgatherv(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
               void *RecvBuf, const int RecvCounts[], const int Displs[], MPI_Datatype RecvType,
               MPI_Comm Comm);
int alltoall(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
             void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm);
int alltoallv(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
              const int SendDispls[], MPI_Datatype SendType, void *RecvBuf, const int RecvCounts[],
              const int RecvDispls[], MPI_Datatype RecvType, MPI_Comm Comm);
int reduceScatter(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, const int RecvCounts[],
                  MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm);
int reduceScatterBlock(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int RecvCount,
                       MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm);
int scan(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
         MPI_Op Op, MPI_Comm Comm);
int exscan(mpiete_site_t Site, const void *SendBuf, void *RecvBuf, int Count, MPI_Datatype Type,
           MPI_Op Op, MPI_Comm Comm);

/// Open MPI's coll/basic alltoallw (Alltoall.cpp): displacements in bytes, a type per peer.
int alltoallw(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
              const int SendDispls[], const MPI_Datatype SendTypes[], void *RecvBuf,
              const int RecvCounts[], const int RecvDispls[], const MPI_Datatype RecvTypes[],
              MPI_Comm Comm);

// Neighbourhood collectives (Neighbor.cpp): Cartesian communicators only (MPI_ERR_TOPOLOGY
// otherwise).
int neighborAllgather(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
                      void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm);
int neighborAllgatherv(mpiete_site_t Site, const void *SendBuf, int SendCount,
                       MPI_Datatype SendType, void *RecvBuf, const int RecvCounts[],
                       const int Displs[], MPI_Datatype RecvType, MPI_Comm Comm);
int neighborAlltoall(mpiete_site_t Site, const void *SendBuf, int SendCount, MPI_Datatype SendType,
                     void *RecvBuf, int RecvCount, MPI_Datatype RecvType, MPI_Comm Comm);
int neighborAlltoallv(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
                      const int SendDispls[], MPI_Datatype SendType, void *RecvBuf,
                      const int RecvCounts[], const int RecvDispls[], MPI_Datatype RecvType,
                      MPI_Comm Comm);
int neighborAlltoallw(mpiete_site_t Site, const void *SendBuf, const int SendCounts[],
                      const MPI_Aint SendDispls[], const MPI_Datatype SendTypes[], void *RecvBuf,
                      const int RecvCounts[], const MPI_Aint RecvDispls[],
                      const MPI_Datatype RecvTypes[], MPI_Comm Comm);
/// A Cartesian communicator's neighbour count (2 x its dimensions); 0 for any other.
int neighborCount(MPI_Comm Comm);

} // namespace mpiete::coll

#endif // MPIETE_RUNTIME_COLLECTIVES_H
