// Issue 14: every bad value in the files basedata reads (network, cluster, block map, comm
// probe output) gives one located error naming the file, the key and what was expected; never
// an exception, never a silent result.
#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/basedata/CommProbe.h"
#include "mpiete/basedata/NetworkFile.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mpiete;

namespace {

const std::string Network = R"(format: mpiete-network
version: 1
provenance: {tool: mpiete 0.1.0, pairs: 1}
table:
  columns: [bytes, recv_s, recv_arrived_s, repetitions]
  rows:
    - [0, 1.0e-6, 1.0e-7, 10]
    - [100, 1.1e-6, 1.0e-7, 10]
loggps:
  L: 1.0e-6
  o_s: 1.0e-8
  o_s_per_byte: 0
  o_r: 2.0e-8
  o_r_per_byte: 1.0e-11
  g: 4.0e-9
  G: 1.0e-9
  G_eager: 5.0e-10
  S: 150
)";

/// Text with the first From replaced by To.
std::string with(std::string Text, const std::string &From, const std::string &To) {
  size_t At = Text.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  return At == std::string::npos ? Text : Text.replace(At, From.size(), To);
}

/// The error parseNetworkFile reports (empty if it read the file).
std::string networkError(const std::string &Text) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  NetworkFile F;
  bool Ok = false;
  EXPECT_NO_THROW(Ok = parseNetworkFile("net.yaml", Text, F, Diags));
  NetworkPairs P;
  EXPECT_NO_THROW(parseNetworkPairs("net.yaml", Text, P, Diags));
  EXPECT_EQ(Ok, Errors.str().empty()) << Errors.str();
  return Errors.str();
}

std::string clusterError(const std::string &Text) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  ClusterSpec S;
  bool Ok = false;
  EXPECT_NO_THROW(Ok = parseClusterSpec("c.yaml", Text, S, Diags));
  EXPECT_EQ(Ok, Errors.str().empty()) << Errors.str();
  return Errors.str();
}

std::string blockMapError(const std::string &Text) {
  std::string Path =
      (std::filesystem::temp_directory_path() /
       ("mpiete-badinput-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
        ".blocks.yaml"))
          .string();
  std::ofstream(Path) << Text;
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  BlockMap M;
  bool Ok = true;
  EXPECT_NO_THROW(Ok = readBlockMap(Path, M, Diags));
  std::filesystem::remove(Path);
  EXPECT_FALSE(Ok);
  std::string E = Errors.str();
  size_t At = E.find(Path);
  return At == std::string::npos ? E : E.replace(At, Path.size(), "b.yaml");
}

} // namespace

TEST(BadInputTest, TheGoodNetworkFileReads) { EXPECT_EQ(networkError(Network), ""); }

TEST(BadInputTest, NetworkWithoutTable) {
  std::string NoTable =
      Network.substr(0, Network.find("table:")) + Network.substr(Network.find("loggps:"));
  EXPECT_EQ(networkError(NoTable), "net.yaml:1:1: error: missing 'table' [mpiete-network]\n");
}

TEST(BadInputTest, NetworkParametersInvalidNumbers) {
  // Finding 2: NaN, infinities, negative and absurd values are errors, not 0.
  for (const char *Key : {"L: 1.0e-6", "o_s: 1.0e-8", "o_r: 2.0e-8", "g: 4.0e-9"}) {
    std::string Name = std::string(Key).substr(0, std::string(Key).find(':'));
    for (const char *Bad : {".nan", ".inf", "-1.0e-6", "1e10", "fast", "[1, 2]", "{a: 1}"}) {
      std::string E = networkError(with(Network, Key, Name + ": " + Bad));
      EXPECT_NE(E.find("net.yaml:"), std::string::npos) << E;
      EXPECT_NE(E.find("'" + Name + "' must be a finite number in [0, 1]"), std::string::npos)
          << Key << " -> " << Bad << ": " << E;
    }
  }
  EXPECT_NE(networkError(with(Network, "G: 1.0e-9", "G: -1")).find("'G' must be a finite"),
            std::string::npos);
  EXPECT_EQ(networkError(with(Network, "  L: 1.0e-6\n", "")),
            "net.yaml:10:3: error: missing 'L' [mpiete-network]\n");
}

