// Unit tests of the C frontend's partition rules on small units written to a temporary file.
#include "TestFiles.h"

#include "mpiete/frontend/CFrontend.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

namespace mpiete {
namespace {

struct Analysis {
  bool Ok = false;
  UnitModel Model;
  std::string Text;
  std::string Diagnostics;

  /// The blocks of one kind, in order.
  std::vector<const Block *> of(BlockKind K) const {
    std::vector<const Block *> Out;
    for (const Block &B : Model.Blocks)
      if (B.Kind == K)
        Out.push_back(&B);
    return Out;
  }
  /// The text of a compute block, as the edits delimit it.
  std::string computeText(const Block &B) const {
    const ComputeEdits &E = Model.Computes.at(B.Compute);
    return Text.substr(E.Begin, E.End - E.Begin);
  }
};

/// The coarse partition most tests here check (compute blocks between MPI calls).
CFrontendOptions coarse() {
  CFrontendOptions O;
  O.Mode = Partition::Coarse;
  return O;
}

class CFrontendTest : public testing::Test {
protected:
  Analysis analyze(const std::string &Code, std::vector<std::string> Extra = {},
                   CFrontendOptions Opts = coarse()) {
    std::string Path = Dir.write("unit.c", "#include <mpi.h>\n" + Code);
    std::vector<std::string> Args = {MPIETE_TEST_MPI_INCLUDES};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Opts.ResourceDir = MPIETE_CLANG_RESOURCE_DIR;
    std::ostringstream Err;
    DiagnosticSink Diags(Err);
    Analysis A;
    A.Ok = analyzeC(Path, Args, Opts, A.Model, A.Text, Diags);
    A.Diagnostics = Err.str();
    return A;
  }

