// model.yaml round-trips: every run, segment model and the learnt communication structure (a
// collective included) read back equal, and the structure read back generates the same events.
#include "mpiete/scaling/ModelFile.h"

#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mpiete::scaling;
using mpiete::estimator::NoStatus;
using mpiete::trace::CollKind;

namespace {

constexpr BlockId SiteA = (BlockId(0x0aa758c0) << 32) | 3;
constexpr BlockId SiteB = (BlockId(0x0aa758c0) << 32) | 7;

/// A ring exchange (requests open across an allreduce), then the waitall.
std::vector<Event> rank(int R, int P, std::vector<CollRecord> &Colls) {
  std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteA)};
  uint64_t Req = 0;
  Es.push_back(Event::recv(SiteA, (R + P - 1) % P, 5, 64 * 1024 / P, ++Req));
  Es.push_back(Event::send(SiteA, (R + 1) % P, 5, 64 * 1024 / P, ++Req));
  Es.push_back(Event::segment(SiteA, SiteB));
  Colls.push_back({SiteB, CollKind::Allreduce, 0, true, -1, 16});
  std::string Why;
  EXPECT_TRUE(
      lowerCollective({CollKind::Allreduce, -1, 16, 8, true, SiteB, 0}, R, P, Req, Es, Why));
  Es.push_back(Event::segment(SiteB, SiteA));
  Es.push_back(Event::completion(SiteA, {{1, (R + P - 1) % P, 5}, {2, NoStatus, NoStatus}}));
  return Es;
}

