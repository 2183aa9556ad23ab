// The base data readers: trace files written by the runtime's own TraceWriter replayed end to
// end with exactly known times, and network.yaml in the layout `mpiete probe-comm` writes.
#include "mpiete/estimator/BaseData.h"
#include "TraceWriter.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/tools/Commands.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mpiete;
using namespace mpiete::estimator;

namespace {

constexpr uint32_t Unit = 0x0aa758c0;
constexpr mpiete_site_t id(uint32_t I) { return MPIETE_ID(Unit, I); }

std::string tempDir(const char *Name) {
  auto Dir = std::filesystem::temp_directory_path() /
             ("mpiete-est-test-" + std::to_string(::getpid()) + "-" + Name);
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  return Dir.string();
}

/// An MPI_Send / MPI_Recv ping-pong of 100 bytes between two ranks, as the trace probe
/// records it (split starts and waits), with a compute block on rank 0 and one after Finalize.
void writePingPong(const std::string &Dir) {
  for (int Rank = 0; Rank < 2; ++Rank) {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(Rank, 2);
    W->init(id(1));
    int Peer = 1 - Rank;
    if (Rank == 0) {
      W->block(id(3));
      W->send(id(10), Peer, 0, 0, 100, 1, trace::SendMode::Standard, trace::Context::User);
      W->wait(id(11), trace::WaitOp::Wait, 1);
      W->sendCompleted(1);
      W->commFree(id(12), 77); // bookkeeping the estimator skips
      W->recv(id(20), trace::AnySource, 0, 0, 100, 2, trace::Context::User);
      W->wait(id(21), trace::WaitOp::Wait, 1);
      W->recvCompleted(2, 1, 0, 100);
    } else {
      W->recv(id(20), 0, 0, 0, 100, 1, trace::Context::User);
      W->wait(id(21), trace::WaitOp::Wait, 1);
      W->recvCompleted(1, 0, 0, 100);
      W->wait(id(22), trace::WaitOp::Test, 0);
      W->send(id(10), Peer, 0, 0, 100, 2, trace::SendMode::Standard, trace::Context::User);
      W->wait(id(11), trace::WaitOp::Wait, 1);
      W->sendCompleted(2);
    }
    W->finalize(id(2));
    W->block(id(3));
    W->finish();
  }
}

} // namespace

TEST(BaseDataTest, ReplaysTraceFilesOfARealWriter) {
  std::string Dir = tempDir("pingpong");
  writePingPong(Dir);
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::vector<std::unique_ptr<TraceEventSource>> Traces;
  ASSERT_TRUE(openTraceDirectory(Dir, Diags, Traces)) << Errors.str();
  ASSERT_EQ(Traces.size(), 2u);

  TableComputeModel Compute;
  Compute.setTime(Compute.addMachine(), id(3), 100e-9);
  auto Link = std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1000e-9}, {1024, 2024e-9}}, 10e-9, 20e-9, 1024);
  ClusterNetworkModel Net(Link);
  std::vector<EventSource *> Sources{Traces[0].get(), Traces[1].get()};
  Engine E(Compute, Net);
  EstimateResult R = E.run(Sources);
  ASSERT_TRUE(R.Ok) << (R.Errors.empty() ? "" : R.Errors[0].Message);
  // The hand-worked ping-pong of EngineTest.EagerPingPong, inside Init .. Finalize: 2300 ns;
  // the compute block after Finalize is outside the region.
  EXPECT_EQ(R.Predicted, 2300);
  EXPECT_EQ(R.Ranks[0].Compute, 100);
  EXPECT_EQ(R.Ranks[1].Wait, 1180);
  EXPECT_EQ(R.NondeterministicReceives, 0u);
}

TEST(BaseDataTest, MissingRankFileIsReported) {
  std::string Dir = tempDir("missing");
  writePingPong(Dir);
  std::filesystem::remove(Dir + "/rank1.trace");
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::vector<std::unique_ptr<TraceEventSource>> Traces;
  EXPECT_FALSE(openTraceDirectory(Dir, Diags, Traces));
  EXPECT_NE(Errors.str().find("rank1.trace"), std::string::npos) << Errors.str();
}

