// network.yaml: written, read back and compared field by field; the reader's located errors;
// the aggregate bandwidth of a --pairs file.
#include "mpiete/basedata/NetworkFile.h"
#include "SampleFiles.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete;
using mpiete::samples::NetworkText;

namespace {

/// Every field set, to values the writer's 5 significant digits keep exactly.
NetworkFile sample() {
  NetworkFile F;
  F.Provenance = {"mpiete 0.1.0",
                  "2026-01-02T03:04:05Z",
                  "mpirun -np 2 comm_probe",
                  "node1",
                  "node2",
                  "Open MPI v4.1.6",
                  4,
                  2};
  F.Settings = {1 << 20, 16384, false, 0.02, 20, 1000, "unchanged"};
  F.Rows.push_back({0, {1.25e-6, 1.2e-6, 1.5e-6}, 1e-7, 2e-7, 3e-7, 20});
  F.Rows.push_back({4096, {2.5e-6, 2.25e-6, 3.75e-6}, 1.5e-7, 2.5e-7, 3.5e-7, 40});
  F.Stream = {64, 30, {5e-5, 4e-5, 6e-5}};
  F.LogGps.L = 1e-6;
  F.LogGps.Os = 1e-7;
  F.LogGps.OsPerByte = 1e-12;
  F.LogGps.Or = 2e-7;
  F.LogGps.OrPerByte = 2e-12;
  F.LogGps.Gap = 5e-7;
  F.LogGps.G = 1e-10;
  F.LogGps.GEager = 4e-10;
  F.LogGps.S = 12288;
  F.Fit = {true, 0.125, 0.75, {1.5e-6, 4e-10}, {7.5e-6, 1e-10}, 0.0125, true};
  return F;
}

void expectSpread(const Spread &A, const Spread &B) {
  EXPECT_DOUBLE_EQ(A.Median, B.Median);
  EXPECT_DOUBLE_EQ(A.P10, B.P10);
  EXPECT_DOUBLE_EQ(A.P90, B.P90);
}

void expectLine(const LineFit &A, const LineFit &B) {
  EXPECT_DOUBLE_EQ(A.Intercept, B.Intercept);
  EXPECT_DOUBLE_EQ(A.Slope, B.Slope);
}

NetworkFile roundTrip(const NetworkFile &In) {
  std::ostringstream OS, Errors;
  writeNetworkFile(OS, In);
  DiagnosticSink Diags(Errors);
  NetworkFile Out;
  EXPECT_TRUE(parseNetworkFile("network.yaml", OS.str(), Out, Diags)) << Errors.str();
  return Out;
}

} // namespace