TEST(ModelFileTest, RoundTrip) {
  std::vector<MeasuredRun> Runs;
  for (int P : {2, 4, 8}) {
    MeasuredRun Run{P, 1, {}, {}};
    for (int R = 0; R < P; ++R) {
      Run.Colls.emplace_back();
      Run.PerRank.push_back(rank(R, P, Run.Colls.back()));
    }
    Runs.push_back(std::move(Run));
  }
  ScalingModelFile F;
  F.Tool = "mpiete test";
  F.Command = "mpiete model --run ...";
  F.Runs = {{2, 1, "t2", "m2.yaml", {}},
            {4, 1, "t4", "m4.yaml", {"m4-0.yaml", "m4-1.yaml"}},
            {8, 1, "t8", "m8.yaml", {}}};
  Refusal Why;
  ASSERT_TRUE(learnStructure(Runs, F.Learnt, Why)) << Why.Message;
  F.StructureAccepted = true;
  F.Structure = F.Learnt.describe();
  SegmentModel Seg;
  Seg.From = SiteA;
  Seg.To = SiteB;
  Seg.Where = "a.c:3 -> a.c:7";
  F.Ws = WorkingSet{16, 2};
  F.Caches = {49152, 2097152};
  F.CachesFrom = "--caches";
  Seg.M.Terms = {Term{}, Term{1, 1, 0, 0}, Term{-1, 0, 1, 4096}, Term{-1, 0, 2, 2097152, F.Ws}};
  Seg.M.Coeffs = {1.5e-6, 2.25e-9, 3.125e-8, 1e-9};
  Seg.M.Points = 3;
  Seg.M.FitError = 0.01;
  Seg.M.CvError = 0.02;
  Seg.HeldOutError = 0.03;
  Seg.M.ExtrapolationError = 0.04;
  Seg.Data = {{2, 1, 1e-3}, {4, 1, 5.5e-4}, {8, 1, 3.125e-4}};
  F.Segments.push_back(Seg);

  std::ostringstream First;
  writeScalingModel(First, F);
  const std::string Path =
      (std::filesystem::temp_directory_path() / "mpiete-modelfile-test.yaml").string();
  std::ofstream(Path) << First.str();
  std::ostringstream Errors;
  mpiete::DiagnosticSink Diags(Errors);
  ScalingModelFile G;
  ASSERT_TRUE(loadScalingModel(Path, G, Diags)) << Errors.str();
  std::filesystem::remove(Path);
  std::ostringstream Second;
  writeScalingModel(Second, G);
  EXPECT_EQ(First.str(), Second.str());

  EXPECT_TRUE(G.StructureAccepted);
  ASSERT_EQ(G.Runs.size(), 3u);
  EXPECT_EQ(G.Runs[1].Ranks, 4);
  EXPECT_EQ(G.Runs[1].Machine, "m4.yaml");
  EXPECT_EQ(G.Runs[1].Repeats, (std::vector<std::string>{"m4-0.yaml", "m4-1.yaml"}));
  EXPECT_TRUE(G.Runs[0].Repeats.empty());
  ASSERT_EQ(G.Segments.size(), 1u);
  EXPECT_EQ(G.Segments[0].M.Terms, Seg.M.Terms);
  EXPECT_EQ(G.Segments[0].M.Coeffs, Seg.M.Coeffs);
  EXPECT_DOUBLE_EQ(G.Segments[0].M.eval(64, 1e6), Seg.M.eval(64, 1e6));
  EXPECT_EQ(G.Segments[0].M.ExtrapolationError, 0.04);
  ASSERT_EQ(G.Segments[0].Data.size(), 3u);
  EXPECT_EQ(G.Segments[0].Data[1].P, 4);
  EXPECT_EQ(G.Segments[0].Data[1].Y, 5.5e-4);
  EXPECT_EQ(G.Ws, F.Ws);
  EXPECT_EQ(G.Caches, F.Caches);
  // The runs (size 1: 8, 4 and 2 bytes a rank) lie below both caches: a rank holding 16 MB
  // (W = 4096 at 16 ranks) crosses both unmeasured steps, one holding 1 KB (W = 8) neither.
  EXPECT_EQ(G.unmeasuredCacheSteps(16, 4096), (std::vector<double>{49152, 2097152}));
  EXPECT_TRUE(G.unmeasuredCacheSteps(2, 8).empty());
  EXPECT_NE(First.str().find("unmeasured step"), std::string::npos) << First.str();
  EXPECT_EQ(G.Learnt.MaxDist, F.Learnt.MaxDist);
  ASSERT_EQ(G.Learnt.Classes.size(), F.Learnt.Classes.size());

  // The structure read back generates every rank at a new size as the pattern does.
  for (int R = 0; R < 32; ++R) {
    std::vector<CollRecord> Colls;
    const std::vector<Event> Want = rank(R, 32, Colls);
    SyntheticEventSource Gen(G.Learnt, R, 32, 1);
    Event E;
    size_t K = 0;
    while (Gen.next(E)) {
      ASSERT_LT(K, Want.size());
      EXPECT_TRUE(sameEvent(E, Want[K])) << "rank " << R << " event " << K;
      ++K;
    }
    EXPECT_EQ(K, Want.size());
  }
}

// A cache with a single run's working set on one side gets no step (two runs a side are
// needed) and is flagged, in the model file and by loneRunCaches, until a second run lies there.
TEST(ModelFileTest, ACacheWithOneRunOnASideIsFlagged) {
  ScalingModelFile F;
  F.Ws = WorkingSet{16, 2};
  F.Caches = {524288, 16777216};
  // n = 2048 at 2-16 ranks: 32, 16, 8 and 4 MiB a rank; 16 MiB exactly is not above the L3.
  for (int P : {2, 4, 8, 16})
    F.Runs.push_back({P, 2048, "t", "m", {}});
  EXPECT_EQ(F.runsAround(16777216), (std::pair<int, int>{3, 1}));
  EXPECT_EQ(F.loneRunCaches(), std::vector<double>{16777216});
  std::ostringstream Out;
  writeScalingModel(Out, F);
  EXPECT_NE(Out.str().find("one run's working set lies above it"), std::string::npos) << Out.str();
  // The L2 has every run above it: an unmeasured step, not a lone run.
  EXPECT_NE(Out.str().find("unmeasured step"), std::string::npos) << Out.str();
  F.Runs.push_back({4, 2900, "t", "m", {}}); // 32.1 MiB a rank
  EXPECT_TRUE(F.loneRunCaches().empty());
  std::ostringstream Again;
  writeScalingModel(Again, F);
  EXPECT_EQ(Again.str().find("one run's working set"), std::string::npos) << Again.str();
}

