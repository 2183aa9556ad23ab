// Unit tests of the routine tables: routines.def is complete, and rejections give reasons.
#include "mpiete/frontend/MpiRoutines.h"
#include "mpiete/instrument.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace mpiete {
namespace {

struct DefRoutine {
  const char *Name;
  const char *RuntimeName;
  const char *Role;
};

constexpr DefRoutine Def[] = {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args) {#MpiName, #RuntimeName, #Role},
#include "mpiete/routines.def"
};

std::string lower(std::string S) {
  for (char &C : S)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return S;
}

TEST(MpiRoutinesTest, EveryRoutineOfRoutinesDefIsRewritten) {
  EXPECT_GE(std::size(Def), 48u);
  for (const DefRoutine &D : Def) {
    SCOPED_TRACE(D.Name);
    const MpiRoutineInfo *Info = findRewrittenRoutine(D.Name);
    ASSERT_NE(Info, nullptr);
    EXPECT_EQ(Info->Name, D.Name);
    EXPECT_EQ(Info->RuntimeName, D.RuntimeName);
    EXPECT_EQ(std::string(toString(Info->Role)), lower(D.Role));
    EXPECT_FALSE(isLocalRoutine(D.Name)) << "a routine is rewritten or local, not both";
  }
}

template <class F> struct Arity;
template <class R, class... A> struct Arity<R(A...)> {
  static constexpr unsigned Value = sizeof...(A);
};

// The argument counts the Fortran rewriting checks a call against (and from which it tells an
// omitted mpi_f08 ierror): those of the runtime's C entry points, less the site.
TEST(MpiRoutinesTest, ArgumentCountsAreTheRuntimeEntryPoints) {
  struct Count {
    const char *Name;
    unsigned Args;
  };
  const Count Counts[] = {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args)                                   \
  {#MpiName, Arity<decltype(RuntimeName)>::Value - 1},
#include "mpiete/routines.def"
  };
  for (const Count &C : Counts) {
    SCOPED_TRACE(C.Name);
    const MpiRoutineInfo *Info = findRewrittenRoutine(C.Name);
    ASSERT_NE(Info, nullptr);
    EXPECT_EQ(Info->CArgs, C.Args);
  }
  EXPECT_EQ(findRewrittenRoutine("MPI_Isend")->CArgs, 7u);
  EXPECT_EQ(findRewrittenRoutine("MPI_Ialltoallv")->CArgs, 10u);
  EXPECT_EQ(findRewrittenRoutine("MPI_Ibarrier")->Role, MpiRole::ICollective);
  EXPECT_EQ(fortranArgsBeforeError(*findRewrittenRoutine("MPI_Isend")), 7u);
  EXPECT_EQ(fortranArgsBeforeError(*findRewrittenRoutine("MPI_Init")), 0u);
  EXPECT_EQ(fortranArgsBeforeError(*findRewrittenRoutine("MPI_Init_thread")), 2u);
  EXPECT_EQ(fortranArgsBeforeError(*findRewrittenRoutine("MPI_Finalize")), 0u);
  EXPECT_EQ(fortranArgsBeforeError(*findRewrittenRoutine("MPI_Waitall")), 3u);
}

TEST(MpiRoutinesTest, OthersAreNotRewritten) {
  EXPECT_EQ(findRewrittenRoutine("MPI_Comm_rank"), nullptr);
  EXPECT_EQ(findRewrittenRoutine("MPI_Comm_idup"), nullptr);
  EXPECT_EQ(findRewrittenRoutine("MPI_Allreduce_init"), nullptr);
  EXPECT_EQ(findRewrittenRoutine("PMPI_Send"), nullptr);
  EXPECT_EQ(findRewrittenRoutine("MPI_send"), nullptr);
  EXPECT_EQ(findRewrittenRoutine(""), nullptr);
}

TEST(MpiRoutinesTest, BlocksPerRole) {
  EXPECT_EQ(blocksForRole(findRewrittenRoutine("MPI_Send")->Role), 2u);
  EXPECT_EQ(blocksForRole(findRewrittenRoutine("MPI_Bsend")->Role), 2u);
  EXPECT_EQ(blocksForRole(findRewrittenRoutine("MPI_Recv")->Role), 2u);
  EXPECT_EQ(blocksForRole(findRewrittenRoutine("MPI_Sendrecv")->Role), 3u);
  EXPECT_EQ(blocksForRole(findRewrittenRoutine("MPI_Sendrecv_replace")->Role), 3u);
  for (const char *One :
       {"MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Testsome", "MPI_Probe", "MPI_Barrier",
        "MPI_Exscan", "MPI_Comm_split", "MPI_Init", "MPI_Finalize", "MPI_Neighbor_alltoallv",
        "MPI_Ineighbor_allgather", "MPI_Alltoallw", "MPI_Ineighbor_alltoallw"})
    EXPECT_EQ(blocksForRole(findRewrittenRoutine(One)->Role), 1u) << One;
}

TEST(MpiRoutinesTest, LocalRoutines) {
  for (const char *Local : {"MPI_Comm_rank", "MPI_Comm_size", "MPI_Wtime", "MPI_Type_commit",
                            "MPI_Get_count", "MPI_Abort", "MPI_Cart_coords", "MPI_Initialized",
                            "MPI_Pcontrol", "MPI_Type_create_f90_real", "MPI_Type_match_size",
                            "MPI_Sizeof", "MPI_T_pvar_read", "MPI_Type_get_true_extent_x"})
    EXPECT_TRUE(isLocalRoutine(Local)) << Local;
  for (const char *Not : {"MPI_Send", "MPI_Win_fence", "MPI_File_open", "MPI_Ibcast", "MPI_Put",
                          "MPI_Test", "MPI_Testall", "MPI_Comm_idup"})
    EXPECT_FALSE(isLocalRoutine(Not)) << Not;
}

// MPI-IO's blocking routines run as written (a warning); the non-blocking ones do not.
TEST(MpiRoutinesTest, MpiIoRoutinesRun) {
  for (const char *Run :
       {"MPI_File_open", "MPI_File_write_all", "MPI_File_read_at", "MPI_File_close",
        "MPI_File_set_view", "MPI_File_write_ordered_end", "MPI_File_get_size"})
    EXPECT_TRUE(isRunMpiIoRoutine(Run)) << Run;
  for (const char *Not : {"MPI_File_iwrite", "MPI_File_iread_at_all", "MPI_File_iwrite_shared",
                          "MPI_Win_fence", "MPI_Register_datarep", "MPI_Send"})
    EXPECT_FALSE(isRunMpiIoRoutine(Not)) << Not;
}

TEST(MpiRoutinesTest, UnhandledReasons) {
  EXPECT_EQ(unhandledReason("MPI_Dist_graph_create_adjacent"), "distributed graph topology");
  EXPECT_EQ(unhandledReason("MPI_Comm_idup"), "routine not supported");
  EXPECT_EQ(unhandledReason("MPI_Win_put"), "one-sided communication");
  EXPECT_EQ(unhandledReason("MPI_Win_fence"), "one-sided communication");
  EXPECT_EQ(unhandledReason("MPI_Put"), "one-sided communication");
  EXPECT_EQ(unhandledReason("MPI_Get"), "one-sided communication");
  EXPECT_EQ(unhandledReason("MPI_Accumulate"), "one-sided communication");
  EXPECT_EQ(unhandledReason("MPI_File_open"), "MPI-IO");
  EXPECT_EQ(unhandledReason("MPI_File_write_all"), "MPI-IO");
  EXPECT_EQ(unhandledReason("MPI_Allreduce_init"), "persistent collective");
  EXPECT_EQ(unhandledReason("MPI_Bcast_init"), "persistent collective");
  EXPECT_EQ(unhandledReason("MPI_Mprobe"), "matched probe");
  EXPECT_EQ(unhandledReason("MPI_Comm_spawn"), "dynamic process management");
  // Non-blocking point-to-point with an I prefix is rewritten, so an unknown I-routine is not
  // called a collective.
  EXPECT_EQ(unhandledReason("MPI_Ifoo"), "routine not supported");
  EXPECT_EQ(unhandledReason("MPI_Something_new"), "routine not supported");
}

} // namespace
} // namespace mpiete
