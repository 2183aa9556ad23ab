// Fortran MPI calls the instrumenter never saw: a Fortran file built natively because Flang
// could not analyse it (mpiete-fc warns), or a Fortran library. Open MPI's Fortran bindings
// (mpi_send_ in libmpi_mpifh) call PMPI_Send directly, so without this such a call would
// bypass the runtime: the trace would miss it and the timing probe would hang in it while the
// other ranks wait for the token. The probes therefore define the Fortran symbols of every
// routine of routines.def (gfortran's `mpi_send_`, and `mpi_send__` for -fsecond-underscore):
// the runtime archive comes before the MPI Fortran library on the probe link line, so these
// definitions win, and an instrumented program (which calls mpiete_send_) never pulls them in.
//
// Each forwards to the routine's Fortran entry point (FortranEntry.cpp), which converts the
// Fortran arguments, with the reserved unit and the routine's pseudo site: the same sites as the
// C interposer's (Interpose.cpp, mpiete/BlockId.h uninstrumentedSite). Every Fortran argument
// is passed by reference, so an entry point is a list of pointers: MPI's arguments and IERROR.
#include "Fortran.h"
#include "Recorder.h"

#include <cstdio>

namespace mpiete {
namespace {

enum FortranOrdinal : uint32_t {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) FortranOrdinal_##MpiName,
#include "mpiete/routines.def"
  FortranOrdinalCount
};

/// Says once per routine (on rank 0) that a Fortran call bypassed the instrumentation.
void noteUninstrumentedFortran(FortranOrdinal O, const char *Name) {
  static bool Warned[FortranOrdinalCount];
  if (Warned[O])
    return;
  Warned[O] = true;
  if (Recorder::get().rank() > 0)
    return;
  char Site[BlockIdBufferSize];
  formatBlockId(uninstrumentedSite(O), Site, sizeof Site);
  std::fprintf(stderr,
               "mpiete: rank 0: warning: Fortran '%s' called from code mpiete-fc did not "
               "instrument; it is recorded under site %s and has no source position\n",
               Name, Site);
}

/// The (UNIT, IDX) pair of a routine's pseudo site, as Fortran INTEGERs.
constexpr MPI_Fint ReservedUnitFint = static_cast<MPI_Fint>(ReservedUnit);
constexpr MPI_Fint pseudoIndex(FortranOrdinal O) {
  return static_cast<MPI_Fint>(blockIndex(uninstrumentedSite(O)));
}

} // namespace
} // namespace mpiete