TEST(BaseDataTest, TruncatedTraceStopsTheEstimate) {
  std::string Dir = tempDir("truncated");
  writePingPong(Dir);
  std::filesystem::resize_file(Dir + "/rank1.trace",
                               std::filesystem::file_size(Dir + "/rank1.trace") - 3);
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::vector<std::unique_ptr<TraceEventSource>> Traces;
  ASSERT_TRUE(openTraceDirectory(Dir, Diags, Traces)) << Errors.str();
  TableComputeModel Compute;
  Compute.setTime(Compute.addMachine(), id(3), 100e-9);
  ClusterNetworkModel Net(
      std::make_shared<TableLinkModel>(std::vector<TableLinkModel::Point>{{0, 1e-6}}, 0, 0, 1024));
  std::vector<EventSource *> Sources{Traces[0].get(), Traces[1].get()};
  Engine E(Compute, Net);
  EstimateResult R = E.run(Sources);
  EXPECT_FALSE(R.Ok);
  ASSERT_FALSE(R.Errors.empty());
  EXPECT_NE(R.Errors[0].Message.find("the trace ends on a read error"), std::string::npos);
  EXPECT_NE(Errors.str().find("truncated"), std::string::npos) << Errors.str();
}

namespace {
// The layout `mpiete probe-comm` writes (h-driver's writeNetworkYaml), trimmed.
const char *NetworkText = R"(# mpiete communication base data (docs/probes.md)
format: mpiete-network
version: 1
class: inter-node
provenance: {tool: mpiete 0.1.0, date: 2026-11-21T00:00:00Z}
table:
  columns: [bytes, recv_s, recv_p10_s, recv_p90_s, isend_start_s, irecv_start_s, recv_arrived_s, repetitions]
  rows:
    - [0, 1.0e-6, 0, 0, 0, 0, 0, 10]
    - [100, 1.1e-6, 0, 0, 0, 0, 0, 10]
    - [200, 1.3e-6, 0, 0, 0, 0, 0, 10]
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
} // namespace

TEST(BaseDataTest, NetworkYamlTable) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  auto L = parseNetworkYaml("network.yaml", NetworkText, NetworkModelKind::Table, Diags);
  ASSERT_TRUE(L) << Errors.str();
  EXPECT_EQ(L->transfer(50), 1050);
  EXPECT_EQ(L->transfer(300), 1500); // along the last segment
  EXPECT_EQ(L->sendOverhead(100), 10);
  EXPECT_EQ(L->recvOverhead(1000), 30); // 20 + 1000 x 0.01
  EXPECT_EQ(L->gap(), 4);
  EXPECT_EQ(L->eagerLimit(), 149u); // the file's S is the first synchronous size
}

TEST(BaseDataTest, NetworkYamlLogGPS) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  auto L = parseNetworkYaml("network.yaml", NetworkText, NetworkModelKind::LogGPS, Diags);
  ASSERT_TRUE(L) << Errors.str();
  EXPECT_EQ(L->transfer(100), 1030 + 50);        // o_s + L + o_r + 100 G_eager
  EXPECT_EQ(L->transfer(1000), 3 * 1030 + 1000); // rendezvous: + round trip, 1000 G
}

TEST(BaseDataTest, NetworkYamlErrorsAreLocated) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::string Bad = NetworkText;
  Bad.replace(Bad.find("L: 1.0e-6"), 9, "L: fast");
  EXPECT_FALSE(parseNetworkYaml("network.yaml", Bad, NetworkModelKind::Table, Diags));
  EXPECT_NE(Errors.str().find("network.yaml:13:6: error: "), std::string::npos) << Errors.str();
  EXPECT_NE(Errors.str().find("'L' is not a number [mpiete-network]"), std::string::npos)
      << Errors.str();
  std::ostringstream E2;
  DiagnosticSink D2(E2);
  EXPECT_FALSE(parseNetworkYaml("x.yaml", "format: other\n", NetworkModelKind::Table, D2));
  EXPECT_NE(E2.str().find("not a network file"), std::string::npos) << E2.str();
}

namespace {
// The layout `mpiete probe-compute` writes (h-token's machine.yaml), trimmed.
const char *MachineText = R"(# mpiete compute base data
format: mpiete-compute
version: 1
provenance: {program: ./app.timing, ranks: 2}
timer_overhead_seconds: 2.0e-8
ranks:
  - rank: 0
    timer_overhead_seconds: 2.0e-8
    blocks:
      - {id: "0aa758c0:3", kind: block, executions: 10, mean_seconds: 1.0e-7, stddev_seconds: 0, min_seconds: 0, max_seconds: 0}
      - {id: "0aa758c0:7", kind: loop, executions: 2, iterations: 2000, mean_seconds: 2.5e-9, stddev_seconds: 0, min_seconds: 0, max_seconds: 0}
  - rank: 1
    timer_overhead_seconds: 2.0e-8
    blocks:
      - {id: "0aa758c0:3", kind: block, executions: 10, mean_seconds: 2.0e-7, stddev_seconds: 0, min_seconds: 0, max_seconds: 0}
)";
} // namespace