TEST(ModelFileTest, ByteCountConstantTermRoundTrips) {
  // 16 + 8 W / P bytes (a halo row with its ghost cells), learnt from three sizes.
  std::vector<MeasuredRun> Runs;
  for (double W : {256.0, 1024.0, 4096.0})
    for (int P : {2, 4}) {
      MeasuredRun Run{P, W, {}, {}};
      for (int R = 0; R < P; ++R) {
        const uint64_t Bytes = (uint64_t(W) / P + 2) * 8;
        Run.PerRank.push_back({Event::segment(mpiete::ProgramStart, SiteA),
                               Event::recv(SiteA, (R + P - 1) % P, 5, Bytes, 1),
                               Event::send(SiteA, (R + 1) % P, 5, Bytes, 2),
                               Event::completion(SiteA, {{1, (R + P - 1) % P, 5}, {2}})});
      }
      Runs.push_back(std::move(Run));
    }
  ScalingModelFile F;
  F.Tool = "mpiete test";
  F.Command = "mpiete model --run ...";
  F.Runs = {{2, 256, "t2", "m2.yaml"}};
  Refusal Why;
  ASSERT_TRUE(learnStructure(Runs, F.Learnt, Why)) << Why.Message;
  F.StructureAccepted = true;
  F.Structure = F.Learnt.describe();
  std::ostringstream First;
  writeScalingModel(First, F);
  EXPECT_NE(First.str().find(":16"), std::string::npos) << First.str();
  const std::string Path =
      (std::filesystem::temp_directory_path() / "mpiete-modelfile-const-test.yaml").string();
  std::ofstream(Path) << First.str();
  std::ostringstream Errors;
  mpiete::DiagnosticSink Diags(Errors);
  ScalingModelFile G;
  ASSERT_TRUE(loadScalingModel(Path, G, Diags)) << Errors.str();
  std::filesystem::remove(Path);
  std::ostringstream Second;
  writeScalingModel(Second, G);
  EXPECT_EQ(First.str(), Second.str());
  SyntheticEventSource Gen(G.Learnt, 3, 64, 65536);
  Event E;
  int Sends = 0;
  while (Gen.next(E))
    if (E.Kind == mpiete::estimator::EventKind::SendStart) {
      EXPECT_EQ(E.Count, 8208u); // (65536 / 64 + 2) * 8
      ++Sends;
    }
  EXPECT_EQ(Sends, 1);
}

