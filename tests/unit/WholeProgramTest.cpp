// The link step's cross-unit solve (tools/WholeProgram.h): may-communicate over a hand-built
// program of three units, and what the slice of a unit makes of the program's summary.
#include "TestFiles.h"

#include "mpiete/frontend/CFrontend.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/WholeProgram.h"

#include <gtest/gtest.h>

#include <sstream>

namespace mpiete {
namespace {

ProcedureSummary proc(const std::string &Name, bool Own, std::set<std::string> Calls = {}) {
  ProcedureSummary P;
  P.Name = Name;
  P.Communicates = Own;
  P.Calls = std::move(Calls);
  return P;
}

LinkSummary unit(const std::string &Name, std::vector<ProcedureSummary> Procs,
                 std::set<std::string> Steered = {}) {
  LinkSummary U;
  U.Unit = Name;
  U.Procedures = std::move(Procs);
  U.Steered = std::move(Steered);
  return U;
}

bool communicates(const LinkSummary &Program, const std::string &Name) {
  const ProcedureSummary *P = Program.find(Name);
  EXPECT_NE(P, nullptr) << Name;
  return P && P->Communicates;
}

// main.c calls solve (b.c) and report (c.c); solve calls halo (c.c, MPI) and axpy (b.c's own,
// pure: not exported); report calls fmt (b.c, pure) and log_it (no unit defines it: a
// library's, unknown); norm calls nothing; ping and pong call each other across units and
// one of them communicates.
TEST(WholeProgramTest, MayCommunicateAcrossThreeUnits) {
  LinkSummary A = unit("main.c", {proc("helper", false, {"norm"})}, {PointToPointKind});
  LinkSummary B = unit("b.c",
                       {proc("solve", false, {"halo"}), proc("fmt", false), proc("norm", false),
                        proc("ping", false, {"pong"})},
                       {"MPI_Allreduce"});
  LinkSummary C = unit("c.c", {proc("halo", true), proc("report", false, {"fmt", "log_it"}),
                               proc("pong", true, {"ping"})});
  LinkSummary P = solveProgram({A, B, C});
  EXPECT_EQ(P.SummaryKind, LinkSummary::Kind::Program);
  EXPECT_TRUE(communicates(P, "halo"));    // MPI itself
  EXPECT_TRUE(communicates(P, "solve"));   // through another unit's procedure
  EXPECT_TRUE(communicates(P, "report"));  // calls an unknown external
  EXPECT_TRUE(communicates(P, "ping"));    // a cycle through a communicating procedure
  EXPECT_FALSE(communicates(P, "fmt"));    // pure
  EXPECT_FALSE(communicates(P, "norm"));   // pure
  EXPECT_FALSE(communicates(P, "helper")); // calls only pure procedures of other units
  EXPECT_EQ(P.Steered, (std::set<std::string>{PointToPointKind, "MPI_Allreduce"}));
  EXPECT_EQ(P.find("report")->SendKinds, (std::set<std::string>{AnyKind}));
  EXPECT_TRUE(P.DemandedGlobals.empty());
  for (const ProcedureSummary &S : P.Procedures)
    EXPECT_TRUE(S.Calls.empty()) << S.Name;
}

TEST(WholeProgramTest, ANameTwoUnitsDefineIsUnknown) {
  LinkSummary A = unit("a.c", {proc("f", false), proc("g", false, {"f"})});
  LinkSummary B = unit("b.c", {proc("f", false)});
  LinkSummary P = solveProgram({A, B});
  EXPECT_EQ(P.find("f"), nullptr);
  EXPECT_TRUE(communicates(P, "g"));
}

class LinkSliceTest : public testing::Test {
protected:
  std::vector<std::string> removed(const std::string &Code, const LinkSummary *Program,
                                   LinkSummary *Summary = nullptr) {
    std::string Path = Dir.write("unit.c", "#include <mpi.h>\n" + Code);
    CFrontendOptions Opts;
    Opts.ResourceDir = MPIETE_CLANG_RESOURCE_DIR;
    Opts.Skeleton = true;
    Opts.Program = Program;
    Opts.Summary = Summary;
    std::ostringstream Err;
    DiagnosticSink Diags(Err);
    UnitModel Model;
    std::string Text;
    EXPECT_TRUE(analyzeC(Path, {MPIETE_TEST_MPI_INCLUDES}, Opts, Model, Text, Diags)) << Err.str();
    std::vector<std::string> Out;
    for (const SkeletonRemoval &R : Model.SkeletonRemovals)
      Out.push_back(R.Text);
    return Out;
  }
  TempDir Dir;
};

const char *const Driver = R"(
void compute(double *x, int n);
void exchange(double *x, int n);
int steps(int n);
int main(int argc, char **argv) {
  double x[8] = {0};
  int i, n;
  MPI_Init(&argc, &argv);
  n = steps(8);
  for (i = 0; i < n; i++) {
    compute(x, 8);
    exchange(x, 8);
  }
  MPI_Finalize();
  return 0;
}
)";

TEST_F(LinkSliceTest, AProcedureOfAnotherUnitThatCannotCommunicateIsAnOrdinaryStatement) {
  using Texts = std::vector<std::string>;
  // Per unit: every call of another unit's procedure may communicate.
  EXPECT_EQ(removed(Driver, nullptr), Texts{});
  LinkSummary Program;
  Program.SummaryKind = LinkSummary::Kind::Program;
  ProcedureSummary Compute = proc("compute", false), Exchange = proc("exchange", true),
                   Steps = proc("steps", false);
  Compute.WritesParams = {0};
  Compute.ReadsParams = {0};
  // exchange sends and receives x: an MPI call defines its buffers, reads none of them.
  Exchange.WritesParams = {0};
  Exchange.SendKinds = {PointToPointKind};
  Program.Procedures = {Compute, Exchange, Steps};
  // exchange's message data steers nothing: compute goes; steps decides the loop's count and
  // stays. (The slice is flow-insensitive: had steps read x, compute, which writes x, would
  // stay.)
  EXPECT_EQ(removed(Driver, &Program), Texts{"compute(x, 8);"});
  // Some unit's received point-to-point data steers: exchange's sends must carry the real
  // data, so compute stays.
  Program.Steered = {PointToPointKind};
  EXPECT_EQ(removed(Driver, &Program), Texts{});
  // A collective's steering does not need exchange's point-to-point data.
  Program.Steered = {"MPI_Allreduce"};
  EXPECT_EQ(removed(Driver, &Program), Texts{"compute(x, 8);"});
}

TEST_F(LinkSliceTest, TheUnitSummaryNamesParametersAndGlobals) {
  LinkSummary S;
  removed(R"(
int counter;
static double scratch[4];
void pure(const double *in, double *out) { out[0] = in[0] * 2; }
void bump(void) { counter++; scratch[0] = counter; }
void send_it(double *b, int n) { MPI_Send(b, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); }
void both(double *b) { bump(); other(b); }
)",
          nullptr, &S);
  EXPECT_EQ(S.ExternalCalls, (std::set<std::string>{"other"}));
  const ProcedureSummary *Pure = S.find("pure"), *Bump = S.find("bump"), *Send = S.find("send_it"),
                         *Both = S.find("both");
  ASSERT_TRUE(Pure && Bump && Send && Both);
  EXPECT_FALSE(Pure->Communicates);
  EXPECT_EQ(Pure->WritesParams, (std::set<unsigned>{1}));
  EXPECT_EQ(Pure->ReadsParams, (std::set<unsigned>{0}));
  EXPECT_FALSE(Pure->HiddenState);
  EXPECT_EQ(Bump->WritesGlobals, (std::set<std::string>{"counter", S.Unit + "#scratch"}));
  EXPECT_EQ(Bump->ReadsGlobals, (std::set<std::string>{"counter"}));
  EXPECT_TRUE(Send->Communicates);
  EXPECT_EQ(Send->SendKinds, (std::set<std::string>{PointToPointKind}));
  EXPECT_FALSE(Both->Communicates); // by itself: its call of another unit's is in Calls
  EXPECT_EQ(Both->Calls, (std::set<std::string>{"other"}));
}

