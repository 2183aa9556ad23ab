// The base data as the estimator's inputs: trace files written by the runtime's own TraceWriter
// replayed with exactly known times, network.yaml as link models and machine.yaml as a compute
// model (the files' own tests are basedata's).
#include "mpiete/estimator/BaseData.h"
#include "PingPong.h"
#include "SampleFiles.h"
#include "mpiete/estimator/Cluster.h"
#include "mpiete/estimator/Engine.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mpiete;
using namespace mpiete::estimator;
using namespace mpiete::pingpong;
using mpiete::samples::MachineText;
using mpiete::samples::NetworkText;

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

namespace {
/// Byte 10 of a trace is its world size (magic, version 2, rank, then the size;
/// docs/trace-format.md).
void setWorldSizeByte(const std::string &Path, char Size) {
  std::fstream F(Path, std::ios::in | std::ios::out | std::ios::binary);
  F.seekp(10);
  F.put(Size);
}

std::string openError(const std::string &Dir) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::vector<std::unique_ptr<TraceEventSource>> Traces;
  EXPECT_FALSE(openTraceDirectory(Dir, Diags, Traces));
  return Errors.str();
}
} // namespace

// Issue 14, finding 9: one flipped byte in a world size is one message naming both headers, not
// a "cannot open" per rank that never ran.
TEST(BaseDataTest, WorldSizesThatDisagreeAreOneMessage) {
  std::string Dir = tempDir("world");
  writePingPong(Dir);
  setWorldSizeByte(Dir + "/rank0.trace", 98);
  EXPECT_EQ(openError(Dir), Dir + "/rank0.trace: error: rank0.trace says 98 ranks, rank1.trace "
                                  "says 2 (a corrupt header, or rank files of two runs in one "
                                  "directory) [mpiete-estimate]\n");
  // Rank 1's header flipped instead: it names rank 1's file and both sizes.
  setWorldSizeByte(Dir + "/rank0.trace", 2);
  setWorldSizeByte(Dir + "/rank1.trace", 3);
  EXPECT_EQ(openError(Dir), Dir + "/rank1.trace: error: rank0.trace says 2 ranks, rank1.trace "
                                  "says 3 [mpiete-estimate]\n");
  // Rank 0 says 1: the directory has a rank it does not know.
  setWorldSizeByte(Dir + "/rank1.trace", 2);
  setWorldSizeByte(Dir + "/rank0.trace", 1);
  EXPECT_NE(openError(Dir).find("rank0.trace says 1 ranks, rank1.trace says 2"), std::string::npos);
  // Files missing, every header agreeing: one message listing them.
  setWorldSizeByte(Dir + "/rank0.trace", 2);
  std::filesystem::remove(Dir + "/rank1.trace");
  EXPECT_EQ(openError(Dir), Dir + "/rank0.trace: error: rank0.trace says 2 ranks, but 1 of their "
                                  "files are missing (rank1.trace) [mpiete-estimate]\n");
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

// Issue 13 (ring): the same_buffer table becomes, per size, its time minus the main table's
// at that size (negative: 0), for either model; without it there is no extra.
TEST(BaseDataTest, NetworkYamlSameBufferExtra) {
  const std::string Text = std::string(NetworkText) +
                           "same_buffer:\n  columns: [bytes, recv_s]\n"
                           "  rows: [[0, 0.9e-6], [100, 1.3e-6], [200, 1.9e-6]]\n";
  auto Extra = [&](NetworkModelKind Kind) {
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    auto L = parseNetworkYaml("network.yaml", Text, Kind, Diags);
    EXPECT_TRUE(L && L->hasSameBufferTable()) << Errors.str();
    std::vector<TimeNs> Out;
    for (uint64_t Bytes : {0, 50, 100, 150, 200, 300})
      Out.push_back(L ? L->sameBufferExtra(Bytes) : -1);
    return Out;
  };
  // Table: transfer 1000, 1100, 1300 ns, extras 0 (900 - 1000 < 0), 200, 600 ns; 300 bytes
  // along the last segment.
  EXPECT_EQ(Extra(NetworkModelKind::Table), (std::vector<TimeNs>{0, 100, 200, 400, 600, 1000}));
  // LogGPS: transfer 1030, 1080 (eager), 3290 ns (rendezvous above S = 150): extras 0, 220, 0.
  EXPECT_EQ(Extra(NetworkModelKind::LogGPS), (std::vector<TimeNs>{0, 110, 220, 110, 0, 0}));
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  auto Old = parseNetworkYaml("network.yaml", NetworkText, NetworkModelKind::Table, Diags);
  ASSERT_TRUE(Old) << Errors.str();
  EXPECT_FALSE(Old->hasSameBufferTable());
  EXPECT_EQ(Old->sameBufferExtra(16384), 0);
}

TEST(BaseDataTest, NetworkYamlLogGPS) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  auto L = parseNetworkYaml("network.yaml", NetworkText, NetworkModelKind::LogGPS, Diags);
  ASSERT_TRUE(L) << Errors.str();
  EXPECT_EQ(L->transfer(100), 1030 + 50);        // o_s + L + o_r + 100 G_eager
  EXPECT_EQ(L->transfer(1000), 3 * 1030 + 1000); // rendezvous: + round trip, 1000 G
}

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
}