TEST(NetworkFileTest, RoundTripsEveryField) {
  NetworkFile In = sample();
  NetworkFile Out = roundTrip(In);
  const NetworkProvenance &P = Out.Provenance;
  EXPECT_EQ(P.Tool, In.Provenance.Tool);
  EXPECT_EQ(P.Date, In.Provenance.Date);
  EXPECT_EQ(P.Command, In.Provenance.Command);
  EXPECT_EQ(P.Host0, "node1");
  EXPECT_EQ(P.Host1, "node2");
  EXPECT_EQ(P.MpiLibrary, In.Provenance.MpiLibrary);
  EXPECT_EQ(P.Ranks, 4);
  EXPECT_EQ(P.Pairs, 2);
  const NetworkSettings &S = Out.Settings;
  EXPECT_EQ(S.MaxSize, In.Settings.MaxSize);
  EXPECT_EQ(S.Step, In.Settings.Step);
  EXPECT_EQ(S.LogSizes, false);
  EXPECT_DOUBLE_EQ(S.Tolerance, 0.02);
  EXPECT_EQ(S.MinRepetitions, 20);
  EXPECT_EQ(S.MaxRepetitions, 1000);
  EXPECT_EQ(S.SendBuffers, "unchanged");
  ASSERT_EQ(Out.Rows.size(), In.Rows.size());
  for (size_t I = 0; I < In.Rows.size(); ++I) {
    EXPECT_EQ(Out.Rows[I].Bytes, In.Rows[I].Bytes);
    expectSpread(Out.Rows[I].Recv, In.Rows[I].Recv);
    EXPECT_DOUBLE_EQ(Out.Rows[I].IsendStart, In.Rows[I].IsendStart);
    EXPECT_DOUBLE_EQ(Out.Rows[I].IrecvStart, In.Rows[I].IrecvStart);
    EXPECT_DOUBLE_EQ(Out.Rows[I].Arrived, In.Rows[I].Arrived);
    EXPECT_EQ(Out.Rows[I].Repetitions, In.Rows[I].Repetitions);
  }
  EXPECT_EQ(Out.Stream.Messages, 64);
  EXPECT_EQ(Out.Stream.Repetitions, 30);
  expectSpread(Out.Stream.Time, In.Stream.Time);
  const LogGpsParams &L = Out.LogGps, &LI = In.LogGps;
  EXPECT_DOUBLE_EQ(L.L, LI.L);
  EXPECT_DOUBLE_EQ(L.Os, LI.Os);
  EXPECT_DOUBLE_EQ(L.OsPerByte, LI.OsPerByte);
  EXPECT_DOUBLE_EQ(L.Or, LI.Or);
  EXPECT_DOUBLE_EQ(L.OrPerByte, LI.OrPerByte);
  EXPECT_DOUBLE_EQ(L.Gap, LI.Gap);
  EXPECT_DOUBLE_EQ(L.G, LI.G);
  EXPECT_DOUBLE_EQ(L.GEager, LI.GEager);
  EXPECT_EQ(L.S, LI.S);
  EXPECT_EQ(L.eagerLimit(), 12287u);
  EXPECT_EQ(Out.Fit.BreakFound, true);
  EXPECT_DOUBLE_EQ(Out.Fit.ArrivedShareBelow, 0.125);
  EXPECT_DOUBLE_EQ(Out.Fit.ArrivedShareAbove, 0.75);
  expectLine(Out.Fit.Eager, In.Fit.Eager);
  expectLine(Out.Fit.Synchronous, In.Fit.Synchronous);
  EXPECT_DOUBLE_EQ(Out.Fit.RelativeRms, 0.0125);
  EXPECT_EQ(Out.Fit.LClamped, true);
}

TEST(NetworkFileTest, NoThresholdAndOneNode) {
  NetworkFile In = sample();
  In.LogGps.S.reset();
  In.Provenance.Host1 = In.Provenance.Host0;
  std::ostringstream OS;
  writeNetworkFile(OS, In);
  EXPECT_NE(OS.str().find("class: intra-node"), std::string::npos) << OS.str();
  NetworkFile Out = roundTrip(In);
  EXPECT_FALSE(Out.LogGps.S.has_value());
  EXPECT_EQ(Out.LogGps.eagerLimit(), UINT64_MAX);
  EXPECT_TRUE(Out.Provenance.sameNode());
}

TEST(NetworkFileTest, ReadsAHandWrittenFile) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  NetworkFile F;
  ASSERT_TRUE(parseNetworkFile("network.yaml", NetworkText, F, Diags)) << Errors.str();
  ASSERT_EQ(F.Rows.size(), 3u);
  EXPECT_EQ(F.Rows[2].Bytes, 200u);
  EXPECT_DOUBLE_EQ(F.Rows[2].Recv.Median, 1.3e-6);
  EXPECT_EQ(F.Rows[2].Repetitions, 10);
  EXPECT_EQ(F.LogGps.S, 150u);
  EXPECT_EQ(F.LogGps.eagerLimit(), 149u); // the file's S is the first synchronous size
  EXPECT_EQ(F.Provenance.Tool, "mpiete 0.1.0");
  EXPECT_EQ(F.Settings.SendBuffers, ""); // a file from before the setting
}

