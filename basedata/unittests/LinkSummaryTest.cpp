// Link summaries and unit recipes: written, read back whole, and their located errors.
#include "mpiete/basedata/LinkSummary.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete;

TEST(LinkSummaryTest, UnitSummaryRoundTripsEveryField) {
  LinkSummary In;
  In.Unit = "src/halo.c";
  In.ContentHash = 0xfedcba9876543210ULL; // above INT64_MAX: written as hex
  In.ExternalCalls = {"die", "grid_stats"};
  In.Steered = {PointToPointKind, "MPI_Allreduce"};
  In.Demands = {{"die", {}}, {"grid_stats", {1, 2, ResultDemand}}};
  In.DemandFields = {{"grid_stats", {{1, {"n", "f*"}}}}};
  In.AddressTaken = {"callback"};
  ProcedureSummary A;
  A.Name = "exchange_halo";
  A.Communicates = true;
  A.Calls = {"die"};
  A.WritesParams = {0, 1};
  A.ReadsParams = {0};
  A.EscapesParams = {1};
  A.WritesFields = {{0, {"halo", "ring_in"}}, {1, {"f*"}}};
  A.ReadsFields = {{0, {"comm", "up"}}};
  A.WritesGlobals = {"halo.c#count"};
  A.ReadsGlobals = {"nsteps", "halo.c#count"};
  A.HiddenState = true;
  A.SendKinds = {PointToPointKind, "MPI_Bcast"};
  A.ValueParams = {2};
  A.ValuesKnown = true;
  ProcedureSummary B;
  B.Name = "pure";
  // A Fortran procedure's: the storage of its dummies apart from their contents.
  ProcedureSummary F;
  F.Name = "__halo_MOD_exchange";
  F.StorageReadsParams = {0};
  F.StorageWritesParams = {1};
  F.ReadsGlobals = {"__halo_MOD_u#storage", "jgrid_@4:4"};
  In.Procedures = {A, B, F};
  In.DemandedGlobals = {"__halo_MOD_u", "jgrid_@0:4"};
  std::ostringstream OS, Errors;
  writeLinkSummary(OS, In);
  DiagnosticSink Diags(Errors);
  LinkSummary Out;
  ASSERT_TRUE(parseLinkSummary("halo.o.skeleton.summary", OS.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out, In) << OS.str();
  ASSERT_NE(Out.find("pure"), nullptr);
  EXPECT_FALSE(Out.find("pure")->Communicates);
  EXPECT_EQ(Out.find("absent"), nullptr);
}

TEST(LinkSummaryTest, ProgramSummaryRoundTrips) {
  LinkSummary In;
  In.SummaryKind = LinkSummary::Kind::Program;
  In.Steered = {"MPI_Bcast"};
  ProcedureSummary P;
  P.Name = "sweep";
  P.WritesParams = {2};
  P.DemandedParams = {0, 2};
  P.DemandedFields = {{2, {"nloc", "u*"}}};
  P.CallersKnown = true;
  In.Procedures = {P};
  std::ostringstream OS, Errors;
  writeLinkSummary(OS, In);
  DiagnosticSink Diags(Errors);
  LinkSummary Out;
  ASSERT_TRUE(parseLinkSummary("program.summary", OS.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out, In) << OS.str();
}

TEST(LinkSummaryTest, BadKindAndHashAreLocatedErrors) {
  for (const char *Text :
       {"format: mpiete-link-summary\nversion: 1\nkind: library\n",
        "format: mpiete-link-summary\nversion: 1\nkind: unit\nunit: a.c\ncontent_hash: xyz\n",
        "format: mpiete-link-summary\nversion: 1\nkind: program\nprocedures:\n  - name: f\n"
        "    communicates: false\n    writes_params: [-1]\n",
        "format: mpiete-link-summary\nversion: 1\nkind: program\nprocedures:\n  - name: f\n"
        "    communicates: false\n    reads_fields: {x: [n]}\n",
        "format: mpiete-link-summary\nversion: 1\nkind: program\nprocedures:\n  - name: f\n"
        "    communicates: false\n    reads_fields: {0: n}\n"}) {
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    LinkSummary Out;
    EXPECT_FALSE(parseLinkSummary("s.yaml", Text, Out, Diags)) << Text;
    EXPECT_NE(Errors.str().find("s.yaml:"), std::string::npos) << Errors.str();
    EXPECT_NE(Errors.str().find("[mpiete-link-summary]"), std::string::npos) << Errors.str();
  }
}

TEST(LinkSummaryTest, RecipeRoundTrips) {
  UnitRecipe In;
  In.Source = "dir with space/main.c";
  In.Language = "fortran";
  In.Directory = "/home/user/app";
  In.Options = {"--pass-through=MPI_Win_fence"};
  In.InstrumentFlags = {"-O2", "-DN=3", "-I/usr/include/mpi"};
  In.Compile = {"mpicc", "-iquote", "dir with space", "-O2", "-w"};
  std::ostringstream OS, Errors;
  writeUnitRecipe(OS, In);
  DiagnosticSink Diags(Errors);
  UnitRecipe Out;
  ASSERT_TRUE(parseUnitRecipe("r.yaml", OS.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out, In);
}

// A recipe an older mpiete-cc wrote (version 1, no language; version 2, no options) is no
// error: a note, and the unit keeps its per-unit skeleton.
TEST(LinkSummaryTest, OlderRecipeIsANoteNotAnError) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  UnitRecipe Out;
  EXPECT_FALSE(parseUnitRecipe("old.yaml",
                               "format: mpiete-unit-recipe\nversion: 1\nsource: a.c\n"
                               "directory: /x\ninstrument_flags: []\ncompile: [mpicc]\n",
                               Out, Diags));
  EXPECT_EQ(Errors.str().find("error"), std::string::npos) << Errors.str();
  EXPECT_NE(Errors.str().find("older mpiete-cc"), std::string::npos) << Errors.str();
}