// With setEmitSegments(true), each MPI call (its flagged first record) is preceded by one
// Segment event: the previous call's site (ProgramStart first) -> this call's site. Off by
// default: the same trace gives the records' events only.
TEST(BaseDataTest, SegmentEventsBeforeEachCall) {
  const std::string Dir = tempDir("segments");
  auto W = std::make_unique<TraceWriter>();
  W->enable(Dir.c_str());
  W->start(0, 1);
  W->callBegin();
  W->init(id(1));
  W->callEnd(id(1));
  for (int I = 0; I < 3; ++I) { // compressed: the source sees the expanded records
    W->iter(id(50));
    W->callBegin();
    const uint64_t R = W->send(id(10), 0, 0, 0, 8, trace::SendMode::Standard, trace::Context::User);
    W->wait(id(11), trace::WaitOp::Wait, 1);
    W->sendCompleted(R);
    W->callEnd(id(10));
    W->callBegin();
    W->callEnd(id(30)); // a call that wrote nothing
  }
  W->loopExit(id(50));
  W->callBegin();
  W->finalize(id(2));
  W->callEnd(id(2));
  W->finish();

  auto Kinds = [&](bool Segments) {
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    TraceEventSource Src(Diags);
    Src.setEmitSegments(Segments);
    EXPECT_TRUE(Src.open(Dir + "/rank0.trace")) << Errors.str();
    std::string Out;
    Event E;
    while (Src.next(E)) {
      if (E.Kind == EventKind::Segment)
        Out += "seg(" + formatBlockId(E.From) + ">" + formatBlockId(E.Block) + ") ";
      else
        Out += std::to_string(static_cast<int>(E.Kind)) + " ";
    }
    EXPECT_FALSE(Src.failed()) << Errors.str();
    return Out;
  };
  const std::string Plain = Kinds(false);
  const std::string With = Kinds(true);
  const std::string Init = std::to_string(static_cast<int>(EventKind::Init)) + " ";
  const std::string Send = std::to_string(static_cast<int>(EventKind::SendStart)) + " ";
  const std::string Done = std::to_string(static_cast<int>(EventKind::Completion)) + " ";
  const std::string Fin = std::to_string(static_cast<int>(EventKind::Finalize)) + " ";
  EXPECT_EQ(Plain, Init + Send + Done + Send + Done + Send + Done + Fin);
  const std::string Step =
      "seg(0aa758c0:30>0aa758c0:10) " + Send + Done + "seg(0aa758c0:10>0aa758c0:30) ";
  EXPECT_EQ(With, "seg(ffffffff:4294967281>0aa758c0:1) " + Init + "seg(0aa758c0:1>0aa758c0:10) " +
                      Send + Done + "seg(0aa758c0:10>0aa758c0:30) " + Step + Step +
                      "seg(0aa758c0:30>0aa758c0:2) " + Fin);
  std::filesystem::remove_all(Dir);
}