TEST(ModelFileTest, SameBufferReceivesAreLearntAndRoundTrip) {
  // A token passed on in place (ring): each receive lands in the buffer the rank sent from,
  // which the replay charges (the link's sameBufferExtra), so the generator must keep the flag.
  auto Rank = [](int R, int P) {
    Event Recv = Event::recv(SiteA, (R + P - 1) % P, 5, 8192, 1);
    Recv.SameBuffer = true;
    return std::vector<Event>{Event::segment(mpiete::ProgramStart, SiteA), Recv,
                              Event::send(SiteA, (R + 1) % P, 5, 8192, 2),
                              Event::completion(SiteA, {{1, (R + P - 1) % P, 5}, {2}})};
  };
  std::vector<MeasuredRun> Runs;
  for (int P : {2, 4, 8}) {
    MeasuredRun Run{P, 1, {}, {}};
    for (int R = 0; R < P; ++R)
      Run.PerRank.push_back(Rank(R, P));
    Runs.push_back(std::move(Run));
  }
  ScalingModelFile F;
  F.Runs = {{2, 1, "t2", "m2.yaml"}};
  Refusal Why;
  ASSERT_TRUE(learnStructure(Runs, F.Learnt, Why)) << Why.Message;
  F.StructureAccepted = true;
  std::ostringstream First;
  writeScalingModel(First, F);
  EXPECT_NE(First.str().find(" same-buffer"), std::string::npos) << First.str();
  const std::string Path =
      (std::filesystem::temp_directory_path() / "mpiete-modelfile-samebuffer-test.yaml").string();
  std::ofstream(Path) << First.str();
  std::ostringstream Errors;
  mpiete::DiagnosticSink Diags(Errors);
  ScalingModelFile G;
  ASSERT_TRUE(loadScalingModel(Path, G, Diags)) << Errors.str();
  std::filesystem::remove(Path);
  for (int R : {0, 17, 63}) {
    const std::vector<Event> Want = Rank(R, 64);
    SyntheticEventSource Gen(G.Learnt, R, 64, 1);
    Event E;
    size_t K = 0;
    while (Gen.next(E)) {
      ASSERT_LT(K, Want.size());
      EXPECT_TRUE(sameEvent(E, Want[K])) << "rank " << R << " event " << K;
      EXPECT_EQ(E.SameBuffer, Want[K].SameBuffer) << "rank " << R << " event " << K;
      ++K;
    }
    EXPECT_EQ(K, Want.size());
  }
  // Where one measured rank lacks the flag (its last sends were elsewhere), it is not generated.
  Runs[1].PerRank[2][1].SameBuffer = false;
  CommStructure Mixed;
  ASSERT_TRUE(learnStructure(Runs, Mixed, Why)) << Why.Message;
  SyntheticEventSource Gen(Mixed, 5, 64, 1);
  Event E;
  int Receives = 0;
  while (Gen.next(E))
    if (E.Kind == mpiete::estimator::EventKind::RecvStart) {
      EXPECT_FALSE(E.SameBuffer);
      ++Receives;
    }
  EXPECT_EQ(Receives, 1);
}

TEST(ModelFileTest, GridByteCountsRoundTrip) {
  OpTemplate Op;
  Op.Proto = Event::send(SiteA, 1, 5, 0, 1);
  Op.Bytes = BytesExpr{8, 2, 0, 0, 3, 6};
  OpTemplate Back;
  ASSERT_TRUE(parseOp(formatOp(Op), Back)) << formatOp(Op);
  EXPECT_EQ(Back.Bytes.GridDims, 3);
  EXPECT_EQ(Back.Bytes.GridAxes, 6);
  EXPECT_EQ(Back.Bytes.eval(16, 32), 2048u); // 4 x 2 x 2: 8 * 16 * 16
  EXPECT_EQ(formatOp(Back), formatOp(Op));
  OpTemplate Bad;
  std::string Text = formatOp(Op);
  Text.replace(Text.find(":g3.6"), 5, ":g3.8"); // an axis the grid does not have
  EXPECT_FALSE(parseOp(Text, Bad));
}

TEST(ModelFileTest, SubCommunicatorsRoundTrip) {
  for (bool Coll : {false, true}) {
    OpTemplate Op;
    if (Coll) {
      Op.IsColl = true;
      Op.Coll = {CollKind::Allreduce, -1, 0, 8, true, SiteA, 0};
      Op.Proto.Block = SiteA;
    } else {
      Op.Proto = Event::send(SiteA, 1, 5, 0, 1);
    }
    Op.Sub.K = SubComm::Stride;
    Op.Sub.GridDims = 3;
    Op.Sub.GridAxes = 5;
    Op.Sub.Parent = 0x31085cb98957d260ULL;
    Op.Sub.Seq = 2;
    OpTemplate Back;
    ASSERT_TRUE(parseOp(formatOp(Op), Back)) << formatOp(Op);
    EXPECT_EQ(Back.Sub.K, SubComm::Stride);
    EXPECT_EQ(Back.Sub.GridAxes, 5);
    EXPECT_EQ(Back.Sub.Parent, Op.Sub.Parent);
    EXPECT_EQ(Back.Sub.id(7, 64), Op.Sub.id(7, 64));
    EXPECT_EQ(formatOp(Back), formatOp(Op));
    OpTemplate Bad;
    EXPECT_FALSE(parseOp(formatOp(Op) + " sub 3 0 0 1 0 0", Bad)); // no such kind
  }
}