// The probe's buffer discipline is one of two words; anything else is located.
TEST(NetworkFileTest, SendBuffersIsRewrittenOrUnchanged) {
  NetworkFile In = sample();
  In.Settings.SendBuffers = "rewritten";
  EXPECT_EQ(roundTrip(In).Settings.SendBuffers, "rewritten");
  In.Settings.SendBuffers = "dirty";
  std::ostringstream OS, Errors;
  writeNetworkFile(OS, In);
  DiagnosticSink Diags(Errors);
  NetworkFile Out;
  EXPECT_FALSE(parseNetworkFile("network.yaml", OS.str(), Out, Diags));
  EXPECT_NE(Errors.str().find("send_buffers"), std::string::npos) << Errors.str();
  EXPECT_NE(Errors.str().find("rewritten or unchanged"), std::string::npos) << Errors.str();
}

TEST(NetworkFileTest, ErrorsAreLocated) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::string Bad = NetworkText;
  Bad.replace(Bad.find("L: 1.0e-6"), 9, "L: fast");
  NetworkFile F;
  EXPECT_FALSE(parseNetworkFile("network.yaml", Bad, F, Diags));
  EXPECT_NE(Errors.str().find("network.yaml:13:6: error: "), std::string::npos) << Errors.str();
  EXPECT_NE(
      Errors.str().find("'L' must be a finite number in [0, 1] (got 'fast') [mpiete-network]"),
      std::string::npos)
      << Errors.str();
  std::ostringstream E2;
  DiagnosticSink D2(E2);
  EXPECT_FALSE(parseNetworkFile("x.yaml", "format: other\n", F, D2));
  EXPECT_NE(E2.str().find("not a network file"), std::string::npos) << E2.str();
  // The LogGPS parameters alone need no table.
  std::string NoTable = NetworkText;
  NoTable.erase(NoTable.find("table:"), NoTable.find("loggps:") - NoTable.find("table:"));
  std::ostringstream E3;
  DiagnosticSink D3(E3);
  EXPECT_TRUE(parseNetworkFile("x.yaml", NoTable, F, D3, NetworkLogGps)) << E3.str();
  EXPECT_FALSE(parseNetworkFile("x.yaml", NoTable, F, D3));
  EXPECT_NE(E3.str().find("missing 'table'"), std::string::npos) << E3.str();
}

TEST(NetworkFileTest, PairsDataGivesTheAggregateBandwidth) {
  // probe-comm --pairs 4: pair 0's one-way times. At the three largest sizes 4 x bytes / time
  // is 8e9, 1e10 and 1.25e10 bytes per second: the median, 1e10, is the link's capacity. The
  // smaller size (a much slower point) is not looked at.
  std::string Text = "format: mpiete-network\nversion: 1\nclass: inter-node\n"
                     "provenance: {ranks: 8, pairs: 4}\n"
                     "table:\n  columns: [bytes, recv_s, recv_p10_s]\n  rows:\n"
                     "    - [0, 1.0e-6, 1.0e-6]\n"
                     "    - [524288, 1.0e-2, 1.0e-2]\n"
                     "    - [1048576, 5.24288e-4, 0]\n"
                     "    - [2097152, 8.388608e-4, 0]\n"
                     "    - [4194304, 1.34217728e-3, 0]\n";
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  NetworkPairs P;
  ASSERT_TRUE(parseNetworkPairs("pairs.yaml", Text, P, Diags)) << Errors.str();
  EXPECT_EQ(P.Pairs, 4u);
  EXPECT_NEAR(P.AggregateBytesPerSecond, 1e10, 1e10 * 1e-5);

  // One pair (or a file from before --pairs): no aggregate, C is what one pair achieves.
  ASSERT_TRUE(parseNetworkPairs("one.yaml",
                                "format: mpiete-network\nversion: 1\n"
                                "provenance: {pairs: 1}\n",
                                P, Diags));
  EXPECT_EQ(P.Pairs, 1u);
  EXPECT_EQ(P.AggregateBytesPerSecond, 0);
  ASSERT_TRUE(parseNetworkPairs("old.yaml", "format: mpiete-network\nversion: 1\n", P, Diags));
  EXPECT_EQ(P.Pairs, 1u);

  EXPECT_FALSE(parseNetworkPairs(
      "bad.yaml", "format: mpiete-network\nversion: 1\nprovenance: {pairs: 0}\n", P, Diags));
  EXPECT_NE(Errors.str().find("bad.yaml:3:21: error: 'pairs' must be a whole number"),
            std::string::npos)
      << Errors.str();
}

