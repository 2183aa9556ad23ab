// Unit tests of the C transform on hand-made program models: it needs no parser.
#include "mpiete/transforms/Instrument.h"

#include <gtest/gtest.h>

namespace mpiete {
namespace {

/// The text after the three prelude lines.
std::string body(const std::string &Out) {
  size_t Pos = 0;
  for (int I = 0; I < 3; ++I)
    Pos = Out.find('\n', Pos) + 1;
  return Out.substr(Pos);
}

UnitModel unitWith(const std::string &Source) {
  UnitModel U;
  U.Source = Source;
  U.UnitId = 0xabcdef01;
  return U;
}

void addCompute(UnitModel &U, const ComputeEdits &E) {
  Block B;
  B.Index = U.Blocks.size();
  B.Compute = U.Computes.size();
  B.WholeLoop = E.WholeLoop;
  U.Computes.push_back(E);
  U.Blocks.push_back(B);
}

TEST(InstrumentTest, PreludeKeepsLinesAndNamesTheSource) {
  UnitModel U = unitWith("dir/a \"b\".c");
  std::string Error;
  auto Out = instrumentedText(U, "int x;\n", Variant::Timing, Error);
  ASSERT_TRUE(Out) << Error;
  EXPECT_EQ(*Out, "#include \"mpiete/instrument.h\" /* mpiete timing probe of dir/a \"b\".c */\n"
                  "#define MPIETE_B(index) MPIETE_ID(0xabcdef01u, index)\n"
                  "#line 1 \"dir/a \\\"b\\\".c\"\n"
                  "int x;\n");
}

TEST(InstrumentTest, ComputeBlockHooksPerVariant) {
  std::string Text = "x = 1; y = 2;";
  UnitModel U = unitWith("a.c");
  ComputeEdits E;
  E.Begin = 0;
  E.End = Text.size();
  addCompute(U, E);
  std::string Error;
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Trace, Error)),
            "mpiete_tr_block(MPIETE_B(0)); x = 1; y = 2;");
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Timing, Error)),
            "mpiete_tm_begin(MPIETE_B(0)); x = 1; y = 2; mpiete_tm_end(MPIETE_B(0));");
  U.Computes[0].Braces = true;
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Timing, Error)),
            "{ mpiete_tm_begin(MPIETE_B(0)); x = 1; y = 2; mpiete_tm_end(MPIETE_B(0)); }");
}

TEST(InstrumentTest, WholeLoopWithAndWithoutBraces) {
  std::string Text = "while (n--) s++;";
  UnitModel U = unitWith("a.c");
  ComputeEdits E;
  E.WholeLoop = true;
  E.Begin = E.LoopBegin = 0;
  E.End = E.LoopEnd = Text.size();
  E.BodyBegin = Text.find("s++");
  E.BodyEnd = Text.size();
  addCompute(U, E);
  std::string Error;
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Trace, Error)),
            "{ unsigned long long mpiete_n_ = 0; while (n--) { ++mpiete_n_; s++; } "
            "mpiete_tr_loop(MPIETE_B(0), mpiete_n_); }");

  std::string Braced = "do { s++; } while (n--);";
  UnitModel V = unitWith("a.c");
  ComputeEdits F;
  F.WholeLoop = true;
  F.Begin = F.LoopBegin = 0;
  F.End = F.LoopEnd = Braced.size();
  F.BodyBegin = Braced.find('{') + 1;
  F.BodyEnd = Braced.find('}');
  F.BodyIsCompound = true;
  addCompute(V, F);
  EXPECT_EQ(body(*instrumentedText(V, Braced, Variant::Timing, Error)),
            "{ unsigned long long mpiete_n_ = 0; mpiete_tm_begin(MPIETE_B(0)); do { ++mpiete_n_; "
            "s++; } while (n--); mpiete_tm_loop_end(MPIETE_B(0), mpiete_n_); }");
}

TEST(InstrumentTest, CallSitesAreRenamedWithTheirFirstBlock) {
  std::string Text = "x = 1;MPI_Send(b);MPI_Finalize();";
  UnitModel U = unitWith("a.c");
  ComputeEdits E;
  E.Begin = 0;
  E.End = 6;
  addCompute(U, E);
  CallSite Send;
  Send.Routine = "MPI_Send";
  Send.RuntimeName = "mpiete_send";
  Send.FirstBlock = 1;
  Send.Edits = {6, 14, 15, true};
  CallSite Fin;
  Fin.Routine = "MPI_Finalize";
  Fin.RuntimeName = "mpiete_finalize";
  Fin.FirstBlock = 3;
  Fin.Edits = {18, 30, 31, false};
  U.Sites = {Send, Fin};
  std::string Error;
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Timing, Error)),
            "mpiete_tm_begin(MPIETE_B(0)); x = 1; mpiete_tm_end(MPIETE_B(0));"
            "mpiete_send(MPIETE_B(1), b);mpiete_finalize(MPIETE_B(3));");
}

TEST(InstrumentTest, ConflictingModelIsRefused) {
  std::string Text = "MPI_Send(b);";
  UnitModel U = unitWith("a.c");
  CallSite S;
  S.RuntimeName = "mpiete_send";
  S.Edits = {0, 8, 9, true};
  U.Sites = {S, S};
  U.Sites[1].RuntimeName = "mpiete_ssend";
  std::string Error;
  EXPECT_FALSE(instrumentedText(U, Text, Variant::Trace, Error));
  EXPECT_NE(Error.find("overlap"), std::string::npos) << Error;
}

TEST(InstrumentTest, SampledLoopHooksInTheTimingVariantOnly) {
  std::string Text = "for (i = 0; i < n; ++i) { int x = i; s += x; }";
  UnitModel U = unitWith("a.c");
  ComputeEdits E;
  E.SampledLoop = true;
  E.Begin = E.LoopBegin = 0;
  E.End = E.LoopEnd = Text.size();
  E.BodyBegin = Text.find('{') + 1;
  E.BodyEnd = Text.rfind('}');
  E.BodyIsCompound = true;
  Block B;
  B.Kind = BlockKind::Loop;
  B.Compute = 0;
  U.Computes.push_back(E);
  U.Blocks.push_back(B);
  std::string Error;
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Timing, Error, /*SampleHooks=*/true)),
            "{ MPIETE_SAMPLE_ENTRY for (i = 0; i < n; ++i) { mpiete_sample(MPIETE_B(0)); { int x = "
            "i; s += x; }} "
            "mpiete_sample_exit(MPIETE_B(0)); }");
  EXPECT_EQ(body(*instrumentedText(U, Text, Variant::Trace, Error, /*SampleHooks=*/true)), Text);
}

} // namespace
} // namespace mpiete