TEST(ModelFileTest, MalformedOpRefused) {
  OpTemplate Op;
  EXPECT_FALSE(parseOp("send 0aa758c0:3 nonsense", Op));
  EXPECT_FALSE(parseOp("coll 0aa758c0:7 0aa758c0:3 0 0 0 0 1 0:-1:0:0:0 16:0:0 99 8 1 0 "
                       "0aa758c0:7",
                       Op));
}

// Another form of a peer or a matched source (OpTemplate::Alts) round-trips on the op's line;
// one that names no peer or source of the op, or no count where it differs, is refused.
TEST(ModelFileTest, AlternativeFormsRoundTripAndMalformedOnesAreRefused) {
  OpTemplate Send;
  Send.Proto = Event::send(SiteA, 0, 5, 64, 1);
  Send.Peer = {PeerExpr::Wrap, 2};
  Send.Bytes.Coeff = 64;
  Send.Alts = {OpTemplate::Alt::peer(0, {PeerExpr::Wrap, -2}, 3)};
  OpTemplate Back;
  ASSERT_TRUE(parseOp(formatOp(Send), Back)) << formatOp(Send);
  ASSERT_EQ(Back.Alts.size(), 1u);
  EXPECT_EQ(Back.Alts[0].Which, 0u);
  EXPECT_EQ(Back.Alts[0].E.text(), "(r - 2) mod P");
  EXPECT_EQ(Back.Alts[0].PartsAt, 3);
  EXPECT_EQ(formatOp(Back), formatOp(Send));
  OpTemplate Wait;
  Wait.Proto = Event::completion(SiteA, {{1, 0, 5}});
  Wait.Sources = {{PeerExpr::Wrap, -2}};
  Wait.Tags = {{5, 5}};
  Wait.Dist = {0};
  Wait.Alts = {OpTemplate::Alt::peer(1, {PeerExpr::Wrap, 2}, 3)};
  ASSERT_TRUE(parseOp(formatOp(Wait), Back)) << formatOp(Wait);
  ASSERT_EQ(Back.Alts.size(), 1u);
  EXPECT_EQ(Back.Alts[0].Which, 1u);
  const std::string SendLine = formatOp(Send), WaitLine = formatOp(Wait);
  const std::string SendBase = SendLine.substr(0, SendLine.find(" alt ")),
                    WaitBase = WaitLine.substr(0, WaitLine.find(" alt "));
  EXPECT_FALSE(parseOp(SendBase + " alt 1 3:-2:0:0:0 3", Back));  // a send has no source
  EXPECT_FALSE(parseOp(WaitBase + " alt 0 3:2:0:0:0 3", Back));   // a wait has no peer
  EXPECT_FALSE(parseOp(WaitBase + " alt 2 3:2:0:0:0 3", Back));   // nor a second source
  EXPECT_FALSE(parseOp(SendBase + " alt 0 3:-2:0:0:0 1", Back));  // differs nowhere
  EXPECT_FALSE(parseOp(SendBase + " alt 0 99:-2:0:0:0 3", Back)); // no form
  EXPECT_FALSE(parseOp(SendBase + " alt 0 3:-2:0:0:0", Back));    // cut short
}