TEST(BaseDataTest, MachineYaml) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  TableComputeModel M;
  ASSERT_TRUE(parseMachineYaml("machine.yaml", MachineText, M, Diags)) << Errors.str();
  EXPECT_EQ(M.secondsPerExecution(0, id(3)), 1.0e-7);
  EXPECT_EQ(M.secondsPerExecution(1, id(3)), 2.0e-7);
  EXPECT_EQ(M.secondsPerExecution(0, id(7)), 2.5e-9);
  // Rank 1 never ran block 7: the mean of the ranks that did (a nondeterministic program).
  EXPECT_EQ(M.secondsPerExecution(1, id(7)), 2.5e-9);
  EXPECT_FALSE(M.secondsPerExecution(1, id(99)).has_value());

  std::string Bad = MachineText;
  Bad.replace(Bad.find("0aa758c0:7"), 10, "0aa758c0-7");
  TableComputeModel M2;
  EXPECT_FALSE(parseMachineYaml("machine.yaml", Bad, M2, Diags));
  EXPECT_NE(Errors.str().find("machine.yaml:11:9: error: bad block id"), std::string::npos)
      << Errors.str();
}

TEST(EstimateCommandTest, PredictsThePingPongFromFiles) {
  std::string Dir = tempDir("command");
  writePingPong(Dir);
  {
    std::ofstream M(Dir + "/machine.yaml");
    M << "format: mpiete-compute\nversion: 1\nranks:\n"
         "  - {rank: 0, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n"
         "  - {rank: 1, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n";
    // T(k) = 1000 + k ns, o_s = 10 ns, o_r = 20 ns; S (first synchronous size) 1025.
    std::ofstream N(Dir + "/network.yaml");
    N << "format: mpiete-network\nversion: 1\ntable:\n  columns: [bytes, recv_s]\n"
         "  rows: [[0, 1.0e-6], [1024, 2.024e-6]]\n"
         "loggps: {L: 9.7e-7, o_s: 1.0e-8, o_s_per_byte: 0, o_r: 2.0e-8, o_r_per_byte: 0, "
         "g: 0, G: 1.0e-9, G_eager: 1.0e-9, S: 1025}\n";
  }
  std::string Out = Dir + "/estimate.yaml", Timeline = Dir + "/timeline.json";
  int Status =
      runEstimate({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                   Dir + "/network.yaml", "--format", "yaml", "-o", Out, "--timeline", Timeline});
  ASSERT_EQ(Status, 0);
  YAML::Node Y = YAML::LoadFile(Out);
  EXPECT_EQ(Y["predicted_seconds"].as<std::string>(), "0.000002300");
  ASSERT_EQ(Y["ranks"].size(), 2u);
  EXPECT_EQ(Y["ranks"][1]["rank"].as<int>(), 1);
  EXPECT_EQ(Y["ranks"][1]["wait_seconds"].as<std::string>(), "0.000001180");
  EXPECT_EQ(Y["ranks"][0]["compute_seconds"].as<std::string>(), "0.000000100");
  std::ifstream T(Timeline);
  std::string Text((std::istreambuf_iterator<char>(T)), std::istreambuf_iterator<char>());
  EXPECT_NE(Text.find("\"name\":\"wait 0aa758c0:21\""), std::string::npos);

  // JSON, and the LogGPS model: T(100) = o_s + L + o_r + 100 G = 1100 ns as well.
  std::string Json = Dir + "/estimate.json";
  ASSERT_EQ(
      runEstimate({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                   Dir + "/network.yaml", "--format", "json", "--model", "loggps", "-o", Json}),
      0);
  YAML::Node J = YAML::LoadFile(Json); // JSON is YAML
  EXPECT_EQ(J["predicted_seconds"].as<std::string>(), "0.000002300");

  // Both ranks on one node: the cluster's intra-node network, here a 10x faster one.
  {
    std::ofstream C(Dir + "/cluster.yaml");
    C << "format: mpiete-cluster\nversion: 1\nranks_per_node: 2\nintra_node_network: shm.yaml\n";
    std::ofstream N(Dir + "/shm.yaml");
    N << "format: mpiete-network\nversion: 1\ntable:\n  columns: [bytes, recv_s]\n"
         "  rows: [[0, 1.0e-7], [1000, 2.0e-7]]\n"
         "loggps: {L: 7.0e-8, o_s: 1.0e-8, o_s_per_byte: 0, o_r: 2.0e-8, o_r_per_byte: 0, "
         "g: 0, G: 1.0e-10, G_eager: 1.0e-10, S: null}\n";
  }
  // T(100) = 110 ns: rank 1 done at 210, replies at 210 (-> 220), arrives 320 at rank 0.
  ASSERT_EQ(runEstimate({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                         Dir + "/network.yaml", "--cluster", Dir + "/cluster.yaml", "--format",
                         "yaml", "-o", Out}),
            0);
  EXPECT_EQ(YAML::LoadFile(Out)["predicted_seconds"].as<std::string>(), "0.000000320");

  EXPECT_EQ(runEstimate({"--program", Dir, "--network", Dir + "/network.yaml"}), 1);
}