TEST(BadInputTest, NetworkThresholdInfinityIsNotZero) {
  EXPECT_EQ(networkError(with(Network, "S: 150", "S: .inf")),
            "net.yaml:18:6: error: 'S' must be a whole number in [0, 1125899906842624] (got "
            "'.inf') [mpiete-network]\n");
  EXPECT_NE(networkError(with(Network, "S: 150", "S: -5")).find("'S' must be a whole number"),
            std::string::npos);
  EXPECT_NE(networkError(with(Network, "S: 150", "S: 1.5")).find("'S' must be a whole number"),
            std::string::npos);
  EXPECT_EQ(networkError(with(Network, "S: 150", "S: null")), ""); // no protocol change
}

TEST(BadInputTest, NetworkTableValues) {
  EXPECT_EQ(networkError(with(Network, "[100, 1.1e-6,", "[100, .nan,")),
            "net.yaml:8:13: error: 'recv_s' must be a finite number in [0, 1000] (got '.nan') "
            "[mpiete-network]\n");
  EXPECT_NE(networkError(with(Network, "[100, 1.1e-6,", "[-100, 1.1e-6,"))
                .find("'bytes' must be a whole number"),
            std::string::npos);
  EXPECT_NE(networkError(with(Network, "1.0e-7, 10]", "1.0e-7, ten]"))
                .find("'repetitions' must be a whole number"),
            std::string::npos);
  EXPECT_NE(networkError(with(Network, "- [0, 1.0e-6, 1.0e-7, 10]", "- {a: 1}"))
                .find("table row too short"),
            std::string::npos);
  EXPECT_NE(
      networkError(with(Network, "rows:", "rows: 3\n  old_rows:")).find("'rows' must be a list"),
      std::string::npos);
}

TEST(BadInputTest, NetworkTypesSwapped) {
  EXPECT_NE(networkError(with(Network, "loggps:\n", "loggps: [1]\nold:\n"))
                .find("'loggps' must be a map"),
            std::string::npos);
  EXPECT_NE(networkError(with(Network, "version: 1", "version: [1]")).find("'version' must be"),
            std::string::npos);
  EXPECT_NE(networkError(with(Network, "pairs: 1", "pairs: {a: 1}")).find("'pairs' must be"),
            std::string::npos);
  EXPECT_NE(networkError("- a list\n").find("not a network file"), std::string::npos);
  EXPECT_NE(networkError("word").find("not a network file"), std::string::npos);
}

TEST(BadInputTest, ClusterFileShapes) {
  // Finding 1: a cluster file that is a list, scalars where maps are expected.
  EXPECT_NE(
      clusterError("- format: mpiete-cluster\n").find("c.yaml:1:1: error: not a cluster file"),
      std::string::npos);
  EXPECT_NE(clusterError("word").find("not a cluster file"), std::string::npos);
  std::string Head = "format: mpiete-cluster\nversion: 1\n";
  EXPECT_EQ(clusterError(Head + "ranks_per_node: 2\nnodes: 3\n"),
            "c.yaml:4:8: error: 'nodes' must be a list (got '3') [mpiete-cluster]\n");
  EXPECT_NE(
      clusterError(Head + "ranks_per_node: 2\nnodes: [3]\n").find("'nodes' must be a list of"),
      std::string::npos);
  EXPECT_NE(clusterError(Head + "ranks_per_node: [2]\n").find("'ranks_per_node' must be"),
            std::string::npos);
  EXPECT_NE(clusterError(Head + "ranks_per_node: 2.5\n").find("'ranks_per_node' must be"),
            std::string::npos);
  EXPECT_NE(
      clusterError(Head + "ranks_per_node: 2\nplacement: {a: b}\n").find("'placement' must be"),
      std::string::npos);
  EXPECT_NE(clusterError(Head + "ranks_per_node: 2\nlink_bandwidth: .inf\n")
                .find("'link_bandwidth' must be a finite number"),
            std::string::npos);
  EXPECT_NE(clusterError(Head + "ranks_per_node: 2\nlink_bandwidth: .nan\n")
                .find("'link_bandwidth' must be a finite number"),
            std::string::npos);
  EXPECT_NE(clusterError(Head + "ranks_per_node: 2\ninter_node_network: [a]\n")
                .find("'inter_node_network' must be a file name"),
            std::string::npos);
}