// Another byte count, sub-communicator or loop's trip count round-trips as well; one the op
// has no such form of its own for (a share's count, no sub-communicator, no loop) is refused.
TEST(ModelFileTest, OtherAlternativeFormsRoundTripAndMalformedOnesAreRefused) {
  OpTemplate Coll;
  Coll.IsColl = true;
  Coll.Proto.Block = SiteA;
  Coll.Coll = {mpiete::trace::CollKind::Allreduce, -1, 0, 8, true, SiteA, 0};
  Coll.Bytes.Coeff = 2097152;
  Coll.Sub = {SubComm::Block, 0, 0, 2, 77, 1};
  OpTemplate::Alt Bytes, Sub;
  Bytes.Form = OpTemplate::Alt::Count;
  Bytes.Bytes = {4194304, 0, 0, 0, 2, 1};
  Bytes.PartsAt = 3;
  Sub.Form = OpTemplate::Alt::Comm;
  Sub.Sub = {SubComm::Block, 2, 1, 2, 77, 1};
  Sub.PartsAt = 3;
  Coll.Alts = {Bytes, Sub};
  OpTemplate Back;
  ASSERT_TRUE(parseOp(formatOp(Coll), Back)) << formatOp(Coll);
  ASSERT_EQ(Back.Alts.size(), 2u);
  EXPECT_EQ(Back.Alts[0].Form, OpTemplate::Alt::Count);
  EXPECT_EQ(Back.Alts[0].Bytes.text(), Bytes.Bytes.text());
  EXPECT_EQ(Back.Alts[1].Form, OpTemplate::Alt::Comm);
  EXPECT_EQ(Back.Alts[1].Sub.text(), "blocks of d0 of Dims_create(P, 2) consecutive ranks");
  EXPECT_EQ(Back.Alts[1].Sub.Parent, 77u); // the op's own
  EXPECT_EQ(Back.Alts[1].PartsAt, 3);
  EXPECT_EQ(formatOp(Back), formatOp(Coll));
  OpTemplate Loop;
  Loop.Ctl = OpTemplate::Control::LoopBegin;
  Loop.Span = 4;
  Loop.Trips.K = TripExpr::Cyclic;
  Loop.Trips.SConst = 2;
  Loop.Trips.A = 4;
  OpTemplate::Alt Trips;
  Trips.Form = OpTemplate::Alt::Loop;
  Trips.Trips = Loop.Trips;
  Trips.Trips.SConst = 1;
  Trips.Trips.GridDims = 2;
  Trips.Trips.GridAxes = 1;
  Trips.PartsAt = 3;
  Loop.Alts = {Trips};
  ASSERT_TRUE(parseOp(formatOp(Loop), Back)) << formatOp(Loop);
  ASSERT_EQ(Back.Alts.size(), 1u);
  EXPECT_EQ(Back.Alts[0].Trips.text(), Trips.Trips.text());
  EXPECT_EQ(formatOp(Back), formatOp(Loop));
  const std::string CollLine = formatOp(Coll), LoopLine = formatOp(Loop);
  const std::string CollBase = CollLine.substr(0, CollLine.find(" alt-")),
                    LoopBase = LoopLine.substr(0, LoopLine.find(" alt-"));
  EXPECT_FALSE(parseOp(CollBase + " alt-bytes 64:0:0 1", Back));       // differs nowhere
  EXPECT_FALSE(parseOp(CollBase + " alt-bytes nan:0:0 3", Back));      // no count
  EXPECT_FALSE(parseOp(CollBase + " alt-sub 1 2 1 3", Back));          // cut short
  EXPECT_FALSE(parseOp(CollBase + " alt-sub 1 0 0 0 3", Back));        // no block
  EXPECT_FALSE(parseOp(CollBase + " alt-trips 2 1 2 1 4 0 3", Back));  // no loop
  EXPECT_FALSE(parseOp(LoopBase + " alt-bytes 64:0:0 3", Back));       // a loop sends nothing
  EXPECT_FALSE(parseOp(LoopBase + " alt-trips 2 1 2 1 4 0", Back));    // cut short
  EXPECT_FALSE(parseOp(LoopBase + " alt-trips 99 1 2 1 4 0 3", Back)); // no count
  const std::string NoSub = CollBase.substr(0, CollBase.find(" sub "));
  EXPECT_FALSE(parseOp(NoSub + " alt-sub 1 2 1 2 3", Back)); // the op has no sub-communicator
  // Another way of dealing the share a byte count is of.
  OpTemplate Send;
  Send.Proto = Event::send(SiteA, 0, 5, 64, 1);
  Send.Peer = {PeerExpr::Wrap, 1};
  Send.Bytes.Coeff = 8;
  Send.Share.K = TripExpr::Dealt;
  Send.Share.Sz.Coeff = 1;
  Send.Share.Sz.WExp = 1;
  OpTemplate::Alt Share;
  Share.Form = OpTemplate::Alt::Share;
  Share.Trips = Send.Share;
  Share.Trips.SConst = 2;
  Share.Trips.Sz.Coeff = 0.5;
  Share.PartsAt = 3;
  Send.Alts = {Share};
  ASSERT_TRUE(parseOp(formatOp(Send), Back)) << formatOp(Send);
  ASSERT_EQ(Back.Alts.size(), 1u);
  EXPECT_EQ(Back.Alts[0].Form, OpTemplate::Alt::Share);
  EXPECT_EQ(Back.Alts[0].Trips.text(), Share.Trips.text());
  EXPECT_EQ(formatOp(Back), formatOp(Send));
  const std::string SendLine = formatOp(Send);
  const std::string SendBase = SendLine.substr(0, SendLine.find(" alt-"));
  EXPECT_FALSE(parseOp(SendBase + " alt-share 2 1 0 0 4 0 3", Back)); // a round-robin count
  EXPECT_FALSE(parseOp(SendBase + " alt-bytes 64:0:0 3", Back));      // the count is a share's
  EXPECT_FALSE(parseOp(CollBase + " alt-share 7 2 0 0 0 0 0.5:1:0 3", Back)); // no share
}

