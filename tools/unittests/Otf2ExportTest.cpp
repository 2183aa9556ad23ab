// `mpiete estimate --otf2` and `mpiete whatif --otf2-before/--otf2-after`: the ping-pong's
// predicted run as an OTF2 archive, read back by otf2-print (otf2-tools), the reader other OTF2
// tools share.
#include "PingPong.h"
#include "mpiete/tools/Commands.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace mpiete;
using namespace mpiete::pingpong;

namespace {

std::string run(const std::string &Command) {
  std::string Out;
  if (FILE *P = ::popen(Command.c_str(), "r")) {
    char Buf[4096];
    for (size_t N; (N = std::fread(Buf, 1, sizeof Buf, P)) > 0;)
      Out.append(Buf, N);
    if (::pclose(P) != 0)
      Out += "\n(exit status not 0)";
  }
  return Out;
}

/// A directory with the ping-pong's base data: 100 ns blocks, the table network of EstimateTest.
std::string pingPongBaseData(const char *Name) {
  std::string Dir = tempDir(Name);
  writePingPong(Dir);
  {
    std::ofstream M(Dir + "/machine.yaml");
    M << "format: mpiete-compute\nversion: 1\nranks:\n"
         "  - {rank: 0, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n"
         "  - {rank: 1, blocks: [{id: \"0aa758c0:3\", kind: block, mean_seconds: 1.0e-7}]}\n";
    std::ofstream N(Dir + "/network.yaml");
    N << "format: mpiete-network\nversion: 1\ntable:\n  columns: [bytes, recv_s]\n"
         "  rows: [[0, 1.0e-6], [1024, 2.024e-6]]\n"
         "loggps: {L: 9.7e-7, o_s: 1.0e-8, o_s_per_byte: 0, o_r: 2.0e-8, o_r_per_byte: 0, "
         "g: 0, G: 1.0e-9, G_eager: 1.0e-9, S: 1025}\n";
  }
  return Dir;
}

/// otf2-print's event lines, one space between columns so the lines below read as its own.
std::string events(const std::string &Archive) {
  std::string Events = run(OTF2_PRINT " " + Archive + "/traces.otf2 2>&1");
  for (size_t P; (P = Events.find("  ")) != std::string::npos;)
    Events.erase(P, 1);
  return Events;
}

TEST(Otf2ExportTest, OtfPrintReadsThePredictedPingPong) {
  if (run("command -v " OTF2_PRINT).empty())
    GTEST_SKIP() << OTF2_PRINT " is not installed (Debian: otf2-tools)";
  const std::string Dir = pingPongBaseData("otf2");
  const std::string Archive = Dir + "/otf2";
  ASSERT_EQ(runEstimate({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                         Dir + "/network.yaml", "-o", Dir + "/estimate.txt", "--otf2", Archive,
                         "--timeline", Dir + "/timeline.json"}),
            0);
  const std::string Events = events(Archive);
  EXPECT_EQ(Events.find("status not 0"), std::string::npos) << Events;
  // EstimateTest's ping-pong: rank 0 computes 0..100, sends (100..110, arrives 1200), posts the
  // receive (110..130) and waits for the reply arriving at 2300; rank 1 posts at 0 (0..20),
  // waits until 1200 and replies (1200..1210).
  size_t At = 0;
  for (const char *Line : {
           "ENTER 0 0 Region: \"compute 0aa758c0:3\" <0>",
           "ENTER 1 0 Region: \"comm 0aa758c0:20\" <2>",
           "LEAVE 1 20 Region: \"comm 0aa758c0:20\" <2>",
           "ENTER 1 20 Region: \"wait 0aa758c0:21\" <3>",
           "LEAVE 0 100 Region: \"compute 0aa758c0:3\" <0>",
           "ENTER 0 100 Region: \"comm 0aa758c0:10\" <1>",
           "MPI_SEND 0 100 Receiver: 1 (\"rank 1\" <1>), Communicator: \"MPI_COMM_WORLD\" <0>, "
           "Tag: 0, Length: 100",
           "LEAVE 0 110 Region: \"comm 0aa758c0:10\" <1>",
           "ENTER 0 130 Region: \"wait 0aa758c0:21\" <3>",
           "MPI_RECV 1 1200 Sender: 0 (\"rank 0\" <0>), Communicator: \"MPI_COMM_WORLD\" <0>, "
           "Tag: 0, Length: 100",
           "LEAVE 1 1200 Region: \"wait 0aa758c0:21\" <3>",
           "MPI_SEND 1 1200 Receiver: 0 (\"rank 0\" <0>)",
           "LEAVE 1 1210 Region: \"comm 0aa758c0:10\" <1>",
           "MPI_RECV 0 2300 Sender: 1 (\"rank 1\" <1>)",
           "LEAVE 0 2300 Region: \"wait 0aa758c0:21\" <3>",
       }) {
    size_t P = Events.find(Line, At);
    ASSERT_NE(P, std::string::npos) << "missing, or out of order: " << Line << "\n" << Events;
    At = P;
  }
  // The definitions: a location per rank, in a process each.
  const std::string Defs = run(OTF2_PRINT " -G " + Archive + "/traces.otf2 2>&1");
  EXPECT_NE(Defs.find("\"rank 1\""), std::string::npos) << Defs;
  EXPECT_NE(Defs.find("MPI_COMM_WORLD"), std::string::npos) << Defs;

  // A second export into the same directory replaces the first (OTF2 itself refuses).
  ASSERT_EQ(runEstimate({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                         Dir + "/network.yaml", "-o", Dir + "/estimate.txt", "--otf2", Archive}),
            0);
}

TEST(Otf2ExportTest, WhatIfWritesTheRunBeforeAndAfter) {
  if (run("command -v " OTF2_PRINT).empty())
    GTEST_SKIP() << OTF2_PRINT " is not installed (Debian: otf2-tools)";
  const std::string Dir = pingPongBaseData("otf2-whatif");
  // The network's latency doubled (the table's zero-byte time, 1 us, counts twice): rank 0's
  // 100-byte message arrives 1 us later than in the predicted run, at 2200, and the reply too.
  ASSERT_EQ(runWhatIf({"--program", Dir, "--machine", Dir + "/machine.yaml", "--network",
                       Dir + "/network.yaml", "-o", Dir + "/whatif.txt", "--latency", "2",
                       "--otf2-before", Dir + "/before", "--otf2-after", Dir + "/after"}),
            0);
  const std::string Before = events(Dir + "/before");
  EXPECT_EQ(Before.find("status not 0"), std::string::npos) << Before;
  for (const char *Line : {"MPI_RECV 1 1200 Sender: 0", "MPI_RECV 0 2300 Sender: 1"})
    EXPECT_NE(Before.find(Line), std::string::npos) << Line << "\n" << Before;
  const std::string After = events(Dir + "/after");
  EXPECT_EQ(After.find("status not 0"), std::string::npos) << After;
  for (const char *Line :
       {"MPI_RECV 1 2200 Sender: 0", "MPI_SEND 1 2200 Receiver: 0", "MPI_RECV 0 4300 Sender: 1"})
    EXPECT_NE(After.find(Line), std::string::npos) << Line << "\n" << After;
}

} // namespace