// Issue 14: a trace whose call sites contradict the block map (a flipped block id or routine)
// is an error naming the file and record, never a silently different prediction.
TEST(BaseDataTest, CallSitesAreCheckedAgainstTheBlockMap) {
  std::string Dir = tempDir("callsites");
  {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(0, 1);
    W->callBegin();
    W->init(id(1));
    W->block(id(3));
    W->callBegin();
    W->finalize(id(2));
    W->finish();
  }
  auto replay = [&](const CallSites &Sites, std::string &Errors) {
    std::ostringstream OS;
    DiagnosticSink Diags(OS);
    TraceEventSource T(Diags);
    EXPECT_TRUE(T.open(Dir + "/rank0.trace")) << OS.str();
    T.setCallSites(&Sites);
    Event E;
    while (T.next(E)) {
    }
    Errors = OS.str();
    return !T.failed();
  };
  CallSites Good;
  Good.Units = {Unit};
  Good.Sites = {{id(1), CallSites::Kind::Init},
                {id(2), CallSites::Kind::Finalize},
                {id(3), CallSites::Kind::Other}};
  std::string Errors;
  EXPECT_TRUE(replay(Good, Errors)) << Errors;
  EXPECT_EQ(Errors, "");

  CallSites Swapped = Good; // the map says MPI_Finalize where the trace has MPI_Init
  Swapped.Sites[id(1)] = CallSites::Kind::Finalize;
  EXPECT_FALSE(replay(Swapped, Errors));
  EXPECT_NE(Errors.find("rank0.trace"), std::string::npos) << Errors;
  EXPECT_NE(Errors.find("a call of MPI_Init at call site 0aa758c0:1, which the block map "
                        "(blocks.yaml) says is MPI_Finalize"),
            std::string::npos)
      << Errors;

  CallSites Missing = Good; // a call site the map does not have
  Missing.Sites.erase(id(2));
  EXPECT_FALSE(replay(Missing, Errors));
  EXPECT_NE(Errors.find("call site 0aa758c0:2 is not in the block map"), std::string::npos)
      << Errors;

  CallSites OtherUnit; // a unit the map does not describe is not checked
  OtherUnit.Units = {Unit + 1};
  EXPECT_TRUE(replay(OtherUnit, Errors)) << Errors;
}

// The records of one call carry the ids its site owns (a blocking send's wait at site + 1): a
// record of another id inside the call is a corrupt block index (the hostile matrix's flips
// that moved a wait to another call site of the report).
TEST(BaseDataTest, RecordsOfACallKeepItsIds) {
  auto write = [](const std::string &Dir, uint32_t WaitIndex) {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(0, 2);
    W->callBegin();
    W->init(id(1));
    W->callBegin();
    const uint64_t Req =
        W->send(id(4), 1, 0, 0, 8, trace::SendMode::Standard, trace::Context::User);
    W->wait(id(WaitIndex), trace::WaitOp::Wait, 1);
    W->sendCompleted(Req);
    W->callBegin();
    W->finalize(id(2));
    W->finish();
  };
  CallSites Sites;
  Sites.Units = {Unit};
  Sites.Sites = {{id(1), CallSites::Kind::Init},
                 {id(2), CallSites::Kind::Finalize},
                 {id(4), CallSites::Kind::Other}};
  auto replay = [&](const std::string &Dir, std::string &Errors) {
    std::ostringstream OS;
    DiagnosticSink Diags(OS);
    TraceEventSource T(Diags);
    EXPECT_TRUE(T.open(Dir + "/rank0.trace")) << OS.str();
    T.setCallSites(&Sites);
    Event E;
    while (T.next(E)) {
    }
    Errors = OS.str();
    return !T.failed();
  };
  std::string Good = tempDir("incall-good"), Bad = tempDir("incall-bad"), Errors;
  write(Good, 5);
  EXPECT_TRUE(replay(Good, Errors)) << Errors;
  write(Bad, 9);
  EXPECT_FALSE(replay(Bad, Errors));
  EXPECT_NE(Errors.find("rank0.trace: error: record 4 at offset 60: "), std::string::npos)
      << Errors;
  EXPECT_NE(Errors.find("a record of block 0aa758c0:9 inside the call at site 0aa758c0:4, whose "
                        "records have the ids 0aa758c0:4 to 0aa758c0:7: a corrupt block id"),
            std::string::npos)
      << Errors;
}

