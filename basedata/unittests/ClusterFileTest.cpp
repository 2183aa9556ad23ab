// cluster.yaml: written, read back and compared field by field; the reader's located errors.
#include "mpiete/basedata/ClusterFile.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete;

TEST(ClusterFileTest, RoundTripsEveryField) {
  ClusterSpec In;
  In.RanksPerNode = 4;
  In.Placement = ClusterPlacement::RoundRobin;
  In.Nodes = {{2, "fast.yaml", 3, 2}, {3, ""}};
  In.InterNodeNetwork = "net/ib.yaml";
  In.IntraNodeNetwork = "/abs/shm.yaml";
  In.Contention = ClusterContention::Fair;
  In.ContentionNetwork = "pairs.yaml";
  In.LinkBandwidth = 1.2345678901234e10;
  std::ostringstream OS, Errors;
  writeClusterSpec(OS, In);
  DiagnosticSink Diags(Errors);
  ClusterSpec Out;
  ASSERT_TRUE(parseClusterSpec("cluster.yaml", OS.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out.RanksPerNode, 4);
  EXPECT_EQ(Out.Placement, ClusterPlacement::RoundRobin);
  ASSERT_EQ(Out.Nodes.size(), 2u);
  EXPECT_EQ(Out.Nodes[0].Count, 2);
  EXPECT_EQ(Out.Nodes[0].Machine, "fast.yaml");
  EXPECT_EQ(Out.Nodes[0].RanksPerNode, 3);
  EXPECT_EQ(Out.Nodes[0].Cores, 2);
  EXPECT_EQ(Out.Nodes[1].Count, 3);
  EXPECT_EQ(Out.Nodes[1].Machine, "");
  EXPECT_EQ(Out.Nodes[1].RanksPerNode, 0); // the top-level one
  EXPECT_EQ(Out.Nodes[1].Cores, 0);
  EXPECT_EQ(Out.InterNodeNetwork, In.InterNodeNetwork);
  EXPECT_EQ(Out.IntraNodeNetwork, In.IntraNodeNetwork);
  EXPECT_EQ(Out.Contention, ClusterContention::Fair);
  EXPECT_EQ(Out.ContentionNetwork, In.ContentionNetwork);
  ASSERT_TRUE(Out.LinkBandwidth.has_value());
  EXPECT_EQ(*Out.LinkBandwidth, *In.LinkBandwidth);
  EXPECT_GT(Out.NodesAt.Line, 0u);
  EXPECT_GT(Out.ContentionNetworkAt.Line, 0u);

  // The defaults, and no contention.
  ClusterSpec Plain;
  Plain.RanksPerNode = 1;
  Plain.Contention = ClusterContention::None;
  std::ostringstream P;
  writeClusterSpec(P, Plain);
  ASSERT_TRUE(parseClusterSpec("plain.yaml", P.str(), Out, Diags)) << Errors.str();
  EXPECT_EQ(Out.Placement, ClusterPlacement::Block);
  EXPECT_TRUE(Out.Nodes.empty());
  EXPECT_TRUE(Out.InterNodeNetwork.empty());
  EXPECT_EQ(Out.Contention, ClusterContention::None);
  EXPECT_FALSE(Out.LinkBandwidth.has_value());
}

TEST(ClusterFileTest, ErrorsAreLocated) {
  auto Error = [](const std::string &Body) {
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    ClusterSpec S;
    EXPECT_FALSE(
        parseClusterSpec("c.yaml", "format: mpiete-cluster\nversion: 1\n" + Body, S, Diags));
    return Errors.str();
  };
  EXPECT_NE(Error("placement: block\n").find("'ranks_per_node' (> 0) is required"),
            std::string::npos);
  EXPECT_NE(Error("ranks_per_node: 2\nplacement: spread\n")
                .find("c.yaml:4:12: error: placement must be 'block' or 'round-robin'"),
            std::string::npos);
  EXPECT_NE(Error("ranks_per_node: 2\nnodes:\n  - {count: 0}\n")
                .find("c.yaml:5:5: error: a node type needs 'count' > 0 [mpiete-cluster]"),
            std::string::npos);
  EXPECT_NE(Error("ranks_per_node: 2\nnodes:\n  - {count: 1, ranks_per_node: 0}\n")
                .find("c.yaml:5:32: error: 'ranks_per_node' must be a whole number in [1, "
                      "16777216] (got '0')"),
            std::string::npos);
  EXPECT_NE(Error("ranks_per_node: 2\nnodes:\n  - {count: 1, cores: two}\n")
                .find("c.yaml:5:23: error: 'cores' must be a whole number"),
            std::string::npos);
  EXPECT_NE(
      Error("ranks_per_node: 2\ncontention: maybe\n").find("contention must be 'fair' or 'none'"),
      std::string::npos);
  EXPECT_NE(Error("ranks_per_node: 2\nlink_bandwidth: -1\n").find("'link_bandwidth' must be"),
            std::string::npos);
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  ClusterSpec S;
  EXPECT_FALSE(parseClusterSpec("c.yaml", "format: mpiete-network\nversion: 1\n", S, Diags));
  EXPECT_NE(Errors.str().find("not a cluster file"), std::string::npos);
}

TEST(ClusterFileTest, PathsAreRelativeToTheClusterFile) {
  EXPECT_EQ(clusterPath("runs/cluster.yaml", "a.yaml"), "runs/a.yaml");
  EXPECT_EQ(clusterPath("runs/cluster.yaml", "/data/a.yaml"), "/data/a.yaml");
  EXPECT_EQ(clusterPath("cluster.yaml", "a.yaml"), "a.yaml");
}