// Issue 13: the optional memory_copy table round-trips; files without it read with none; a
// bad one (sizes not ascending, a negative time, no rows) is located.
namespace {
/// A sample file with Section appended fails to parse, with Expected in its located error.
void sectionFails(const std::string &Section, const std::string &Expected) {
  std::ostringstream OS, Errors;
  writeNetworkFile(OS, sample());
  DiagnosticSink Diags(Errors);
  NetworkFile F;
  EXPECT_FALSE(parseNetworkFile("network.yaml", OS.str() + Section, F, Diags)) << Section;
  EXPECT_NE(Errors.str().find(Expected), std::string::npos) << Errors.str();
  EXPECT_NE(Errors.str().find("network.yaml:"), std::string::npos) << Errors.str();
}
} // namespace

TEST(NetworkFileTest, MemoryCopyTableIsOptionalAndChecked) {
  NetworkFile In = sample();
  EXPECT_TRUE(roundTrip(In).Copies.empty()); // the writer leaves the section out
  In.Copies.push_back({0, {2.5e-8, 2e-8, 3e-8}, 100});
  In.Copies.push_back({1 << 20, {4.75e-5, 4.5e-5, 5.5e-5}, 200});
  NetworkFile Out = roundTrip(In);
  ASSERT_EQ(Out.Copies.size(), 2u);
  EXPECT_EQ(Out.Copies[1].Bytes, 1u << 20);
  expectSpread(Out.Copies[0].Time, In.Copies[0].Time);
  expectSpread(Out.Copies[1].Time, In.Copies[1].Time);
  EXPECT_EQ(Out.Copies[1].Repetitions, 200);

  const auto Fails = sectionFails;
  Fails("memory_copy:\n  columns: [bytes, copy_s]\n  rows: [[64, 1.0e-8], [8, 2.0e-8]]\n",
        "memory_copy sizes must ascend: 8 after 64");
  Fails("memory_copy:\n  columns: [bytes, copy_s]\n  rows: [[64, -1.0e-8]]\n", "copy_s");
  Fails("memory_copy:\n  columns: [bytes, copy_s]\n  rows: []\n", "no rows");
  Fails("memory_copy:\n  columns: [bytes]\n  rows: [[64]]\n", "'bytes' and 'copy_s'");
}

// Issue 13 (ring): the optional same_buffer table round-trips beside memory_copy; files
// without it read with none; a bad one is located with the table's own column name.
TEST(NetworkFileTest, SameBufferTableIsOptionalAndChecked) {
  NetworkFile In = sample();
  EXPECT_TRUE(roundTrip(In).SameBuffer.empty());
  In.SameBuffer.push_back({1024, {7.5e-7, 7e-7, 8e-7}, 300});
  In.SameBuffer.push_back({16384, {4.0e-6, 3.5e-6, 4.5e-6}, 120});
  In.Copies.push_back({16384, {1e-7, 9e-8, 2e-7}, 50});
  NetworkFile Out = roundTrip(In);
  ASSERT_EQ(Out.SameBuffer.size(), 2u);
  EXPECT_EQ(Out.SameBuffer[0].Bytes, 1024u);
  EXPECT_EQ(Out.SameBuffer[1].Bytes, 16384u);
  expectSpread(Out.SameBuffer[0].Time, In.SameBuffer[0].Time);
  expectSpread(Out.SameBuffer[1].Time, In.SameBuffer[1].Time);
  EXPECT_EQ(Out.SameBuffer[1].Repetitions, 120);
  ASSERT_EQ(Out.Copies.size(), 1u); // the tables do not mix
  expectSpread(Out.Copies[0].Time, In.Copies[0].Time);

  const auto Fails = sectionFails;
  Fails("same_buffer:\n  columns: [bytes, recv_s]\n  rows: [[64, 1.0e-8], [8, 2.0e-8]]\n",
        "same_buffer sizes must ascend: 8 after 64");
  Fails("same_buffer:\n  columns: [bytes, recv_s]\n  rows: [[64, .nan]]\n", "recv_s");
  Fails("same_buffer:\n  columns: [bytes, recv_s]\n  rows: []\n", "no rows");
  Fails("same_buffer:\n  columns: [bytes, copy_s]\n  rows: [[64, 1.0e-8]]\n",
        "'bytes' and 'recv_s'");
}

