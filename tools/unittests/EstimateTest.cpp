// `mpiete estimate` end to end on trace files written by the runtime's own TraceWriter and
// hand-written machine, network and cluster files.
#include "PingPong.h"
#include "mpiete/tools/Commands.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mpiete;
using namespace mpiete::pingpong;

namespace {
/// The ping-pong's network: T(k) = 1000 + k ns, o_s = 10 ns, o_r = 20 ns; S (first synchronous
/// size) 1025.
void writePingPongNetwork(const std::string &Dir) {
  std::ofstream N(Dir + "/network.yaml");
  N << "format: mpiete-network\nversion: 1\ntable:\n  columns: [bytes, recv_s]\n"
       "  rows: [[0, 1.0e-6], [1024, 2.024e-6]]\n"
       "loggps: {L: 9.7e-7, o_s: 1.0e-8, o_s_per_byte: 0, o_r: 2.0e-8, o_r_per_byte: 0, "
       "g: 0, G: 1.0e-9, G_eager: 1.0e-9, S: 1025}\n";
}

/// Block 3 takes 100 ns on both ranks.
void writePingPongMachine(const std::string &Dir) {
  std::ofstream M(Dir + "/machine.yaml");
  M << "format: mpiete-compute\nversion: 1\nranks:\n"
       "  - {rank: 0, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n"
       "  - {rank: 1, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n";
}
} // namespace