// A struct's fields apart (C): a procedure writes some fields of what its parameter points to,
// its skeleton reads others; "F*" is what the pointers in field F reach.
const char *const Ring = R"(
struct grid { int peer, n; double *data; double in, out; };
void ring(struct grid *g) {
  int k;
  for (k = 0; k < g->n; k++)
    g->data[k] *= 2;
  MPI_Sendrecv(&g->out, 1, MPI_DOUBLE, g->peer, 0, &g->in, 1, MPI_DOUBLE, g->peer, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
)";

TEST_F(LinkSliceTest, TheUnitSummaryNamesFields) {
  using Fields = FieldsByParam;
  LinkSummary S;
  removed(Ring, nullptr, &S);
  const ProcedureSummary *P = S.find("ring");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->WritesFields, (Fields{{0, {"data*", "in", "out"}}}));
  // Per unit, what it leaves in *g may be needed by a caller: its loop stays, and reads; the
  // received value among it, the point-to-point data it sends is needed too.
  EXPECT_EQ(P->ReadsFields, (Fields{{0, {"data", "data*", "in", "n", "out", "peer"}}}));
  // With the whole program, no caller reads what it leaves in *g: the loop goes, and the
  // skeleton reads only the peer.
  LinkSummary Program;
  Program.SummaryKind = LinkSummary::Kind::Program;
  ProcedureSummary Known = proc("ring", true);
  Known.CallersKnown = true;
  Program.Procedures = {Known};
  EXPECT_EQ(removed(Ring, &Program, &S), (std::vector<std::string>{"for (k = 0; k < g->n; k++)"}));
  P = S.find("ring");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->ReadsParams, (std::set<unsigned>{0}));
  EXPECT_EQ(P->ReadsFields, (Fields{{0, {"peer"}}}));
  // A caller that reads the received value demands it: the loop still goes.
  Program.Procedures[0].DemandedParams = {0};
  Program.Procedures[0].DemandedFields = {{0, {"in"}}};
  EXPECT_EQ(removed(Ring, &Program, &S), (std::vector<std::string>{"for (k = 0; k < g->n; k++)"}));
  // Demanded whole: it stays.
  Program.Procedures[0].DemandedFields.clear();
  EXPECT_EQ(removed(Ring, &Program, &S), (std::vector<std::string>{}));
}