// Issue 13: with setEmitLocalCopies(true), a collective whose Open MPI algorithm copies the
// rank's own block locally gives a LocalCopy event of that block's bytes before its messages
// (docs/collectives.md); reductions and bcast none; the v- and w-all-to-alls learn it from the
// messages they send.
TEST(BaseDataTest, LocalCopiesOfCollectivesOwnBlocks) {
  const std::string Dir = tempDir("copies");
  {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(1, 4); // rank 1 of 4
    W->callBegin();
    W->init(id(1));
    W->callEnd(id(1));
    auto Coll = [&](uint32_t Site, trace::CollKind K, uint64_t Comm, int32_t Root, uint64_t Bytes) {
      W->callBegin();
      W->collective(id(Site), K, Comm, Root, Bytes);
      W->callEnd(id(Site));
    };
    Coll(10, trace::CollKind::Alltoall, 0, -1, 4000); // 4 blocks of 1000
    Coll(11, trace::CollKind::Gather, 0, 0, 500);     // not the root: no copy
    Coll(12, trace::CollKind::Gather, 0, 1, 500);     // the root copies its 500
    Coll(13, trace::CollKind::Scatter, 0, 1, 400);    // the root's own block: 100
    Coll(14, trace::CollKind::Allgather, 0, -1, 64);  // its own 64
    Coll(15, trace::CollKind::Allreduce, 0, -1, 8);   // combines, no copy
    // The v- and w-variants: the own block is what the lowered sends to the others leave
    // (4000 - 3 x 1000; 2500 - 1500 - 500), read ahead of the events that follow.
    W->callBegin();
    W->collective(id(16), trace::CollKind::Alltoallv, 0, -1, 4000);
    for (int32_t Peer : {0, 2, 3})
      W->send(id(16), Peer, 5, 0, 1000, trace::SendMode::Standard, trace::Context::Collective);
    W->wait(id(16), trace::WaitOp::Waitall, 3);
    for (uint64_t Request : {1, 2, 3})
      W->sendCompleted(Request);
    W->callEnd(id(16));
    W->callBegin();
    W->collective(id(17), trace::CollKind::Alltoallw, 0, -1, 2500);
    W->recv(id(17), 0, 5, 0, 800, trace::Context::Collective);
    W->send(id(17), 0, 5, 0, 1500, trace::SendMode::Standard, trace::Context::Collective, 6);
    W->send(id(17), 2, 5, 0, 500, trace::SendMode::Standard, trace::Context::Collective, 3);
    W->wait(id(17), trace::WaitOp::Waitall, 3);
    W->recvCompleted(4, 0, 5, 800);
    W->sendCompleted(5);
    W->sendCompleted(6);
    W->callEnd(id(17));
    const int Members[2] = {1, 3};
    W->callBegin();
    W->commCreate(id(20), 0, true, 7, 2, Members);
    W->callEnd(id(20));
    Coll(21, trace::CollKind::Alltoall, 7, -1, 600); // 2 blocks of 300
    Coll(22, trace::CollKind::Alltoall, 1, -1, 50);  // MPI_COMM_SELF: the whole 50
    W->callBegin();
    W->finalize(id(2));
    W->callEnd(id(2));
    W->finish();
  }
  auto Copies = [&](bool On) {
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    TraceEventSource Src(Diags);
    Src.setEmitLocalCopies(On);
    EXPECT_TRUE(Src.open(Dir + "/rank1.trace")) << Errors.str();
    std::string Out;
    Event E;
    while (Src.next(E))
      if (E.Kind == EventKind::LocalCopy)
        Out += formatBlockId(E.Block) + "=" + std::to_string(E.Count) +
               (E.Layout ? "/" + std::to_string(E.Layout) : "") + " ";
      else if (E.Kind == EventKind::SendStart || E.Kind == EventKind::RecvStart)
        Out += (E.Kind == EventKind::SendStart ? "s" : "r") + std::to_string(E.Count) +
               (E.Layout ? "/" + std::to_string(E.Layout) : "") + " ";
    EXPECT_FALSE(Src.failed()) << Errors.str();
    EXPECT_EQ(Src.localCopies(), On ? 8u : 0u);
    EXPECT_EQ(Src.packedLocalCopies(), On ? 1u : 0u);
    return Out;
  };
  // The own block's layout is that of the call's messages with the shortest pieces (classes 6
  // and 3: 3), the trace recording none for the block itself.
  EXPECT_EQ(Copies(false), "s1000 s1000 s1000 r800 s1500/6 s500/3 ");
  EXPECT_EQ(Copies(true), "0aa758c0:10=1000 0aa758c0:12=500 0aa758c0:13=100 0aa758c0:14=64 "
                          "0aa758c0:16=1000 s1000 s1000 s1000 0aa758c0:17=500/3 r800 s1500/6 "
                          "s500/3 0aa758c0:21=300 0aa758c0:22=50 ");
  std::filesystem::remove_all(Dir);
}