  TempDir Dir;
};

TEST_F(CFrontendTest, StraightLineRunIsOneBlockSplitByMpiCalls) {
  Analysis A = analyze(R"(
void f(double *a, int n) {
  int i;
  a[0] = 1;
  a[1] = a[0] * n;
  MPI_Barrier(MPI_COMM_WORLD);
  a[2] = 3;
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  ASSERT_EQ(A.Model.Blocks.size(), 3u);
  EXPECT_EQ(A.Model.Blocks[0].Kind, BlockKind::Compute);
  EXPECT_EQ(A.computeText(A.Model.Blocks[0]), "a[0] = 1;\n  a[1] = a[0] * n;");
  EXPECT_EQ(A.Model.Blocks[0].BeginLine, 5u);
  EXPECT_EQ(A.Model.Blocks[0].EndLine, 6u);
  EXPECT_FALSE(A.Model.Computes[0].Braces);
  EXPECT_EQ(A.Model.Blocks[1].Kind, BlockKind::Collective);
  EXPECT_EQ(A.Model.Blocks[2].Kind, BlockKind::Compute);
  EXPECT_EQ(A.computeText(A.Model.Blocks[2]), "a[2] = 3;");
  EXPECT_EQ(A.Model.Procedures, std::vector<std::string>{"f"});
}

TEST_F(CFrontendTest, ProceduresThatDoNotCommunicateAreNotPartitioned) {
  Analysis A = analyze(R"(
static int quiet(int x) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return x + r; }
void loud(int *b) { b[0] = quiet(b[0]); MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); }
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  EXPECT_EQ(A.Model.Procedures, std::vector<std::string>{"loud"});
  for (const Block &B : A.Model.Blocks)
    EXPECT_EQ(B.Procedure, "loud");
  ASSERT_EQ(A.of(BlockKind::Compute).size(), 1u);
  EXPECT_TRUE(A.of(BlockKind::Compute)[0]->OpaqueCalls.empty());
}

TEST_F(CFrontendTest, DeclarationsAloneAreNoBlock) {
  Analysis A = analyze(R"(
void f(int *b) {
  int x;
  double y = 2.0;
  static const int z[2] = {1, 2};
  MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  int w;
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  EXPECT_TRUE(A.of(BlockKind::Compute).empty());
  EXPECT_EQ(A.Model.Blocks.size(), 2u);
}

TEST_F(CFrontendTest, SitesOwnConsecutiveBlocks) {
  Analysis A = analyze(R"(
void f(int *b, int *c) {
  MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  MPI_Sendrecv(b, 1, MPI_INT, 0, 0, c, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Bcast(b, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  ASSERT_EQ(A.Model.Sites.size(), 5u);
  std::vector<uint32_t> First;
  for (const CallSite &S : A.Model.Sites)
    First.push_back(S.FirstBlock);
  EXPECT_EQ(First, (std::vector<uint32_t>{0, 2, 5, 7, 8}));
  ASSERT_EQ(A.Model.Blocks.size(), 9u);
  std::vector<std::string> Phases;
  for (const Block &B : A.Model.Blocks) {
    Phases.push_back(B.Phase);
    EXPECT_EQ(B.CallText.substr(0, B.Routine.size()), B.Routine);
    EXPECT_EQ(&A.Model.Sites.at(B.Site), &A.Model.Sites[B.Site]);
    EXPECT_EQ(A.Model.Sites[B.Site].Routine, B.Routine);
  }
  EXPECT_EQ(Phases, (std::vector<std::string>{"start", "wait", "send-start", "recv-start",
                                              "waitall", "start", "wait", "", ""}));
  EXPECT_EQ(A.Model.Blocks[8].Kind, BlockKind::Finalize);

  const CallSite &Send = A.Model.Sites[0];
  EXPECT_EQ(Send.RuntimeName, "mpiete_send");
  EXPECT_EQ(A.Text.substr(Send.Edits.CalleeBegin, Send.Edits.CalleeEnd - Send.Edits.CalleeBegin),
            "MPI_Send");
  EXPECT_EQ(A.Text[Send.Edits.ArgsBegin - 1], '(');
  EXPECT_TRUE(Send.Edits.HasArgs);
  EXPECT_FALSE(A.Model.Sites[4].Edits.HasArgs);
}

/// Seed 004's partition, where every loop and branch ends a compute block.
CFrontendOptions seedBlocks() {
  CFrontendOptions O;
  O.Mode = Partition::Seed;
  return O;
}

TEST_F(CFrontendTest, WholeLoopOnlyWhenBodyAndHeaderArePure) {
  Analysis A = analyze(R"(
void f(double *a, int n, int *b) {
  for (int i = 0; i < n; ++i)
    a[i] = i;
  for (int i = 0; i < n; ++i) {
    a[i] += 1;
    MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  while (MPI_Barrier(MPI_COMM_WORLD) != 0)
    n--;
  for (int i = 0; i < n; ++i) {
    if (a[i] < 0)
      break;
  }
}
)",
                       {}, seedBlocks());
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  ASSERT_EQ(A.Model.Loops.size(), 4u);
  std::vector<const Block *> Computes = A.of(BlockKind::Compute);
  ASSERT_EQ(Computes.size(), 3u);
  // The first loop is one block timed whole.
  EXPECT_TRUE(Computes[0]->WholeLoop);
  EXPECT_TRUE(A.Model.Computes[Computes[0]->Compute].WholeLoop);
  EXPECT_EQ(Computes[0]->Loops, std::vector<unsigned>{0});
  const ComputeEdits &E = A.Model.Computes[Computes[0]->Compute];
  EXPECT_EQ(A.Text.substr(E.LoopBegin, E.LoopEnd - E.LoopBegin),
            "for (int i = 0; i < n; ++i)\n    a[i] = i;");
  EXPECT_EQ(A.Text.substr(E.BodyBegin, E.BodyEnd - E.BodyBegin), "a[i] = i;");
  EXPECT_FALSE(E.BodyIsCompound);
  // A loop that communicates has a block per trip in its body.
  EXPECT_FALSE(Computes[1]->WholeLoop);
  EXPECT_EQ(Computes[1]->Loops, std::vector<unsigned>{1});
  EXPECT_EQ(A.computeText(*Computes[1]), "a[i] += 1;");
  // MPI in the condition: the body is a block of its own, braced.
  EXPECT_FALSE(Computes[2]->WholeLoop);
  EXPECT_EQ(Computes[2]->Loops, std::vector<unsigned>{2});
  EXPECT_TRUE(A.Model.Computes[Computes[2]->Compute].Braces);
  // A body that leaves the loop early has no compute block at all.
  for (const Block &B : A.Model.Blocks)
    for (unsigned L : B.Loops)
      EXPECT_NE(L, 3u);
}

TEST_F(CFrontendTest, NestedLoopsRecordParents) {
  Analysis A = analyze(R"(
void f(double *a, int n) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      a[j] += i;
    MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}
)",
                       {}, seedBlocks());
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  ASSERT_EQ(A.Model.Loops.size(), 2u);
  EXPECT_EQ(A.Model.Loops[0].Parent, -1);
  EXPECT_EQ(A.Model.Loops[1].Parent, 0);
  EXPECT_EQ(A.Model.Loops[1].Line, 5u);
  EXPECT_EQ(A.Model.Loops[1].Kind, "for");
  ASSERT_EQ(A.Model.Blocks.size(), 2u);
  EXPECT_TRUE(A.Model.Blocks[0].WholeLoop);
  EXPECT_EQ(A.Model.Blocks[0].Loops, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(A.Model.Blocks[1].Loops, std::vector<unsigned>{0});
}

TEST_F(CFrontendTest, PureLoopNestsAndBranchesAreComputation) {
  Analysis A = analyze(R"(
void f(double *a, int n, int *b) {
  a[0] = 1;
  for (int i = 0; i < n; ++i) {
    if (a[i] < 0)
      a[i] = 0;
    for (int j = 0; j < n; ++j)
      a[j] += i;
  }
  switch (n) { case 1: a[1] = 2; break; default: break; }
  MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    if (a[i] < 0)
      break;
  }
  for (int i = 0; i < n; ++i) {
    if (a[i] > 9)
      goto out;
  }
out:
  a[2] = 3;
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  std::vector<const Block *> Computes = A.of(BlockKind::Compute);
  ASSERT_EQ(Computes.size(), 3u);
  // Statement, loop nest with a branch, switch: one block, timed per execution.
  EXPECT_EQ(Computes[0]->BeginLine, 4u);
  EXPECT_EQ(Computes[0]->EndLine, 11u);
  EXPECT_FALSE(Computes[0]->WholeLoop);
  // A loop whose break leaves only itself is computation as a whole.
  EXPECT_EQ(Computes[1]->BeginLine, 13u);
  EXPECT_EQ(Computes[1]->EndLine, 16u);
  // A goto out of a loop is a jump: that loop is no block, the labelled statement after is.
  EXPECT_EQ(A.computeText(*Computes[2]), "a[2] = 3;");
  // No loop absorbed into a block is listed as a loop of the partition.
  EXPECT_EQ(A.Model.Loops.size(), 1u);
}

TEST_F(CFrontendTest, CommunicatingCalleeSplitsTheCallersBlocks) {
  Analysis A = analyze(R"(
static void deep(int *b) { MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); }
static void middle(int *b) { deep(b); }
void top(int *b, int n) {
  for (int i = 0; i < n; ++i) {
    b[i] = i;
    middle(b);
  }
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  EXPECT_EQ(A.Model.Procedures, (std::vector<std::string>{"deep", "middle", "top"}));
  std::vector<const Block *> Computes = A.of(BlockKind::Compute);
  ASSERT_EQ(Computes.size(), 1u);
  EXPECT_FALSE(Computes[0]->WholeLoop);
  EXPECT_EQ(A.computeText(*Computes[0]), "b[i] = i;");
}

TEST_F(CFrontendTest, SingleStatementSlotsAreBraced) {
  Analysis A = analyze(R"(
void f(int *b, int c) {
  if (c)
    b[0] = 1;
  else
    MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  if (c) {
    b[1] = 2;
  }
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  std::vector<const Block *> Computes = A.of(BlockKind::Compute);
  ASSERT_EQ(Computes.size(), 2u);
  EXPECT_TRUE(A.Model.Computes[Computes[0]->Compute].Braces);
  EXPECT_EQ(A.computeText(*Computes[0]), "b[0] = 1;");
  EXPECT_FALSE(A.Model.Computes[Computes[1]->Compute].Braces);
}

TEST_F(CFrontendTest, OpaqueCalleesAreListed) {
  Analysis A = analyze(R"(
double solve(double);
void f(double *a, double (*g)(double)) {
  a[0] = solve(a[1]) + g(a[2]);
  MPI_Barrier(MPI_COMM_WORLD);
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  ASSERT_FALSE(A.of(BlockKind::Compute).empty());
  EXPECT_EQ(A.of(BlockKind::Compute)[0]->OpaqueCalls,
            (std::vector<std::string>{"solve", "(indirect call)"}));
}

TEST_F(CFrontendTest, UnitIdComesFromPathAndDefines) {
  CFrontendOptions Opts;
  Opts.UnitPath = "src/unit.c";
  Analysis A = analyze("void f(void) { MPI_Barrier(MPI_COMM_WORLD); }\n", {"-DA", "-O2"}, Opts);
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  EXPECT_EQ(A.Model.Source, "src/unit.c");
  EXPECT_EQ(A.Model.Defines, std::vector<std::string>{"-DA"});
  EXPECT_EQ(A.Model.UnitId, computeUnitId("src/unit.c", {"-DA"}));
  EXPECT_EQ(A.Model.Blocks[0].File, "src/unit.c");
  EXPECT_EQ(A.Model.Language, "c");
}

TEST_F(CFrontendTest, ContentHashCoversUserHeaders) {
  Dir.write("inc/sizes.h", "#define N 4\n");
  std::string Code = "#include \"inc/sizes.h\"\nvoid f(int *b) { MPI_Send(b, N, MPI_INT, 0, 0, "
                     "MPI_COMM_WORLD); }\n";
  Analysis First = analyze(Code);
  Analysis Again = analyze(Code);
  ASSERT_TRUE(First.Ok) << First.Diagnostics;
  EXPECT_EQ(First.Model.ContentHash, Again.Model.ContentHash);
  Dir.write("inc/sizes.h", "#define N 8\n");
  Analysis Changed = analyze(Code);
  ASSERT_TRUE(Changed.Ok) << Changed.Diagnostics;
  EXPECT_EQ(First.Text, Changed.Text);
  EXPECT_NE(First.Model.ContentHash, Changed.Model.ContentHash);
  EXPECT_EQ(First.Model.UnitId, Changed.Model.UnitId);
}

TEST_F(CFrontendTest, MacroBodyCallIsAnErrorWithLocation) {
  Analysis A = analyze(R"(
#define SEND(b) MPI_Send(b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD)
void f(int *b) {
  b[0] = 1;
    SEND(b);
}
)");
  EXPECT_FALSE(A.Ok);
  EXPECT_NE(A.Diagnostics.find("unit.c:6:5: error: call to 'MPI_Send' is hidden inside the body "
                               "of macro 'SEND'"),
            std::string::npos)
      << A.Diagnostics;
}

TEST_F(CFrontendTest, UnsupportedAndPassThrough) {
  std::string Code = "void f(MPI_Win w) { MPI_Win_fence(0, w); MPI_Barrier(MPI_COMM_WORLD); }\n";
  Analysis Rejected = analyze(Code);
  EXPECT_FALSE(Rejected.Ok);
  EXPECT_NE(Rejected.Diagnostics.find("unit.c:2:21: error: 'MPI_Win_fence' (one-sided "
                                      "communication) is not supported"),
            std::string::npos)
      << Rejected.Diagnostics;

  CFrontendOptions Opts;
  Opts.PassThrough = {"MPI_Win_fence"};
  Analysis Passed = analyze(Code, {}, Opts);
  EXPECT_TRUE(Passed.Ok) << Passed.Diagnostics;
  EXPECT_NE(Passed.Diagnostics.find("unit.c:2:21: warning: 'MPI_Win_fence'"), std::string::npos)
      << Passed.Diagnostics;
  EXPECT_EQ(Passed.Model.PassedThrough, std::vector<std::string>{"MPI_Win_fence"});
  ASSERT_EQ(Passed.Model.Sites.size(), 1u);
  EXPECT_EQ(Passed.Model.Sites[0].Routine, "MPI_Barrier");
}

TEST_F(CFrontendTest, ParseErrorFails) {
  Analysis A = analyze("void f(void) { this is not C }\n");
  EXPECT_FALSE(A.Ok);
  EXPECT_NE(A.Diagnostics.find("[mpiete-parse]"), std::string::npos) << A.Diagnostics;
}

TEST_F(CFrontendTest, BlockEdgesWithoutCodeStayOutsideExceptTrailingDeclarations) {
  // The partition policy both frontends share: a block ends where work ends (an empty
  // statement after it stays outside), but its end hook never comes ahead of a declaration.
  Analysis A = analyze(R"(
void f(double *a, int n) {
  int i;
  a[0] = n;
  ;
  MPI_Barrier(MPI_COMM_WORLD);
  a[1] = n;
  int k;
  MPI_Barrier(MPI_COMM_WORLD);
}
)");
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  auto C = A.of(BlockKind::Compute);
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(A.computeText(*C[0]), "a[0] = n;");
  EXPECT_EQ(A.computeText(*C[1]), "a[1] = n;\n  int k;");
}

TEST_F(CFrontendTest, SegmentsGiveLoopsWithMpiASiteAndComputationNothing) {
  Analysis A = analyze(R"(
static void halo(int peer) { MPI_Barrier(MPI_COMM_WORLD); (void)peer; }
void step(double *a, int n, int steps) {
  for (int i = 0; i < n; ++i)
    a[i] *= 2;
  for (int t = 0; t < steps; ++t) {
    if (t == 3)
      break;
    halo(t);
  }
}
)",
                       {}, CFrontendOptions{});
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  EXPECT_TRUE(A.of(BlockKind::Compute).empty());
  std::vector<const Block *> Loops = A.of(BlockKind::Loop);
  ASSERT_EQ(Loops.size(), 1u);
  EXPECT_EQ(Loops[0]->Procedure, "step");
  EXPECT_EQ(Loops[0]->BeginLine, 7u);
  EXPECT_EQ(Loops[0]->EndLine, 11u);
  EXPECT_TRUE(Loops[0]->Loops.empty());
  // Only the loop with MPI calls is recorded.
  ASSERT_EQ(A.Model.Loops.size(), 1u);
  EXPECT_EQ(A.Model.Loops[0].Line, 7u);
}

/// The sampled loops' lines (ComputeEdits::SampledLoop), in block order.
std::vector<unsigned> sampledLines(const Analysis &A) {
  std::vector<unsigned> Lines;
  for (const Block &B : A.Model.Blocks)
    if (B.Kind == BlockKind::Loop && A.Model.Computes.at(B.Compute).SampledLoop)
      Lines.push_back(B.BeginLine);
  return Lines;
}

TEST_F(CFrontendTest, SampledLoopsAreOutermostCountedPureLoopNests) {
  Analysis A = analyze(R"(
struct S { int n; };
static int lim = 3;
void kern(double *a, int n, int *np, struct S s, volatile int vn) {
  static int sn = 4;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k)
        a[k] += j;
    }
  }
  for (int i = 0; i < sn; ++i) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < s.n; ++i) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < *np; ++i) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < vn; ++i) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < lim + 0; ++i) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < abs(n); ++i) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < n; ++i) { for (int j = 0; j < n; ++j) a[j] = i; again: a[0] = 1; }
  for (int i = 0; i < n;) { for (int j = 0; j < n; ++j) a[j] = i; }
  for (int i = 0; i < n; ++i) { for (int j = 0; j < n; ++j) exit(1); }
  int d = 0;
  do { for (int j = 0; j < n; ++j) a[j] = d; } while (++d < n);
  for (int i = 0; i < n; i = i + 2) { int t = i; while (t-- > 0) a[t] = i; }
}
void tail(double *a, int n) {
  for (int i = 0; i < n; ++i) { a[i] = n; }
}
void comm(double *a, int n) {
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) { for (int j = 0; j < n; ++j) { (void)&n; a[j] = i; } }
}
)",
                       {"-include", "stdlib.h"}, CFrontendOptions{});
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  // The outermost of the first nest only, the loop bounded by a field of the struct parameter its
  // body cannot change (it stores doubles only; tests/lit/sampled-loops-fields.c has the
  // rule's refusals), and the last loop (its body holds a while loop); the others read a
  // static, through a pointer, a volatile, a global, call, hold a label, have no increment,
  // may exit; the do loop is no `for`.
  EXPECT_EQ(sampledLines(A), (std::vector<unsigned>{7, 14, 24}));
  for (const Block &B : A.Model.Blocks) {
    if (B.Kind != BlockKind::Loop)
      continue;
    const ComputeEdits &E = A.Model.Computes.at(B.Compute);
    EXPECT_FALSE(E.OpaqueLoop);
    EXPECT_TRUE(E.BodyIsCompound);
    EXPECT_EQ(A.Text[E.BodyBegin - 1], '{');
    EXPECT_EQ(A.Text[E.BodyEnd], '}');
    EXPECT_EQ(A.Text.substr(E.LoopBegin, 3), "for");
    EXPECT_EQ(A.Text[E.LoopEnd - 1], '}');
  }
  // A procedure is listed when it holds blocks: kern for its sampled loops, comm always.
  EXPECT_EQ(A.Model.Procedures, (std::vector<std::string>{"kern", "comm"}));
  // Sampling is for segments only.
  Analysis Coarse = analyze("void f(double *a, int n) { for (int i = 0; i < n; ++i) { for (int "
                            "j = 0; j < n; ++j) a[j] = i; } MPI_Barrier(MPI_COMM_WORLD); }\n");
  ASSERT_TRUE(Coarse.Ok) << Coarse.Diagnostics;
  EXPECT_TRUE(sampledLines(Coarse).empty());
}

TEST_F(CFrontendTest, OpenMpLoopsAreNotSampled) {
  Analysis A = analyze(R"(
void f(double *a, int n) {
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      a[j] += i;
  }
#pragma omp parallel
  {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j)
        a[j] += i;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
)",
                       {"-fopenmp"}, CFrontendOptions{});
  ASSERT_TRUE(A.Ok) << A.Diagnostics;
  EXPECT_TRUE(sampledLines(A).empty());
  // Without -fopenmp the first loop still follows its pragma; the region's loop runs serially.
  Analysis Serial = analyze(A.Text.substr(A.Text.find('\n') + 1), {}, CFrontendOptions{});
  ASSERT_TRUE(Serial.Ok) << Serial.Diagnostics;
  EXPECT_EQ(sampledLines(Serial), std::vector<unsigned>{11});
}

} // namespace
} // namespace mpiete
