// Unit tests of the block map: a write/read round trip and errors on malformed files.
#include "TestFiles.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

namespace mpiete {
namespace {

UnitModel sampleUnit() {
  UnitModel U;
  U.Source = "src/ring.c";
  U.Language = "c";
  U.Defines = {"-DN=4", "-include cfg.h"};
  U.UnitId = 0x3f2a1c9e;
  U.ContentHash = 0x0123456789abcdefULL;
  U.Procedures = {"main", "halo"};
  U.PassedThrough = {"MPI_Win_fence"};
  U.Loops = {{"for", "main", 10, 3, -1}, {"while", "main", 12, 5, 0}};
  Block Compute;
  Compute.Index = 0;
  Compute.Kind = BlockKind::Compute;
  Compute.Procedure = "main";
  Compute.File = "src/ring.c";
  Compute.BeginLine = 12;
  Compute.BeginCol = 5;
  Compute.EndLine = 14;
  Compute.Loops = {0, 1};
  Compute.WholeLoop = true;
  Compute.OpaqueCalls = {"dgemm_", "(indirect call)"};
  Block Send;
  Send.Index = 1;
  Send.Kind = BlockKind::Comm;
  Send.Phase = "start";
  Send.Procedure = "halo";
  Send.File = "src/ring.c";
  Send.BeginLine = 30;
  Send.BeginCol = 3;
  Send.EndLine = 31;
  Send.Routine = "MPI_Send";
  Send.CallText = "MPI_Send(buf, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD)";
  Block Wait = Send;
  Wait.Index = 2;
  Wait.Kind = BlockKind::Wait;
  Wait.Phase = "wait";
  Block Fin;
  Fin.Index = 3;
  Fin.Kind = BlockKind::Finalize;
  Fin.Procedure = "main";
  Fin.File = "other \"quoted\": file.c";
  Fin.BeginLine = Fin.EndLine = 40;
  Fin.Routine = "MPI_Finalize";
  Fin.CallText = "MPI_Finalize()";
  U.Blocks = {Compute, Send, Wait, Fin};
  return U;
}

struct ReadResult {
  bool Ok;
  BlockMap Map;
  std::string Diagnostics;
};

ReadResult readText(const TempDir &Dir, const std::string &Text) {
  std::string Path = Dir.write("map.blocks.yaml", Text);
  std::ostringstream Err;
  DiagnosticSink Diags(Err);
  ReadResult R;
  R.Ok = readBlockMap(Path, R.Map, Diags);
  R.Diagnostics = Err.str();
  if (!R.Ok) {
    EXPECT_EQ(Diags.errorCount(), 1u) << R.Diagnostics;
    EXPECT_EQ(R.Diagnostics.rfind(Path, 0), 0u) << "must start with the file: " << R.Diagnostics;
    EXPECT_NE(R.Diagnostics.find("error:"), std::string::npos) << R.Diagnostics;
    EXPECT_NE(R.Diagnostics.find("[mpiete-block-map]"), std::string::npos) << R.Diagnostics;
  }
  return R;
}

std::string written(const BlockMap &Map) {
  std::ostringstream OS;
  writeBlockMap(OS, Map);
  return OS.str();
}

BlockMap sampleMap() {
  BlockMap Map;
  Map.Program = "ring";
  Map.Tool = "mpiete 0.1.0";
  Map.Date = "2024-01-02T03:04:05Z";
  Map.Units = {sampleUnit()};
  return Map;
}

TEST(BlockMapTest, RoundTripKeepsEveryField) {
  TempDir Dir;
  BlockMap Map = sampleMap();
  ReadResult R = readText(Dir, written(Map));
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_EQ(R.Map.Program, "ring");
  EXPECT_EQ(R.Map.Tool, "mpiete 0.1.0");
  EXPECT_EQ(R.Map.Date, "2024-01-02T03:04:05Z");
  ASSERT_EQ(R.Map.Units.size(), 1u);
  const UnitModel &Want = Map.Units[0], &Got = R.Map.Units[0];
  EXPECT_EQ(Got.Source, Want.Source);
  EXPECT_EQ(Got.Language, Want.Language);
  EXPECT_EQ(Got.Defines, Want.Defines);
  EXPECT_EQ(Got.UnitId, Want.UnitId);
  EXPECT_EQ(Got.ContentHash, Want.ContentHash);
  EXPECT_EQ(Got.Procedures, Want.Procedures);
  EXPECT_EQ(Got.PassedThrough, Want.PassedThrough);
  ASSERT_EQ(Got.Loops.size(), Want.Loops.size());
  for (size_t I = 0; I < Want.Loops.size(); ++I) {
    EXPECT_EQ(Got.Loops[I].Kind, Want.Loops[I].Kind);
    EXPECT_EQ(Got.Loops[I].Procedure, Want.Loops[I].Procedure);
    EXPECT_EQ(Got.Loops[I].Line, Want.Loops[I].Line);
    EXPECT_EQ(Got.Loops[I].Parent, Want.Loops[I].Parent);
  }
  ASSERT_EQ(Got.Blocks.size(), Want.Blocks.size());
  for (size_t I = 0; I < Want.Blocks.size(); ++I) {
    const Block &W = Want.Blocks[I], &G = Got.Blocks[I];
    SCOPED_TRACE("block " + std::to_string(I));
    EXPECT_EQ(G.Index, W.Index);
    EXPECT_EQ(G.Kind, W.Kind);
    EXPECT_EQ(G.Phase, W.Phase);
    EXPECT_EQ(G.Procedure, W.Procedure);
    EXPECT_EQ(G.File, W.File);
    EXPECT_EQ(G.BeginLine, W.BeginLine);
    EXPECT_EQ(G.BeginCol, W.BeginCol);
    EXPECT_EQ(G.EndLine, W.EndLine);
    EXPECT_EQ(G.Loops, W.Loops);
    EXPECT_EQ(G.WholeLoop, W.WholeLoop);
    EXPECT_EQ(G.OpaqueCalls, W.OpaqueCalls);
    EXPECT_EQ(G.Routine, W.Routine);
    EXPECT_EQ(G.CallText, W.CallText);
  }
  EXPECT_EQ(R.Map.fingerprint(), Map.fingerprint());
  // Writing what was read gives the same text.
  EXPECT_EQ(written(R.Map), written(Map));
}

TEST(BlockMapTest, FingerprintFollowsUnitsAndContent) {
  BlockMap A = sampleMap(), B = sampleMap();
  EXPECT_EQ(A.fingerprint(), B.fingerprint());
  B.Date = "2030-01-01T00:00:00Z";
  B.Units[0].Blocks.clear();
  EXPECT_EQ(A.fingerprint(), B.fingerprint()) << "only ids and content count";
  B.Units[0].ContentHash ^= 1;
  EXPECT_NE(A.fingerprint(), B.fingerprint());
  BlockMap C = sampleMap();
  C.Units[0].UnitId ^= 1;
  EXPECT_NE(A.fingerprint(), C.fingerprint());
}

TEST(BlockMapTest, MissingFileIsAnError) {
  TempDir Dir;
  std::ostringstream Err;
  DiagnosticSink Diags(Err);
  BlockMap Map;
  EXPECT_FALSE(readBlockMap(Dir.path("absent.yaml"), Map, Diags));
  EXPECT_NE(Err.str().find("absent.yaml"), std::string::npos) << Err.str();
}

TEST(BlockMapTest, InvalidYamlPointsAtTheLine) {
  TempDir Dir;
  ReadResult R = readText(Dir, "format: mpiete-blocks\nversion: 1\nunits: [\n  {unit: \n");
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Diagnostics.find("not valid YAML"), std::string::npos) << R.Diagnostics;
  EXPECT_NE(R.Diagnostics.find("map.blocks.yaml:"), std::string::npos) << R.Diagnostics;
}

TEST(BlockMapTest, HeaderErrors) {
  TempDir Dir;
  ReadResult NoFormat = readText(Dir, "version: 1\nunits: []\n");
  EXPECT_FALSE(NoFormat.Ok);
  EXPECT_NE(NoFormat.Diagnostics.find("header: missing 'format'"), std::string::npos)
      << NoFormat.Diagnostics;
  ReadResult Other = readText(Dir, "format: something-else\nversion: 1\n");
  EXPECT_FALSE(Other.Ok);
  EXPECT_NE(Other.Diagnostics.find("'something-else'"), std::string::npos) << Other.Diagnostics;
  ReadResult Future = readText(Dir, "format: mpiete-blocks\nversion: 99\n");
  EXPECT_FALSE(Future.Ok);
  EXPECT_NE(Future.Diagnostics.find("version 99"), std::string::npos) << Future.Diagnostics;
}

/// The sample map's text with one line replaced.
std::string withLine(const std::string &From, const std::string &To) {
  std::string Text = written(sampleMap());
  size_t At = Text.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  if (At != std::string::npos)
    Text.replace(At, From.size(), To);
  return Text;
}

TEST(BlockMapTest, BlockErrorsNameTheBlock) {
  TempDir Dir;
  ReadResult Kind = readText(Dir, withLine("kind: finalize", "kind: teleport"));
  EXPECT_FALSE(Kind.Ok);
  EXPECT_NE(Kind.Diagnostics.find("block 3f2a1c9e:3: unknown kind 'teleport'"), std::string::npos)
      << Kind.Diagnostics;

  ReadResult Lines = readText(Dir, withLine("lines: [40, 40]", "lines: [40, 40, 41]"));
  EXPECT_FALSE(Lines.Ok);
  EXPECT_NE(Lines.Diagnostics.find("block 3f2a1c9e:3: 'lines' must be [first, last]"),
            std::string::npos)
      << Lines.Diagnostics;

  ReadResult Foreign = readText(Dir, withLine("id: 3f2a1c9e:1", "id: 00000001:1"));
  EXPECT_FALSE(Foreign.Ok);
  EXPECT_NE(Foreign.Diagnostics.find("block 00000001:1: id does not belong to unit 3f2a1c9e"),
            std::string::npos)
      << Foreign.Diagnostics;

  ReadResult NoProc = readText(Dir, withLine("procedure: halo", "proc: halo"));
  EXPECT_FALSE(NoProc.Ok);
  EXPECT_NE(NoProc.Diagnostics.find("block 3f2a1c9e:1: missing 'procedure'"), std::string::npos)
      << NoProc.Diagnostics;

  ReadResult BadLine = readText(Dir, withLine("lines: [30, 31]", "lines: [thirty, 31]"));
  EXPECT_FALSE(BadLine.Ok);
  EXPECT_NE(BadLine.Diagnostics.find("block 3f2a1c9e:1: malformed 'lines'"), std::string::npos)
      << BadLine.Diagnostics;
}

TEST(BlockMapTest, UnitAndLoopErrorsNameTheRecord) {
  TempDir Dir;
  ReadResult Unit = readText(Dir, withLine("source: src/ring.c", "src: src/ring.c"));
  EXPECT_FALSE(Unit.Ok);
  EXPECT_NE(Unit.Diagnostics.find("unit 0: missing 'source'"), std::string::npos)
      << Unit.Diagnostics;

  ReadResult Hash = readText(Dir, withLine("content_hash: 0123456789abcdef", "content_hash: xyz"));
  EXPECT_FALSE(Hash.Ok);
  EXPECT_NE(Hash.Diagnostics.find("unit 3f2a1c9e ('src/ring.c')"), std::string::npos)
      << Hash.Diagnostics;

  ReadResult Loop = readText(Dir, withLine("kind: while, ", ""));
  EXPECT_FALSE(Loop.Ok);
  EXPECT_NE(Loop.Diagnostics.find("unit 3f2a1c9e ('src/ring.c') loop 1: missing 'kind'"),
            std::string::npos)
      << Loop.Diagnostics;
}

} // namespace
} // namespace mpiete