// A model whose runs are all at one size predicts that size only; runs at two sizes or more let
// it be asked at any.
TEST(ModelFileTest, AnotherSizeThanTheOneMeasuredIsRefused) {
  ScalingModelFile F;
  EXPECT_EQ(F.unmeasuredSize(5), ""); // no runs: nothing to say
  for (int P : {2, 4, 8})
    F.Runs.push_back({P, 200, "t", "m", {}});
  EXPECT_EQ(F.unmeasuredSize(200), "");
  EXPECT_EQ(F.unmeasuredSize(400),
            "the model was built from runs at one problem size, 200, so how the program's "
            "compute, messages and loops change with the size was never measured: give `mpiete "
            "model` runs at a second size as well (--run P:W:...), or ask for size 200 (not 400)");
  F.Runs.push_back({2, 300, "t", "m", {}});
  EXPECT_EQ(F.unmeasuredSize(400), "");
  EXPECT_EQ(F.unmeasuredSize(1e6), "");
}

TEST(ModelFileTest, GridDivisorTermsRoundTrip) {
  ScalingModelFile F;
  F.Tool = "mpiete test";
  SegmentModel Seg;
  Seg.From = SiteA;
  Seg.To = SiteB;
  Term T{0, 0, 2};
  T.GridDims = 3;
  T.GridAxes = 6;
  Seg.M.Terms = {Term{}, T};
  Seg.M.Coeffs = {1e-6, 3e-9};
  F.Segments.push_back(Seg);
  std::ostringstream First;
  writeScalingModel(First, F);
  const std::string Path =
      (std::filesystem::temp_directory_path() / "mpiete-modelfile-grid-test.yaml").string();
  std::ofstream(Path) << First.str();
  std::ostringstream Errors;
  mpiete::DiagnosticSink Diags(Errors);
  ScalingModelFile G;
  ASSERT_TRUE(loadScalingModel(Path, G, Diags)) << Errors.str();
  ASSERT_EQ(G.Segments.size(), 1u);
  EXPECT_EQ(G.Segments[0].M.Terms, Seg.M.Terms);
  EXPECT_DOUBLE_EQ(G.Segments[0].M.eval(64, 128), Seg.M.eval(64, 128));
  // d1 * d2 of Dims_create(64, 3) = 4 * 4.
  EXPECT_DOUBLE_EQ(Seg.M.eval(64, 128), 1e-6 + 3e-9 * 128 * 128 / 16);
  std::string Bad = First.str();
  Bad.replace(Bad.find("grid_axes: 6"), 12, "grid_axes: 8");
  std::ofstream(Path) << Bad;
  ScalingModelFile H;
  EXPECT_FALSE(loadScalingModel(Path, H, Diags));
  EXPECT_NE(Errors.str().find("grid divisor"), std::string::npos) << Errors.str();
  std::filesystem::remove(Path);
}

} // namespace