TEST_F(LinkSliceTest, ACallWritesOnlyTheFieldsItsSummaryNames) {
  const char *const Code = R"(
struct grid { int peer, n; double *data; double in, out; };
void ring(struct grid *g);
void step(struct grid *g);
int main(int argc, char **argv) {
  struct grid g;
  int i;
  MPI_Init(&argc, &argv);
  g.peer = 1;
  g.n = 8;
  for (i = 0; i < 10; i++) {
    step(&g);
    ring(&g);
  }
  if (g.in > 0)
    MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";
  LinkSummary Program;
  Program.SummaryKind = LinkSummary::Kind::Program;
  // ring receives g->in (which steers main's barrier: point-to-point data is needed, so what
  // ring sends, among what it writes, is read); step computes the data arrays.
  ProcedureSummary Ring = proc("ring", true), Step = proc("step", false);
  Ring.WritesParams = Ring.ReadsParams = {0};
  Ring.SendKinds = {PointToPointKind};
  Step.WritesParams = Step.ReadsParams = {0};
  Program.Procedures = {Ring, Step};
  Program.Steered = {PointToPointKind};
  // Whole parameters: ring may send anything in *g, step's arrays included.
  EXPECT_EQ(removed(Code, &Program), (std::vector<std::string>{}));
  // By field: ring writes in and out, reads peer; step writes what data points to.
  Program.Procedures[0].WritesFields = {{0, {"in", "out"}}};
  Program.Procedures[0].ReadsFields = {{0, {"peer"}}};
  Program.Procedures[1].WritesFields = {{0, {"data*"}}};
  Program.Procedures[1].ReadsFields = {{0, {"data", "data*", "n"}}};
  EXPECT_EQ(removed(Code, &Program), (std::vector<std::string>{"g.n = 8;", "step(&g);"}));
}

// The program's demands of a parameter by field: the union over the units that name fields;
// whole when one unit demands it whole.
TEST(WholeProgramTest, DemandedFieldsAreTheUnionUnlessOneIsWhole) {
  LinkSummary A = unit("a.c", {proc("f", false), proc("g", false)});
  A.Demands = {{"f", {0, 1}}, {"g", {0}}};
  A.DemandFields = {{"f", {{0, {"n"}}, {1, {"x*"}}}}, {"g", {{0, {"peer"}}}}};
  LinkSummary B = unit("b.c", {});
  B.Demands = {{"f", {0, 1}}, {"g", {0}}};
  B.DemandFields = {{"f", {{0, {"m", "x"}}}}};
  LinkSummary P = solveProgram({A, B});
  ASSERT_TRUE(P.find("f") && P.find("g"));
  EXPECT_EQ(P.find("f")->DemandedParams, (std::set<unsigned>{0, 1}));
  EXPECT_EQ(P.find("f")->DemandedFields, (FieldsByParam{{0, {"m", "n", "x"}}}));
  EXPECT_TRUE(P.find("g")->DemandedFields.empty());
}

// Fortran units name the globals their kept statements read; the program's summary demands
// the union of them, which every unit's exported procedures then leave behind.
TEST(WholeProgramTest, DemandedGlobalsAreTheUnion) {
  LinkSummary A = unit("main.f90", {proc("__halo_MOD_exchange", true)});
  A.DemandedGlobals = {"__field_MOD_n", "jgrid_@0:4"};
  LinkSummary B = unit("halo.f90", {proc("step_", false)});
  B.DemandedGlobals = {"__field_MOD_n", "__field_MOD_t#storage"};
  LinkSummary P = solveProgram({A, B});
  EXPECT_EQ(P.DemandedGlobals,
            (std::set<std::string>{"__field_MOD_n", "__field_MOD_t#storage", "jgrid_@0:4"}));
}

} // namespace
} // namespace mpiete