// The Fortran name of each routine: the lower-case MPI name (gfortran's convention).
#define MPIETE_FNAME_MPI_Init mpi_init
#define MPIETE_FNAME_MPI_Init_thread mpi_init_thread
#define MPIETE_FNAME_MPI_Finalize mpi_finalize
#define MPIETE_FNAME_MPI_Send mpi_send
#define MPIETE_FNAME_MPI_Ssend mpi_ssend
#define MPIETE_FNAME_MPI_Rsend mpi_rsend
#define MPIETE_FNAME_MPI_Bsend mpi_bsend
#define MPIETE_FNAME_MPI_Recv mpi_recv
#define MPIETE_FNAME_MPI_Sendrecv mpi_sendrecv
#define MPIETE_FNAME_MPI_Sendrecv_replace mpi_sendrecv_replace
#define MPIETE_FNAME_MPI_Isend mpi_isend
#define MPIETE_FNAME_MPI_Issend mpi_issend
#define MPIETE_FNAME_MPI_Irsend mpi_irsend
#define MPIETE_FNAME_MPI_Ibsend mpi_ibsend
#define MPIETE_FNAME_MPI_Irecv mpi_irecv
#define MPIETE_FNAME_MPI_Wait mpi_wait
#define MPIETE_FNAME_MPI_Waitall mpi_waitall
#define MPIETE_FNAME_MPI_Waitany mpi_waitany
#define MPIETE_FNAME_MPI_Waitsome mpi_waitsome
#define MPIETE_FNAME_MPI_Test mpi_test
#define MPIETE_FNAME_MPI_Testall mpi_testall
#define MPIETE_FNAME_MPI_Testany mpi_testany
#define MPIETE_FNAME_MPI_Testsome mpi_testsome
#define MPIETE_FNAME_MPI_Request_free mpi_request_free
#define MPIETE_FNAME_MPI_Probe mpi_probe
#define MPIETE_FNAME_MPI_Iprobe mpi_iprobe
#define MPIETE_FNAME_MPI_Barrier mpi_barrier
#define MPIETE_FNAME_MPI_Bcast mpi_bcast
#define MPIETE_FNAME_MPI_Reduce mpi_reduce
#define MPIETE_FNAME_MPI_Allreduce mpi_allreduce
#define MPIETE_FNAME_MPI_Gather mpi_gather
#define MPIETE_FNAME_MPI_Gatherv mpi_gatherv
#define MPIETE_FNAME_MPI_Scatter mpi_scatter
#define MPIETE_FNAME_MPI_Scatterv mpi_scatterv
#define MPIETE_FNAME_MPI_Allgather mpi_allgather
#define MPIETE_FNAME_MPI_Allgatherv mpi_allgatherv
#define MPIETE_FNAME_MPI_Alltoall mpi_alltoall
#define MPIETE_FNAME_MPI_Alltoallv mpi_alltoallv
#define MPIETE_FNAME_MPI_Reduce_scatter mpi_reduce_scatter
#define MPIETE_FNAME_MPI_Reduce_scatter_block mpi_reduce_scatter_block
#define MPIETE_FNAME_MPI_Scan mpi_scan
#define MPIETE_FNAME_MPI_Exscan mpi_exscan
#define MPIETE_FNAME_MPI_Comm_split mpi_comm_split
#define MPIETE_FNAME_MPI_Comm_split_type mpi_comm_split_type
#define MPIETE_FNAME_MPI_Comm_dup mpi_comm_dup
#define MPIETE_FNAME_MPI_Comm_create mpi_comm_create
#define MPIETE_FNAME_MPI_Cart_create mpi_cart_create
#define MPIETE_FNAME_MPI_Cart_sub mpi_cart_sub
#define MPIETE_FNAME_MPI_Comm_free mpi_comm_free
#define MPIETE_FNAME_MPI_Send_init mpi_send_init
#define MPIETE_FNAME_MPI_Ssend_init mpi_ssend_init
#define MPIETE_FNAME_MPI_Rsend_init mpi_rsend_init
#define MPIETE_FNAME_MPI_Bsend_init mpi_bsend_init
#define MPIETE_FNAME_MPI_Recv_init mpi_recv_init
#define MPIETE_FNAME_MPI_Start mpi_start
#define MPIETE_FNAME_MPI_Startall mpi_startall
#define MPIETE_FNAME_MPI_Ibarrier mpi_ibarrier
#define MPIETE_FNAME_MPI_Ibcast mpi_ibcast
#define MPIETE_FNAME_MPI_Ireduce mpi_ireduce
#define MPIETE_FNAME_MPI_Iallreduce mpi_iallreduce
#define MPIETE_FNAME_MPI_Igather mpi_igather
#define MPIETE_FNAME_MPI_Igatherv mpi_igatherv
#define MPIETE_FNAME_MPI_Iscatter mpi_iscatter
#define MPIETE_FNAME_MPI_Iscatterv mpi_iscatterv
#define MPIETE_FNAME_MPI_Iallgather mpi_iallgather
#define MPIETE_FNAME_MPI_Iallgatherv mpi_iallgatherv
#define MPIETE_FNAME_MPI_Ialltoall mpi_ialltoall
#define MPIETE_FNAME_MPI_Ialltoallv mpi_ialltoallv
#define MPIETE_FNAME_MPI_Ireduce_scatter mpi_ireduce_scatter
#define MPIETE_FNAME_MPI_Ireduce_scatter_block mpi_ireduce_scatter_block
#define MPIETE_FNAME_MPI_Iscan mpi_iscan
#define MPIETE_FNAME_MPI_Iexscan mpi_iexscan
#define MPIETE_FNAME_MPI_Neighbor_allgather mpi_neighbor_allgather
#define MPIETE_FNAME_MPI_Neighbor_allgatherv mpi_neighbor_allgatherv
#define MPIETE_FNAME_MPI_Neighbor_alltoall mpi_neighbor_alltoall
#define MPIETE_FNAME_MPI_Neighbor_alltoallv mpi_neighbor_alltoallv
#define MPIETE_FNAME_MPI_Ineighbor_allgather mpi_ineighbor_allgather
#define MPIETE_FNAME_MPI_Ineighbor_allgatherv mpi_ineighbor_allgatherv
#define MPIETE_FNAME_MPI_Ineighbor_alltoall mpi_ineighbor_alltoall
#define MPIETE_FNAME_MPI_Ineighbor_alltoallv mpi_ineighbor_alltoallv
#define MPIETE_FNAME_MPI_Alltoallw mpi_alltoallw
#define MPIETE_FNAME_MPI_Ialltoallw mpi_ialltoallw
#define MPIETE_FNAME_MPI_Neighbor_alltoallw mpi_neighbor_alltoallw
#define MPIETE_FNAME_MPI_Ineighbor_alltoallw mpi_ineighbor_alltoallw

// The Fortran argument count: MPI's arguments and IERROR; MPI_Init has no argc/argv in Fortran.
#define MPIETE_COUNT1(...)                                                                         \
  MPIETE_COUNT1_(__VA_OPT__(__VA_ARGS__, ) 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, \
                 1)
#define MPIETE_COUNT1_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N,   \
                       ...)                                                                        \
  N
#define MPIETE_FARITY_MPI_Init ~, 1
#define MPIETE_FARITY_MPI_Init_thread ~, 3
#define MPIETE_SECOND(A, B, ...) B
#define MPIETE_SECOND_(...) MPIETE_SECOND(__VA_ARGS__)
#define MPIETE_FARITY(MpiName, Args) MPIETE_SECOND_(MPIETE_FARITY_##MpiName, MPIETE_COUNT1 Args, ~)