// Issue 13 (alltoallw-transpose): the optional exchange tables (contiguous, and packed from
// pieces of one length) round-trip; files without them read with none; bad ones are located.
TEST(NetworkFileTest, ExchangeTablesAreOptionalAndChecked) {
  NetworkFile In = sample();
  EXPECT_TRUE(roundTrip(In).Exchange.empty());
  EXPECT_TRUE(roundTrip(In).ExchangePacked.Rows.empty());
  In.Exchange.push_back({8192, {4.0e-6, 3e-6, 5e-6}, 30});
  In.Exchange.push_back({65536, {1.2e-5, 1e-5, 1.5e-5}, 20});
  In.ExchangePacked = {512, {{8192, {9.0e-6, 8e-6, 1e-5}, 20}}};
  In.PackedCopies.push_back({8, {{4096, {5.0e-6, 4e-6, 6e-6}, 20}}});
  In.PackedCopies.push_back({64, {{4096, {2.0e-6, 1e-6, 3e-6}, 20}}});
  In.SameBuffer.push_back({1024, {7.5e-7, 7e-7, 8e-7}, 300});
  NetworkFile Out = roundTrip(In);
  ASSERT_EQ(Out.Exchange.size(), 2u);
  EXPECT_EQ(Out.Exchange[1].Bytes, 65536u);
  expectSpread(Out.Exchange[1].Time, In.Exchange[1].Time);
  EXPECT_EQ(Out.ExchangePacked.PieceBytes, 512u);
  ASSERT_EQ(Out.ExchangePacked.Rows.size(), 1u);
  expectSpread(Out.ExchangePacked.Rows[0].Time, In.ExchangePacked.Rows[0].Time);
  ASSERT_EQ(Out.SameBuffer.size(), 1u); // the tables do not mix
  ASSERT_EQ(Out.PackedCopies.size(), 2u);
  EXPECT_EQ(Out.PackedCopies[1].PieceBytes, 64u);
  expectSpread(Out.PackedCopies[1].Rows[0].Time, In.PackedCopies[1].Rows[0].Time);
  EXPECT_TRUE(Out.Packed.empty());

  const auto Fails = sectionFails;
  Fails("memory_copy_packed:\n  pieces:\n  - piece_bytes: 8\n    columns: [bytes, oneway_s]\n"
        "    rows: [[64, 1]]\n",
        "'bytes' and 'copy_s'");
  Fails("memory_copy_packed:\n  pieces: []\n", "memory_copy_packed tables list no piece lengths");
  Fails("exchange:\n  columns: [bytes, exchange_s]\n  rows: [[64, 1.0e-8], [8, 2.0e-8]]\n",
        "exchange sizes must ascend: 8 after 64");
  Fails("exchange:\n  columns: [bytes, recv_s]\n  rows: [[64, 1.0e-8]]\n",
        "'bytes' and 'exchange_s'");
  Fails("exchange_packed:\n  columns: [bytes, exchange_s]\n  rows: [[64, 1.0e-8]]\n",
        "piece_bytes");
  Fails("exchange_packed:\n  piece_bytes: 512\n  columns: [bytes, exchange_s]\n  rows: []\n",
        "no rows");
}