TEST(EstimateCommandTest, PredictsThePingPongFromFiles) {
  std::string Dir = tempDir("command");
  writePingPong(Dir);
  writePingPongMachine(Dir);
  writePingPongNetwork(Dir);
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

TEST(EstimateCommandTest, ABrokenBlockMapIsAnErrorAMissingOneAWarning) {
  // Issue 14, finding 5: a blocks.yaml that is a single word printed an error and exited 0.
  std::string Dir = tempDir("blockmap");
  writePingPong(Dir);
  writePingPongMachine(Dir);
  writePingPongNetwork(Dir);
  CommandArgs Args = {
      "--program",           Dir,  "--machine",     Dir + "/machine.yaml", "--network",
      Dir + "/network.yaml", "-o", Dir + "/out.txt"};
  testing::internal::CaptureStderr();
  EXPECT_EQ(runEstimate(Args), 0);
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("warning: no blocks.yaml in the program base data"), std::string::npos) << Err;
  {
    std::ofstream B(Dir + "/blocks.yaml");
    B << "word\n";
  }
  testing::internal::CaptureStderr();
  EXPECT_EQ(runEstimate(Args), 1);
  Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find(Dir + "/blocks.yaml:"), std::string::npos) << Err;
  EXPECT_NE(Err.find("error:"), std::string::npos) << Err;
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
  writePingPongNetwork(Dir);
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
  writePingPongNetwork(Dir);
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
  EXPECT_NE(Err.find("cluster.yaml:5:3: error: the node types list 1 node holding 1 rank, but "
                     "the program has 2 [mpiete-cluster]"),
            std::string::npos)
      << Err;
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
      W->send(id(10), 1, 0, 0, 100000, trace::SendMode::Standard, trace::Context::User);
      W->send(id(10), 2, 0, 0, 100000, trace::SendMode::Standard, trace::Context::User);
      W->wait(id(11), trace::WaitOp::Waitall, 2);
      W->sendCompleted(1);
      W->sendCompleted(2);
    } else {
      W->recv(id(20), 0, 0, 0, 100000, trace::Context::User);
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

TEST(EstimateCommandTest, RegionInstancesWarmUpThenReal) {
  // Each rank runs the timed exchange twice: a warm-up (rank 0 computes block 3, 100 ns), then
  // for real (block 4, 1000 ns). The region is block 5 (the routine's entry, 0 ns) to the end
  // of the receive's wait (21).
  // Instance 1: rank 0 sends at 100 (arrives 1200), rank 1 replies at 1200 (arrives 2300):
  // 0 .. 2300. Instance 2: rank 1 starts it at 1210; rank 0 at 2300 computes to 3300, sends
  // (arrives 4400), rank 1 replies at 4400 (arrives 5500): 1210 .. 5500, 4290 ns.
  std::string Dir = tempDir("instances");
  for (int Rank = 0; Rank < 2; ++Rank) {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(Rank, 2);
    W->init(id(1));
    const int Peer = 1 - Rank;
    for (uint64_t I = 0; I < 2; ++I) {
      const uint64_t Req = 2 * I + 1;
      W->block(id(5));
      if (Rank == 0) {
        W->block(id(I == 0 ? 3 : 4));
        W->send(id(10), Peer, 0, 0, 100, trace::SendMode::Standard, trace::Context::User);
        W->wait(id(11), trace::WaitOp::Wait, 1);
        W->sendCompleted(Req);
        W->recv(id(20), Peer, 0, 0, 100, trace::Context::User);
        W->wait(id(21), trace::WaitOp::Wait, 1);
        W->recvCompleted(Req + 1, Peer, 0, 100);
      } else {
        W->recv(id(20), Peer, 0, 0, 100, trace::Context::User);
        W->wait(id(21), trace::WaitOp::Wait, 1);
        W->recvCompleted(Req, Peer, 0, 100);
        W->send(id(10), Peer, 0, 0, 100, trace::SendMode::Standard, trace::Context::User);
        W->wait(id(11), trace::WaitOp::Wait, 1);
        W->sendCompleted(Req + 1);
      }
    }
    W->finalize(id(2));
    W->finish();
  }
  {
    std::ofstream M(Dir + "/machine.yaml");
    M << "format: mpiete-compute\nversion: 2\npartition: blocks\nranks:\n";
    for (int R = 0; R < 2; ++R)
      M << "  - {rank: " << R
        << ", blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}, "
           "{id: \"0aa758c0:4\", kind: block, mean_seconds: 1.0e-6}, "
           "{id: \"0aa758c0:5\", kind: block, mean_seconds: 0}]}\n";
    writePingPongNetwork(Dir);
  }
  auto Run = [&](std::vector<std::string> Extra) {
    std::vector<std::string> Args = {"--program", Dir,
                                     "--machine", Dir + "/machine.yaml",
                                     "--network", Dir + "/network.yaml",
                                     "--format",  "yaml",
                                     "--region",  "0aa758c0:5,0aa758c0:21",
                                     "-o",        Dir + "/estimate.yaml"};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    return runEstimate(Args);
  };
  ASSERT_EQ(Run({}), 0);
  YAML::Node Y = YAML::LoadFile(Dir + "/estimate.yaml");
  EXPECT_EQ(Y["region_instance"].as<std::string>(), "all");
  EXPECT_EQ(Y["predicted_seconds"].as<std::string>(), "0.000006590");
  EXPECT_EQ(Y["instances_total_seconds"].as<std::string>(), "0.000006590");
  ASSERT_EQ(Y["instances"].size(), 2u);
  EXPECT_EQ(Y["instances"][0]["predicted_seconds"].as<std::string>(), "0.000002300");
  EXPECT_EQ(Y["instances"][1]["predicted_seconds"].as<std::string>(), "0.000004290");
  EXPECT_EQ(Y["instances"][1]["start_seconds"].as<std::string>(), "0.000001210");

  ASSERT_EQ(Run({"--region-instance", "last"}), 0);
  Y = YAML::LoadFile(Dir + "/estimate.yaml");
  EXPECT_EQ(Y["region_instance"].as<std::string>(), "last");
  EXPECT_EQ(Y["predicted_seconds"].as<std::string>(), "0.000004290");
  EXPECT_EQ(Y["ranks"][0]["compute_seconds"].as<std::string>(), "0.000001000");
  ASSERT_EQ(Run({"--region-instance", "first"}), 0);
  Y = YAML::LoadFile(Dir + "/estimate.yaml");
  EXPECT_EQ(Y["predicted_seconds"].as<std::string>(), "0.000002300");
  ASSERT_EQ(Run({"--region-instance", "2"}), 0);
  Y = YAML::LoadFile(Dir + "/estimate.yaml");
  EXPECT_EQ(Y["predicted_seconds"].as<std::string>(), "0.000004290");
  EXPECT_EQ(Run({"--region-instance", "3"}), 1);
  EXPECT_EQ(Run({"--region-instance", "0"}), 1);
  std::filesystem::remove_all(Dir);
}

// The cost of prediction: the probes' wall times as they recorded them (probe.yaml beside the
// traces, probe_seconds in the machine file's provenance), or as given, against the predicted
// run time (2.3 us for the ping-pong).
TEST(EstimateCommandTest, ReportsTheCostOfPrediction) {
  std::string Dir = tempDir("cost");
  writePingPong(Dir);
  writePingPongNetwork(Dir);
  {
    std::ofstream M(Dir + "/machine.yaml");
    M << "format: mpiete-compute\nversion: 1\nprovenance: {probe_seconds: 0.0023}\nranks:\n"
         "  - {rank: 0, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n"
         "  - {rank: 1, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n";
  }
  const std::string Out = Dir + "/estimate.yaml", Text = Dir + "/estimate.txt";
  std::vector<std::string> Args = {"--program", Dir,
                                   "--machine", Dir + "/machine.yaml",
                                   "--network", Dir + "/network.yaml",
                                   "--format",  "yaml",
                                   "-o",        Out};
  // Without the trace probe's time there is no cost to report.
  ASSERT_EQ(runEstimate(Args), 0);
  EXPECT_FALSE(YAML::LoadFile(Out)["provenance"]["prediction_cost_ratio"]);
  {
    std::ofstream P(Dir + "/probe.yaml");
    P << "format: mpiete-probe-run\nversion: 1\nprobe: trace\nvariant: skeleton\n"
         "wall_seconds: 0.0023\n";
  }
  ASSERT_EQ(runEstimate(Args), 0);
  YAML::Node P = YAML::LoadFile(Out)["provenance"];
  EXPECT_EQ(P["trace_probe_seconds"].as<std::string>(), "0.0023");
  EXPECT_EQ(P["timing_probe_seconds"].as<std::string>(), "0.0023");
  EXPECT_EQ(P["prediction_cost_ratio"].as<std::string>(), "2000");
  // Given on the command line, in the text report.
  Args.back() = Text;
  Args[7] = "text";
  Args.insert(Args.end(), {"--probe-seconds", "0.0046,0.0023"});
  ASSERT_EQ(runEstimate(Args), 0);
  std::ifstream T(Text);
  std::string Report((std::istreambuf_iterator<char>(T)), std::istreambuf_iterator<char>());
  EXPECT_NE(Report.find("cost of prediction: trace probe 0.0046 s + timing probe 0.0023 s = "
                        "0.0069 s, 3e+03 times the predicted run time"),
            std::string::npos)
      << Report;
  Args.back() = "1,x";
  EXPECT_EQ(runEstimate(Args), 1);
}

// Issue 13: what the network file does not price is said once, on stderr; the exchange
// tables' shares are recorded in the YAML provenance (docs/estimator.md, "Endpoints").
TEST(EstimateCommandTest, NotesWhatTheNetworkFileDoesNotPriceAndRecordsTheShares) {
  std::string Dir = tempDir("exchange");
  writePingPong(Dir);
  writePingPongMachine(Dir);
  writePingPongNetwork(Dir);
  const std::string Out = Dir + "/estimate.yaml";
  CommandArgs Args = {"--program", Dir,
                      "--machine", Dir + "/machine.yaml",
                      "--network", Dir + "/network.yaml",
                      "--format",  "yaml",
                      "-o",        Out};
  testing::internal::CaptureStderr();
  ASSERT_EQ(runEstimate(Args), 0);
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("note: no exchange table (a probe-comm before it): a rank's simultaneous "
                     "transfers within a node stream as if each were alone"),
            std::string::npos)
      << Err;
  EXPECT_FALSE(YAML::LoadFile(Out)["provenance"]["exchange_share"]);
  // T(2048) = 3048 ns, 2048 of them streaming: an exchange of 3560 ns keeps 2048 / 2560 = 0.8.
  {
    std::ofstream N(Dir + "/network.yaml", std::ios::app);
    N << "exchange:\n  columns: [bytes, exchange_s]\n  rows: [[2048, 3.56e-6]]\n";
  }
  testing::internal::CaptureStderr();
  ASSERT_EQ(runEstimate(Args), 0);
  Err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Err.find("no exchange table"), std::string::npos) << Err;
  YAML::Node P = YAML::LoadFile(Out)["provenance"];
  EXPECT_EQ(P["exchange_share"].as<std::string>(), "0.8");
  EXPECT_EQ(P["packed_exchange_share"].as<std::string>(), "0.8");
  // The ping-pong's messages go one at a time: the prediction is unchanged.
  EXPECT_EQ(YAML::LoadFile(Out)["predicted_seconds"].as<std::string>(), "0.000002300");
}