// The band weights each segment's error by its compute at the target and scales it by the
// doublings past the largest base run; a noisy print that holds the largest error but little
// compute moves it little.
TEST(ModelFileTest, ErrorBandWeightsSegmentsByTheirCompute) {
  ScalingModelFile F;
  F.Runs = {{2, 100, "t2", "m2.yaml", {}}, {16, 100, "t16", "m16.yaml", {}}};
  SegmentModel Sweep, Print, PrintFirst;
  Sweep.From = SiteA;
  Sweep.To = SiteB;
  Sweep.Where = "sweep";
  Sweep.M.CvError = 0.05;
  Sweep.M.ExtrapolationError = 0.10; // the larger of the two
  Sweep.HeldOutError = 0.5;          // the selection's on fewer points: not in the band
  Print.From = SiteB;
  Print.To = SiteA;
  Print.Where = "print";
  Print.M.CvError = 0.9;
  Print.M.ExtrapolationError = -1; // one rank count
  PrintFirst = Print;
  PrintFirst.Ranks = RankPosition::First;
  PrintFirst.M.CvError = 0.2;
  F.Segments = {Sweep, Print, PrintFirst};
  using mpiete::estimator::SegmentResult;
  const std::vector<SegmentResult> Replayed = {{SiteA, SiteB, 900, 10, 0, 0},
                                               {SiteB, SiteA, 100, 1, 0, 0}};
  // Within the runs' range: 0.9 * 0.10 + 0.1 * 0.9 (the larger of the print's positions).
  ScalingModelFile::Band B = F.errorBand(Replayed, 8, 100);
  EXPECT_NEAR(B.Weighted, 0.18, 1e-12);
  EXPECT_EQ(B.Doublings, 1);
  EXPECT_NEAR(B.Relative, 0.18, 1e-12);
  EXPECT_EQ(B.Largest, 0.9);
  EXPECT_EQ(B.LargestWhere, "print");
  EXPECT_NEAR(B.LargestShare, 0.1, 1e-12);
  // 64 ranks: two doublings past 16; and twice the size as well: three.
  EXPECT_NEAR(F.errorBand(Replayed, 64, 100).Relative, 0.36, 1e-12);
  EXPECT_NEAR(F.errorBand(Replayed, 64, 200).Relative, 0.54, 1e-12);
  // A segment no model names takes the largest error.
  const std::vector<SegmentResult> Unknown = {{SiteA, SiteB, 500, 1, 0, 0},
                                              {SiteA, SiteA, 500, 1, 0, 0}};
  EXPECT_NEAR(F.errorBand(Unknown, 16, 100).Weighted, 0.5 * 0.10 + 0.5 * 0.9, 1e-12);
}