TEST(BaseDataTest, RanksArePlacedByEachNodeTypesRanksPerNode) {
  ClusterSpec Spec;
  Spec.RanksPerNode = 2;
  Spec.Nodes = {{2, "fast.yaml", 3, 2}, {1, "", 0, 0}, {2, "slow.yaml", 1, 1}};
  // Block: 3 + 3 on the fast nodes, 2 on the one of the top-level count, 1 + 1 on the slow.
  RankPlacement B = placeRanks(Spec, "/c/cluster.yaml", 10);
  EXPECT_EQ(B.Nodes, 5);
  EXPECT_EQ(B.ListedNodes, 5);
  EXPECT_EQ(B.ListedRanks, 10);
  EXPECT_EQ(B.NodeOfRank, (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 3, 4}));
  EXPECT_EQ(B.TypeOfRank, (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(B.RanksOnNode, (std::vector<int>{3, 3, 2, 1, 1}));
  EXPECT_EQ(B.MachineOfRank[0], "/c/fast.yaml");
  EXPECT_EQ(B.MachineOfRank[6], "");
  EXPECT_EQ(B.MachineOfRank[9], "/c/slow.yaml");
  // Fewer ranks need fewer nodes: 7 fill the fast nodes and one rank of the third.
  RankPlacement F = placeRanks(Spec, "/c/cluster.yaml", 7);
  EXPECT_EQ(F.Nodes, 3);
  EXPECT_EQ(F.RanksOnNode, (std::vector<int>{3, 3, 1}));
  // Round-robin deals them round the nodes, passing over the full ones.
  Spec.Placement = ClusterPlacement::RoundRobin;
  RankPlacement R = placeRanks(Spec, "/c/cluster.yaml", 10);
  EXPECT_EQ(R.NodeOfRank, (std::vector<int>{0, 1, 2, 3, 4, 0, 1, 2, 0, 1}));
  EXPECT_EQ(R.RanksOnNode, (std::vector<int>{3, 3, 2, 1, 1}));
  // Past the list, nodes of the top-level count (uniform: rank r on node r % nodes).
  RankPlacement Past = placeRanks(Spec, "/c/cluster.yaml", 14);
  EXPECT_EQ(Past.Nodes, 7);
  EXPECT_EQ(Past.ListedNodes, 5);
  EXPECT_EQ(Past.ListedRanks, 10);
  EXPECT_EQ(Past.TypeOfRank[5], -1); // round-robin: rank 5 on node 5, past the list
  ClusterSpec Uniform;
  Uniform.RanksPerNode = 3;
  Uniform.Placement = ClusterPlacement::RoundRobin;
  RankPlacement U = placeRanks(Uniform, "c.yaml", 8);
  for (int Rank = 0; Rank < 8; ++Rank)
    EXPECT_EQ(U.NodeOfRank[size_t(Rank)], Rank % 3);
}