TEST(EstimateCommandTest, BaseDataOfAnotherBuildIsRefused) {
  std::string Dir = tempDir("fingerprint");
  ::setenv("MPIETE_FINGERPRINT", "49d39c21a20b06d6", 1);
  writePingPong(Dir);
  ::unsetenv("MPIETE_FINGERPRINT");
  auto Machine = [&](const char *Fingerprint) {
    std::ofstream M(Dir + "/machine.yaml");
    M << "format: mpiete-compute\nversion: 1\nprovenance: {fingerprint: \"" << Fingerprint
      << "\"}\nranks:\n"
         "  - {rank: 0, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n"
         "  - {rank: 1, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n";
  };
  {
    std::ofstream N(Dir + "/network.yaml");
    N << "format: mpiete-network\nversion: 1\ntable:\n  columns: [bytes, recv_s]\n"
         "  rows: [[0, 1.0e-6], [1024, 2.024e-6]]\n"
         "loggps: {L: 9.7e-7, o_s: 1.0e-8, o_s_per_byte: 0, o_r: 2.0e-8, o_r_per_byte: 0, "
         "g: 0, G: 1.0e-9, G_eager: 1.0e-9, S: 1025}\n";
  }
  CommandArgs Args = {
      "--program",           Dir,  "--machine",     Dir + "/machine.yaml", "--network",
      Dir + "/network.yaml", "-o", Dir + "/out.txt"};
  Machine("49d39c21a20b06d6");
  EXPECT_EQ(runEstimate(Args), 0);
  Machine("0123456789abcdef");
  testing::internal::CaptureStderr();
  EXPECT_EQ(runEstimate(Args), 1);
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find(Dir + "/machine.yaml: error: compute base data of another build"),
            std::string::npos)
      << Err;
}

TEST(EstimateCommandTest, ClusterNodeTypesTakeTheirOwnMachineFile) {
  std::string Dir = tempDir("cluster");
  writePingPong(Dir);
  auto Machine = [&](const std::string &File, double Rank0Seconds, bool WithRank1) {
    std::ofstream M(Dir + "/" + File);
    M << "format: mpiete-compute\nversion: 1\nranks:\n"
         "  - {rank: 0, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: "
      << Rank0Seconds << "}]}\n";
    if (WithRank1)
      M << "  - {rank: 1, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n";
  };
  Machine("machine.yaml", 1.0e-7, true);
  Machine("slow.yaml", 3.0e-7, false); // only rank 0 measured there
  {
    std::ofstream N(Dir + "/network.yaml");
    N << "format: mpiete-network\nversion: 1\ntable:\n  columns: [bytes, recv_s]\n"
         "  rows: [[0, 1.0e-6], [1024, 2.024e-6]]\n"
         "loggps: {L: 9.7e-7, o_s: 1.0e-8, o_s_per_byte: 0, o_r: 2.0e-8, o_r_per_byte: 0, "
         "g: 0, G: 1.0e-9, G_eager: 1.0e-9, S: 1025}\n";
  }
  auto Cluster = [&](const std::string &Text) {
    std::ofstream C(Dir + "/cluster.yaml");
    C << "format: mpiete-cluster\nversion: 1\n" << Text;
  };
  std::string Out = Dir + "/estimate.yaml";
  CommandArgs Args = {"--program", Dir,
                      "--machine", Dir + "/machine.yaml",
                      "--network", Dir + "/network.yaml",
                      "--cluster", Dir + "/cluster.yaml",
                      "--format",  "yaml",
                      "-o",        Out};
  // Node 0 is of the slow type: rank 0's compute block takes 300 ns instead of 100 ns, and the
  // whole ping-pong (2300 ns with the default machine) ends 200 ns later.
  Cluster("ranks_per_node: 1\nnodes:\n  - {count: 1, machine: slow.yaml}\n  - {count: 1}\n");
  ASSERT_EQ(runEstimate(Args), 0);
  EXPECT_EQ(YAML::LoadFile(Out)["predicted_seconds"].as<std::string>(), "0.000002500");
  // Rank 1 on a slow node: slow.yaml has no data for rank 1, which is an error, not a guess.
  Cluster("ranks_per_node: 1\nnodes:\n  - {count: 1}\n  - {count: 1, machine: slow.yaml}\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(runEstimate(Args), 1);
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("no compute data for rank 1"), std::string::npos) << Err;
  // Too few nodes for the ranks.
  Cluster("ranks_per_node: 1\nnodes:\n  - {count: 1}\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(runEstimate(Args), 1);
  Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("need 2"), std::string::npos) << Err;
}