// Parameter and argument lists of N pointers.
#define MPIETE_FARG void
#define MPIETE_FPARAMS_1 MPIETE_FARG *a1
#define MPIETE_FPARAMS_2 MPIETE_FPARAMS_1, MPIETE_FARG *a2
#define MPIETE_FPARAMS_3 MPIETE_FPARAMS_2, MPIETE_FARG *a3
#define MPIETE_FPARAMS_4 MPIETE_FPARAMS_3, MPIETE_FARG *a4
#define MPIETE_FPARAMS_5 MPIETE_FPARAMS_4, MPIETE_FARG *a5
#define MPIETE_FPARAMS_6 MPIETE_FPARAMS_5, MPIETE_FARG *a6
#define MPIETE_FPARAMS_7 MPIETE_FPARAMS_6, MPIETE_FARG *a7
#define MPIETE_FPARAMS_8 MPIETE_FPARAMS_7, MPIETE_FARG *a8
#define MPIETE_FPARAMS_9 MPIETE_FPARAMS_8, MPIETE_FARG *a9
#define MPIETE_FPARAMS_10 MPIETE_FPARAMS_9, MPIETE_FARG *a10
#define MPIETE_FPARAMS_11 MPIETE_FPARAMS_10, MPIETE_FARG *a11
#define MPIETE_FPARAMS_12 MPIETE_FPARAMS_11, MPIETE_FARG *a12
#define MPIETE_FPARAMS_13 MPIETE_FPARAMS_12, MPIETE_FARG *a13
#define MPIETE_FPARAMS_14 MPIETE_FPARAMS_13, MPIETE_FARG *a14
#define MPIETE_FPARAMS_15 MPIETE_FPARAMS_14, MPIETE_FARG *a15
#define MPIETE_FPARAMS_16 MPIETE_FPARAMS_15, MPIETE_FARG *a16
#define MPIETE_FARGS_1 a1
#define MPIETE_FARGS_2 MPIETE_FARGS_1, a2
#define MPIETE_FARGS_3 MPIETE_FARGS_2, a3
#define MPIETE_FARGS_4 MPIETE_FARGS_3, a4
#define MPIETE_FARGS_5 MPIETE_FARGS_4, a5
#define MPIETE_FARGS_6 MPIETE_FARGS_5, a6
#define MPIETE_FARGS_7 MPIETE_FARGS_6, a7
#define MPIETE_FARGS_8 MPIETE_FARGS_7, a8
#define MPIETE_FARGS_9 MPIETE_FARGS_8, a9
#define MPIETE_FARGS_10 MPIETE_FARGS_9, a10
#define MPIETE_FARGS_11 MPIETE_FARGS_10, a11
#define MPIETE_FARGS_12 MPIETE_FARGS_11, a12
#define MPIETE_FARGS_13 MPIETE_FARGS_12, a13
#define MPIETE_FARGS_14 MPIETE_FARGS_13, a14
#define MPIETE_FARGS_15 MPIETE_FARGS_14, a15
#define MPIETE_FARGS_16 MPIETE_FARGS_15, a16
#define MPIETE_CAT_(A, B) A##B
#define MPIETE_CAT(A, B) MPIETE_CAT_(A, B)
#define MPIETE_STR_(X) #X
#define MPIETE_STR(X) MPIETE_STR_(X)

#define MPIETE_FORTRAN_INTERPOSE(FName, RuntimeName, MpiName, N)                                   \
  extern "C" void RuntimeName##_(const MPI_Fint *, const MPI_Fint *,                               \
                                 MPIETE_CAT(MPIETE_FPARAMS_, N));                                  \
  extern "C" void FName##_(MPIETE_CAT(MPIETE_FPARAMS_, N)) {                                       \
    static constexpr MPI_Fint Idx = ::mpiete::pseudoIndex(::mpiete::FortranOrdinal_##MpiName);     \
    ::mpiete::noteUninstrumentedFortran(::mpiete::FortranOrdinal_##MpiName, #MpiName);             \
    RuntimeName##_(&::mpiete::ReservedUnitFint, &Idx, MPIETE_CAT(MPIETE_FARGS_, N));               \
  }                                                                                                \
  extern "C" decltype(FName##_) FName##__ __attribute__((alias(#FName "_")));
// One level more, so that the name and the count are expanded before they are pasted.
#define MPIETE_FORTRAN_INTERPOSE_(FName, RuntimeName, MpiName, N)                                  \
  MPIETE_FORTRAN_INTERPOSE(FName, RuntimeName, MpiName, N)

#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args)                                   \
  static_assert(sizeof(MPIETE_STR(MPIETE_FNAME_##MpiName)) < sizeof("MPIETE_FNAME_" #MpiName),     \
                "routines.def has a routine without a Fortran name here: add its "                 \
                "MPIETE_FNAME_ line");                                                             \
  MPIETE_FORTRAN_INTERPOSE_(MPIETE_FNAME_##MpiName, RuntimeName, MpiName,                          \
                            MPIETE_FARITY(MpiName, Args))
#include "mpiete/routines.def"