// Issue 13 (alltoallw-transpose): the optional packed tables (one per piece length) round-trip
// beside the other size tables; files without them read with none; bad ones are located.
TEST(NetworkFileTest, PackedTablesAreOptionalAndChecked) {
  NetworkFile In = sample();
  EXPECT_TRUE(roundTrip(In).Packed.empty());
  In.Packed.push_back(
      {8, {{4096, {3.0e-5, 2.9e-5, 3.2e-5}, 40}, {65536, {4.0e-4, 3e-4, 5e-4}, 20}}});
  In.Packed.push_back({4096, {{65536, {9.0e-6, 8e-6, 1e-5}, 30}}});
  In.Unpacked.push_back({64, {{4096, {1.5e-5, 1.4e-5, 1.6e-5}, 50}}});
  In.SameBuffer.push_back({1024, {7.5e-7, 7e-7, 8e-7}, 300});
  NetworkFile Out = roundTrip(In);
  ASSERT_EQ(Out.Unpacked.size(), 1u); // the receiver's side, its own section
  EXPECT_EQ(Out.Unpacked[0].PieceBytes, 64u);
  ASSERT_EQ(Out.Unpacked[0].Rows.size(), 1u);
  EXPECT_EQ(Out.Unpacked[0].Rows[0].Repetitions, 50);
  expectSpread(Out.Unpacked[0].Rows[0].Time, In.Unpacked[0].Rows[0].Time);
  ASSERT_EQ(Out.Packed.size(), 2u);
  EXPECT_EQ(Out.Packed[0].PieceBytes, 8u);
  ASSERT_EQ(Out.Packed[0].Rows.size(), 2u);
  EXPECT_EQ(Out.Packed[0].Rows[1].Bytes, 65536u);
  expectSpread(Out.Packed[0].Rows[1].Time, In.Packed[0].Rows[1].Time);
  EXPECT_EQ(Out.Packed[0].Rows[0].Repetitions, 40);
  EXPECT_EQ(Out.Packed[1].PieceBytes, 4096u);
  ASSERT_EQ(Out.Packed[1].Rows.size(), 1u);
  expectSpread(Out.Packed[1].Rows[0].Time, In.Packed[1].Rows[0].Time);
  ASSERT_EQ(Out.SameBuffer.size(), 1u); // the tables do not mix

  const auto Fails = sectionFails;
  const std::string Table = "    columns: [bytes, oneway_s]\n    rows: [[64, 1.0e-8]]\n";
  Fails("packed:\n  pieces:\n  - piece_bytes: 64\n" + Table + "  - piece_bytes: 8\n" + Table,
        "packed piece lengths must ascend: 8 after 64");
  Fails("packed:\n  pieces:\n  - piece_bytes: 0\n" + Table, "piece_bytes");
  Fails("packed:\n  pieces: []\n", "no piece lengths");
  Fails("packed:\n  pieces:\n  - piece_bytes: 8\n    columns: [bytes, oneway_s]\n"
        "    rows: [[64, 1.0e-8], [32, 1.0e-8]]\n",
        "sizes must ascend: 32 after 64");
  Fails(
      "packed:\n  pieces:\n  - piece_bytes: 8\n    columns: [bytes, recv_s]\n    rows: [[64, 1]]\n",
      "'bytes' and 'oneway_s'");
  Fails("packed:\n  pieces:\n  - 8\n", "a packed table is a map");
  Fails("unpacked:\n  pieces:\n  - piece_bytes: 64\n" + Table + "  - piece_bytes: 8\n" + Table,
        "packed piece lengths must ascend: 8 after 64");
  Fails("unpacked:\n  pieces: []\n", "unpacked tables list no piece lengths");
}