TEST(BadInputTest, BlockMapShapes) {
  // Finding 1 and 5: a single word, wrong types; a located error, never a throw.
  EXPECT_EQ(blockMapError("word"),
            "b.yaml:1:1: error: header: a map expected, found 'word' [mpiete-block-map]\n");
  EXPECT_NE(blockMapError("format: mpiete-blocks\nversion: [1]\n").find("malformed 'version'"),
            std::string::npos);
  std::string Head = "format: mpiete-blocks\nversion: 1\n";
  EXPECT_EQ(blockMapError(Head + "units: 5\n"),
            "b.yaml:3:8: error: header: 'units' must be a list (got '5') [mpiete-block-map]\n");
  EXPECT_NE(blockMapError(Head + "units: [word]\n").find("unit 0: a map expected"),
            std::string::npos);
  std::string Unit = Head + "units:\n  - {unit: 0aa758c0, source: a.c, language: c, "
                            "content_hash: 12ab, blocks: BLOCKS}\n";
  EXPECT_NE(blockMapError(with(Unit, "BLOCKS", "3")).find("'blocks' must be a list"),
            std::string::npos);
  EXPECT_NE(blockMapError(with(Unit, "BLOCKS", "[{id: [1]}]")).find("malformed 'id'"),
            std::string::npos);
  EXPECT_NE(blockMapError(with(Unit, "BLOCKS",
                               "[{id: '0aa758c0:1', kind: compute, file: a.c, lines: x, "
                               "procedure: main}]"))
                .find("malformed 'lines'"),
            std::string::npos);
  EXPECT_NE(blockMapError(with(Unit, "BLOCKS",
                               "[{id: '0aa758c0:1', kind: compute, file: a.c, lines: [1, 2], "
                               "procedure: main, timed: [loop]}]"))
                .find("malformed 'timed'"),
            std::string::npos);
}

TEST(BadInputTest, CommProbeOutputValues) {
  std::string Good = "mpiete-comm-probe-begin 1\nranks 2\npairs 1\n"
                     "row 0 10 1e-6 1e-6 1e-6 1e-7 1e-7 1e-7 1e-7 1e-7 1e-7 1e-7 1e-7 1e-7\n"
                     "mpiete-comm-probe-end\n";
  CommProbeOutput Out;
  EXPECT_EQ(parseCommProbeOutput(Good, Out), "");
  for (auto [From, To] :
       std::vector<std::pair<std::string, std::string>>{{"row 0 10 1e-6", "row 0 10 nan"},
                                                        {"row 0 10 1e-6", "row 0 10 -1e-6"},
                                                        {"row 0 10 1e-6", "row -1 10 1e-6"},
                                                        {"row 0 10 1e-6", "row 0 0 1e-6"},
                                                        {"row 0 10 1e-6", "row 0 10 1e300"},
                                                        {"ranks 2", "ranks -3"},
                                                        {"pairs 1", "pairs 0"}}) {
    CommProbeOutput Bad;
    std::string E = parseCommProbeOutput(with(Good, From, To), Bad);
    EXPECT_NE(E.find("malformed comm probe line"), std::string::npos) << To << ": " << E;
  }
}