TEST(BaseDataTest, PairsDataGivesTheAggregateBandwidth) {
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
  EXPECT_NE(Errors.str().find("bad.yaml:3:21: error: 'pairs' must be a count"), std::string::npos)
      << Errors.str();
}

TEST(EstimateCommandTest, ClusterContentionKeys) {
  // Rank 0 sends 100,000 bytes eagerly to ranks 1 and 2, each on its own node: T(k) = 1000 +
  // k ns, no overheads, G = 1 ns per byte. Alone each arrives at 101,000; sharing node 0's
  // link (C = 1/G) both stream at half rate and arrive at 201,000.
  std::string Dir = tempDir("contention");
  for (int Rank = 0; Rank < 3; ++Rank) {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(Rank, 3);
    W->init(id(1));
    if (Rank == 0) {
      W->send(id(10), 1, 0, 0, 100000, 1, trace::SendMode::Standard, trace::Context::User);
      W->send(id(10), 2, 0, 0, 100000, 2, trace::SendMode::Standard, trace::Context::User);
      W->wait(id(11), trace::WaitOp::Waitall, 2);
      W->sendCompleted(1);
      W->sendCompleted(2);
    } else {
      W->recv(id(20), 0, 0, 0, 100000, 1, trace::Context::User);
      W->wait(id(21), trace::WaitOp::Wait, 1);
      W->recvCompleted(1, 0, 0, 100000);
    }
    W->finalize(id(2));
    W->finish();
  }
  {
    std::ofstream M(Dir + "/machine.yaml");
    M << "format: mpiete-compute\nversion: 1\nranks:\n  - {rank: 0, blocks: []}\n"
         "  - {rank: 1, blocks: []}\n  - {rank: 2, blocks: []}\n";
    std::ofstream N(Dir + "/network.yaml");
    N << "format: mpiete-network\nversion: 1\nprovenance: {pairs: 1}\n"
         "table:\n  columns: [bytes, recv_s]\n  rows: [[0, 1.0e-6], [1024, 2.024e-6]]\n"
         "loggps: {L: 1.0e-6, o_s: 0, o_s_per_byte: 0, o_r: 0, o_r_per_byte: 0, "
         "g: 0, G: 1.0e-9, G_eager: 1.0e-9, S: null}\n";
    // Four pairs at once reached 1.5e9 bytes per second together at the largest sizes.
    std::ofstream P(Dir + "/pairs.yaml");
    P << "format: mpiete-network\nversion: 1\nprovenance: {pairs: 4}\n"
         "table:\n  columns: [bytes, recv_s]\n  rows: [[1000000, "
      << 4e6 / 1.5e9 << "]]\n";
  }
  std::string Out = Dir + "/estimate.yaml";
  auto Predict = [&](const std::string &Keys) {
    std::ofstream C(Dir + "/cluster.yaml");
    C << "format: mpiete-cluster\nversion: 1\nranks_per_node: 1\n" << Keys;
    C.close();
    if (runEstimate({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                     Dir + "/network.yaml", "--cluster", Dir + "/cluster.yaml", "--format", "yaml",
                     "-o", Out}) != 0)
      return std::string("failed");
    return YAML::LoadFile(Out)["predicted_seconds"].as<std::string>();
  };
  EXPECT_EQ(Predict(""), "0.000201000");                   // default: fair, C = 1/G
  EXPECT_EQ(Predict("contention: none\n"), "0.000101000"); // every transfer at its own rate
  EXPECT_EQ(Predict("link_bandwidth: 2.0e9\n"), "0.000101000");
  // C = 1.5 bytes per ns: 0.75 each, 100,000 bytes stream in 133,333 ns.
  EXPECT_EQ(Predict("contention_network: pairs.yaml\n"), "0.000134333");
  testing::internal::CaptureStderr();
  EXPECT_EQ(Predict("contention_network: network.yaml\n"), "failed");
  EXPECT_EQ(Predict("contention: maybe\n"), "failed");
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("was measured with one pair"), std::string::npos) << Err;
  EXPECT_NE(Err.find("contention must be 'fair' or 'none'"), std::string::npos) << Err;
}
