// Unit tests of the skeleton slice (frontend/lib/Slice.cpp): exactly which statements of small
// units it removes, and that it keeps what decides the MPI calls.
#include "TestFiles.h"

#include "mpiete/frontend/CFrontend.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/transforms/Skeleton.h"

#include <gtest/gtest.h>

#include <sstream>

namespace mpiete {
namespace {

class SliceTest : public testing::Test {
protected:
  /// The removed statements' texts, in source order.
  std::vector<std::string> removed(const std::string &Code) {
    std::string Path = Dir.write("unit.c", "#include <mpi.h>\n#include <stdio.h>\n" + Code);
    CFrontendOptions Opts;
    Opts.ResourceDir = MPIETE_CLANG_RESOURCE_DIR;
    Opts.Skeleton = true;
    std::ostringstream Err;
    DiagnosticSink Diags(Err);
    Model = UnitModel();
    EXPECT_TRUE(analyzeC(Path, {MPIETE_TEST_MPI_INCLUDES}, Opts, Model, Text, Diags)) << Err.str();
    std::vector<std::string> Out;
    for (const SkeletonRemoval &R : Model.SkeletonRemovals)
      Out.push_back(R.Text);
    return Out;
  }

  TempDir Dir;
  UnitModel Model;
  std::string Text;
};

using Texts = std::vector<std::string>;

TEST_F(SliceTest, ComputationThatOnlyFeedsOutputIsRemoved) {
  EXPECT_EQ(removed(R"(
int main(int argc, char **argv) {
  double local = 0, global = 0;
  int i, rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (i = 0; i < 1000; i++)
    local += i * 0.5;
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%g\n", global);
  MPI_Finalize();
  return 0;
}
)"),
            (Texts{"local = 0", "global = 0", "for (i = 0; i < 1000; i++)", "if (rank == 0)"}));
  EXPECT_FALSE(Model.SliceKeepsMessageData);
  // The skeleton's text: the removed statements are ';', every line keeps its number.
  std::string Error;
  std::optional<std::string> Skel = skeletonText(Model, Text, Error);
  ASSERT_TRUE(Skel) << Error;
  EXPECT_NE(Skel->find("  ;\n\n  mpiete_reduce("), std::string::npos) << *Skel;
  EXPECT_EQ(std::count(Skel->begin(), Skel->end(), '\n'),
            std::count(Text.begin(), Text.end(), '\n') + 3); // the prelude's three lines
}

// A convergence loop: the data reduced decides how often the loop runs, so everything that
// computes it stays; what only feeds the output goes.
TEST_F(SliceTest, ConvergenceLoopKeepsTheStatementsThatDecideIt) {
  EXPECT_EQ(removed(R"(
int main(int argc, char **argv) {
  double u[100], local, global = 1.0, junk = 0;
  int i, it = 0;
  MPI_Init(&argc, &argv);
  for (i = 0; i < 100; i++)
    u[i] = i;
  while (global > 1e-3) {
    local = 0;
    for (i = 0; i < 100; i++) {
      u[i] *= 0.5;
      local += u[i];
    }
    junk += local * 2;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    it++;
  }
  printf("%d %g\n", it, junk);
  MPI_Finalize();
  return 0;
}
)"),
            (Texts{"junk = 0", "it = 0", "junk += local * 2;", "it++;",
                   "printf(\"%d %g\\n\", it, junk);"}));
  EXPECT_TRUE(Model.SliceKeepsMessageData);
}

// A task farm's worker: the task received decides how many values it sends back.
TEST_F(SliceTest, TaskFarmWorkerKeepsTheWorkThatDecidesTheCount) {
  EXPECT_EQ(removed(R"(
static int work(long long size, double *out) {
  int n = (int)(size % 7) + 1, i;
  for (i = 0; i < n; i++)
    out[i] = i * 0.5;
  return n;
}
void worker(void) {
  long long msg[2];
  double out[8], checksum = 0;
  int n;
  MPI_Status st;
  for (;;) {
    MPI_Recv(msg, 2, MPI_LONG_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == 2)
      break;
    n = work(msg[1], out);
    checksum += out[0];
    MPI_Send(out, n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
  }
  printf("%g\n", checksum);
}
)"),
            (Texts{"checksum = 0", "checksum += out[0];", "printf(\"%g\\n\", checksum);"}));
  EXPECT_TRUE(Model.SliceKeepsMessageData);
}

// A count written through a pointer, and a call to a procedure of another unit (which may
// communicate, and may read anything it is given): both kept.
TEST_F(SliceTest, AliasesAndUnseenCallsAreKept) {
  EXPECT_EQ(removed(R"(
void elsewhere(double *a);
int main(int argc, char **argv) {
  int n = 1, *p = &n, unused = 3;
  double buf[8] = {0}, other[8];
  MPI_Init(&argc, &argv);
  *p = 4;
  unused = unused * 2;
  other[0] = 1;
  elsewhere(other);
  MPI_Send(buf, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)"),
            (Texts{"unused = 3", "unused = unused * 2;"}));
}

} // namespace
} // namespace mpiete
