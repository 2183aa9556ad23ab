// Loops whose trip count depends on the rank or the size (issue 16): learnt from hand-built
// traces at small rank counts, they regenerate exactly the traces the same program gives at
// rank counts never measured, including ranks whose loop runs no trip there; counts no form
// explains are refused at the call where the sequences part.
#include "ThroughTheFile.h"
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ModelFile.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

using namespace mpiete::scaling;
using mpiete::estimator::EventKind;
using mpiete::estimator::NoStatus;

namespace {

constexpr BlockId Site(unsigned K) { return (BlockId(0x51ce0001) << 32) | K; }

using Pattern = std::function<std::vector<Event>(int R, int P)>;

/// A rank's events as the trace probe records them: every computation starts at the call
/// before it; an exchange starts a send and a receive at one call and completes both at another.
struct RankEvents {
  std::vector<Event> Es;
  uint64_t Req = 0;
  BlockId Last = mpiete::ProgramStart;
  void exchange(BlockId Start, BlockId Wait, int To, int From, uint64_t Bytes, int32_t Tag) {
    Es.push_back(Event::segment(Last, Start));
    Es.push_back(Event::send(Start, To, Tag, Bytes, ++Req));
    Es.push_back(Event::recv(Start, From, Tag, Bytes, ++Req));
    Es.push_back(Event::segment(Start, Wait));
    Es.push_back(Event::completion(Wait, {{Req - 1, NoStatus, NoStatus}, {Req, From, Tag}}));
    Last = Wait;
  }
};

/// A program's rank: an exchange with the ring neighbours (before), then Trips trips of a body
/// that exchanges Inner times with its partner (Partner: r xor 1, the other rank of its group)
/// or with the ring neighbours, then the ring exchange again (after).
std::vector<Event> program(int R, int P, int Trips, int Inner, bool Partner) {
  RankEvents E;
  E.exchange(Site(1), Site(2), (R + 1) % P, (R + P - 1) % P, 64, 7);
  for (int T = 0; T < Trips; ++T)
    for (int I = 0; I < Inner; ++I)
      E.exchange(Site(3), Site(4), Partner ? R ^ 1 : (R + 1) % P, Partner ? R ^ 1 : (R + P - 1) % P,
                 4096, 7);
  E.exchange(Site(5), Site(6), (R + 1) % P, (R + P - 1) % P, 64, 7);
  return E.Es;
}

/// Items j of [0, C) with j mod (P / S) equal to r / S.
int dealt(int R, int P, int S, int C) {
  int N = 0;
  for (int J = R / S; J < C; J += P / S)
    ++N;
  return N;
}

std::vector<MeasuredRun> measure(const Pattern &F, const std::vector<int> &Sizes) {
  std::vector<MeasuredRun> Runs;
  for (int P : Sizes) {
    MeasuredRun Run{P, 1, {}, {}, {}};
    for (int R = 0; R < P; ++R)
      Run.PerRank.push_back(F(R, P));
    Runs.push_back(std::move(Run));
  }
  return Runs;
}

/// A pattern whose events depend on the problem size W as well.
using SizedPattern = std::function<std::vector<Event>(int R, int P, double W)>;

/// Every rank's generated stream at P ranks and size W is F's, event for event.
void expectGeneratedAt(const CommStructure &S, const SizedPattern &F, int P, double W) {
  Event E;
  for (int R = 0; R < P; ++R) {
    const std::vector<Event> Want = F(R, P, W);
    SyntheticEventSource Gen(S, R, P, W);
    size_t K = 0;
    while (Gen.next(E)) {
      ASSERT_LT(K, Want.size()) << "rank " << R << " of " << P << " at " << W;
      ASSERT_TRUE(sameEvent(E, Want[K]))
          << "rank " << R << " of " << P << " at " << W << ", event " << K;
      ++K;
    }
    EXPECT_FALSE(Gen.failed());
    EXPECT_EQ(K, Want.size()) << "rank " << R << " of " << P << " at " << W;
  }
}

void expectGenerated(const CommStructure &S, const Pattern &F, int P) {
  expectGeneratedAt(S, [&](int R, int Ranks, double) { return F(R, Ranks); }, P, 1);
}

/// A rank's blocking calls, each after the computation since the call before: a send completed
/// without a status, or a receive completed with its source and tag.
struct Calls {
  std::vector<Event> Es;
  uint64_t Req = 0;
  BlockId Last = mpiete::ProgramStart;
  void call(BlockId At, bool Send, int Peer, int32_t Tag, uint64_t Bytes) {
    Es.push_back(Event::segment(Last, At));
    if (Send) {
      Es.push_back(Event::send(At, Peer, Tag, Bytes, ++Req));
      Es.push_back(Event::completion(At, {{Req, NoStatus, NoStatus}}));
    } else {
      Es.push_back(Event::recv(At, Peer, Tag, Bytes, ++Req));
      Es.push_back(Event::completion(At, {{Req, Peer, Tag}}));
    }
    Last = At;
  }
  /// The events, after a last computation and a send at Site(8) (MPI_Finalize's stand-in).
  std::vector<Event> finish() {
    Es.push_back(Event::segment(Last, Site(8)));
    Es.push_back(Event::send(Site(8), 0, 1, 8, ++Req));
    return std::move(Es);
  }
};

/// The trips of a class's loops and the peers of its sends and receives, as text.
void loopsAndPeers(const RankClass &C, std::vector<std::string> &Trips,
                   std::vector<std::string> &Peers) {
  for (const OpTemplate &Op : C.Ops)
    if (Op.Ctl == OpTemplate::Control::LoopBegin)
      Trips.push_back(Op.Trips.text());
    else if (Op.Ctl == OpTemplate::Control::None &&
             (Op.Proto.Kind == EventKind::SendStart || Op.Proto.Kind == EventKind::RecvStart))
      Peers.push_back(Op.Peer.text());
}

/// The structure learnt from F at Sizes (empty, the failure reported, when refused).
CommStructure learnt(const Pattern &F, const std::vector<int> &Sizes) {
  CommStructure S;
  Refusal Why;
  EXPECT_TRUE(learnStructure(measure(F, Sizes), S, Why)) << Why.Message;
  return S;
}

using mpiete::scaling::test::throughTheFile;

/// S, and S read back from its model file (whose text must hold Line), generate F's traces
/// exactly at every P of Ps and W of Ws.
void expectFileGeneratesAt(const CommStructure &S, const SizedPattern &F, const std::string &Line,
                           std::initializer_list<double> Ws, std::initializer_list<int> Ps) {
  std::string Text;
  const ScalingModelFile G = throughTheFile(S, Text);
  EXPECT_NE(Text.find(Line), std::string::npos) << Text;
  for (const CommStructure *Each : {&S, &G.Learnt})
    for (double W : Ws)
      for (int P : Ps)
        expectGeneratedAt(*Each, F, P, W);
}

const OpTemplate *loopOf(const CommStructure &S) {
  for (const RankClass &C : S.Classes)
    for (const OpTemplate &Op : C.Ops)
      if (Op.Ctl == OpTemplate::Control::LoopBegin)
        return &Op;
  return nullptr;
}

/// f90-transpose's loop: 4 problems dealt to groups of two ranks (`do k = group + 1, nprob,
/// ngroups`). At 16 ranks the groups 4-7 have none, so the measured runs show the computation
/// after the loop starting at the call before it; at 32 and 64 most ranks skip the loop.
TEST(LoopStructureTest, ProblemsDealtToGroupsOfTwoRoundTrip) {
  const Pattern F = [](int R, int P) { return program(R, P, dealt(R, P, 2, 4), 1, true); };
  const CommStructure S = learnt(F, {2, 4, 8, 16});
  const OpTemplate *Loop = loopOf(S);
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(Loop->Trips.K, TripExpr::Cyclic);
  // The fewest items that explain the runs: 4 dealt to pairs, not 8 dealt to single ranks.
  EXPECT_EQ(Loop->Trips.SConst, 2);
  EXPECT_EQ(Loop->Trips.A, 4);
  EXPECT_EQ(Loop->Span, 5u);
  for (int P : {6, 32, 64})
    expectGenerated(S, F, P);
}

/// transpose's loop: 4 planes dealt to the process rows of MPI_Dims_create(P, 2), each plane
/// repeating an inner exchange 3 times. Every measured rank has a plane (2-16 ranks), so the
/// first plane was part of the shared prefix and the body is the whole plane, not one inner
/// exchange (whose trips, 3 per plane, would deal 12 items and give every row of 64 ranks
/// some); at 64 ranks rows 4-7 have none, and their computation after the loop starts at the
/// call before it, which no measured run showed.
TEST(LoopStructureTest, PlanesDealtToProcessRowsRoundTrip) {
  const Pattern F = [](int R, int P) {
    const int Row = R / dimsCreate(P, 2)[0], Rows = dimsCreate(P, 2)[1];
    int Planes = 0;
    for (int J = 0; J < 4; ++J)
      Planes += J % Rows == Row;
    return program(R, P, Planes, 3, true);
  };
  const CommStructure S = learnt(F, {2, 4, 8, 16});
  const OpTemplate *Loop = loopOf(S);
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(Loop->Trips.K, TripExpr::Cyclic);
  EXPECT_EQ(Loop->Trips.GridDims, 2);
  EXPECT_EQ(Loop->Trips.GridAxes, 1);
  EXPECT_EQ(Loop->Trips.A, 4);
  EXPECT_EQ(Loop->Span, 15u);
  EXPECT_EQ(Loop->Trips.eval(40, 64, 1), 0u);
  EXPECT_EQ(Loop->Trips.eval(31, 64, 1), 1u);
  for (int P : {32, 64})
    expectGenerated(S, F, P);
  EXPECT_TRUE(S.formAmbiguities().empty()) << S.formAmbiguities().front().What;
  // From 2 and 4 ranks, where every process row has 2 ranks, the planes may as well go to
  // groups of 2: both kept, refused at 8 ranks (rows of 4) through the model file too, not at
  // 4.
  const CommStructure S4 = learnt(F, {2, 4});
  const std::vector<CommStructure::Ambiguity> A = S4.formAmbiguities();
  ASSERT_EQ(A.size(), 1u);
  EXPECT_EQ(A[0].Site, Site(3)); // the loop's first call
  EXPECT_EQ(A[0].PartsAt, 3);
  EXPECT_EQ(A[0].What,
            "its loop's trip count is group r / 2's of 2 items dealt round-robin to the P / 2 "
            "groups of 2 consecutive ranks, but group r / (d0 of Dims_create(P, 2))'s of 2 items "
            "dealt round-robin to the P / (d0 of Dims_create(P, 2)) groups of (d0 of "
            "Dims_create(P, 2)) consecutive ranks, group r / (d0 of Dims_create(P, 3))'s of 2 "
            "items dealt round-robin to the P / (d0 of Dims_create(P, 3)) groups of (d0 of "
            "Dims_create(P, 3)) consecutive ranks and group r / (d0 * d2 of Dims_create(P, 3))'s "
            "of 2 items dealt round-robin to the P / (d0 * d2 of Dims_create(P, 3)) groups of (d0 "
            "* d2 of Dims_create(P, 3)) consecutive ranks fit every base run as well");
  std::string Text;
  const ScalingModelFile G = throughTheFile(S4, Text);
  BlockId At = 0;
  for (const CommStructure *Each : {&S4, &G.Learnt}) {
    EXPECT_EQ(unmeasuredRankCount(*Each, {2, 4}, 4, 1, At), "");
    EXPECT_EQ(unmeasuredRankCount(*Each, {2, 4}, 8, 1, At),
              "the structure cannot be generated at 8 ranks: its loop's trip count is group r / "
              "2's of 2 items dealt round-robin to the P / 2 groups of 2 consecutive ranks, but "
              "group r / (d0 of Dims_create(P, 2))'s of 2 items dealt round-robin to the P / (d0 "
              "of Dims_create(P, 2)) groups of (d0 of Dims_create(P, 2)) consecutive ranks gives "
              "every base run's as well; at 8 ranks they differ (rank 4: 0 or 1 trips), and "
              "which one the program computes was never measured: add a base run at 3 ranks "
              "(where they first differ) or at 8");
    EXPECT_EQ(At, Site(3));
  }
  expectGenerated(G.Learnt, F, 4);
}

/// A loop over the other ranks (P - 1 trips), learnt from 2, 4, 8 ranks.
TEST(LoopStructureTest, LoopOverTheOtherRanksIsLinearInP) {
  const Pattern F = [](int R, int P) { return program(R, P, P - 1, 1, false); };
  const CommStructure S = learnt(F, {2, 4, 8});
  const OpTemplate *Loop = loopOf(S);
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(Loop->Trips.K, TripExpr::Linear);
  EXPECT_EQ(Loop->Trips.A, 1);
  EXPECT_EQ(Loop->Trips.B, -1);
  expectGenerated(S, F, 64);
}

/// A tree's levels: log2(P) trips.
TEST(LoopStructureTest, LoopOverATreesLevelsIsLog2P) {
  const Pattern F = [](int R, int P) {
    return program(R, P, std::bit_width(unsigned(P)) - 1, 1, false);
  };
  const CommStructure S = learnt(F, {2, 4, 8, 16});
  const OpTemplate *Loop = loopOf(S);
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(Loop->Trips.K, TripExpr::Log2);
  expectGenerated(S, F, 128);
}

/// Hand-written global sums and a barrier whose distances double each round (test-programs/
/// butterfly), Steps time steps: recursive doubling (in round k = 1, 2, 4, ... < P a swap
/// with r xor k) and a dissemination barrier (round k: to (r + k) mod P, from (r - k) mod P;
/// ceil(log2(P)) rounds at any P). Without Sums only the barrier, which any P runs.
std::vector<Event> doubling(int R, int P, int Steps, bool Sums) {
  RankEvents E;
  for (int Step = 0; Step < Steps; ++Step) {
    if (Sums)
      for (int K = 1; K < P; K <<= 1)
        E.exchange(Site(1), Site(2), R ^ K, R ^ K, 32, 11);
    for (int K = 1; K < P; K <<= 1)
      E.exchange(Site(5), Site(6), (R + K) % P, (R - K % P + P) % P, 4, 11);
  }
  E.Es.push_back(Event::segment(E.Last, Site(8)));
  E.Es.push_back(Event::send(Site(8), 0, 1, 8, ++E.Req));
  return E.Es;
}

/// Learnt at powers of two, the sums and the barrier are loops of log2(P) trips whose peers
/// are r xor 2^t and (r +- 2^t) mod P; they regenerate 32 and 64 ranks exactly, and are
/// refused at a rank count that is not a power of two, which no run showed (floor and ceiling
/// of log2(P) agree on every run; r xor 2^t passes the last rank there).
TEST(LoopStructureTest, DoublingDistancesLearntAtPowersOfTwo) {
  const Pattern F = [](int R, int P) { return doubling(R, P, 2, true); };
  const CommStructure S = learnt(F, {2, 4, 8, 16});
  ASSERT_EQ(S.Classes.size(), 1u);
  std::vector<std::string> Peers;
  for (const OpTemplate &Op : S.Classes.front().Ops)
    if (Op.Ctl == OpTemplate::Control::None && Op.Proto.Kind == EventKind::SendStart)
      Peers.push_back(Op.Peer.text());
  EXPECT_NE(std::find(Peers.begin(), Peers.end(), "r xor 2^t on trip t"), Peers.end());
  EXPECT_NE(std::find(Peers.begin(), Peers.end(), "(r + 2^t) mod P on trip t"), Peers.end());
  for (int P : {32, 64})
    expectGenerated(S, F, P);
  BlockId At = 0;
  std::string What;
  ASSERT_TRUE(S.powerOfTwoOnly(At, What));
  EXPECT_EQ(At, Site(1)); // the loop's first call, not the loop's own (siteless) op
  EXPECT_NE(What.find("log2(P)"), std::string::npos) << What;
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4, 8, 16}, 64, 1, At), "");
  EXPECT_NE(unmeasuredRankCount(S, {2, 4, 8, 16}, 48, 1, At), "");
  // A run at a count that is not a power of two measured the program there: the loop's
  // count is pinned (floor and ceiling of log2(6) differ), and nothing else is kept (the
  // dissemination steps alone: r xor 4 is past the last of 6 ranks).
  const CommStructure S6 =
      learnt([](int R, int P) { return doubling(R, P, 2, false); }, {2, 4, 6, 8});
  ASSERT_FALSE(S6.Classes.empty());
  EXPECT_TRUE(S6.formAmbiguities().empty()) << S6.formAmbiguities().front().What;
  EXPECT_EQ(unmeasuredRankCount(S6, {2, 4, 6, 8}, 48, 1, At), "");
  // From powers of two, floor and ceiling of log2(P) are not kept side by side: the gate above
  // answers for them.
  EXPECT_TRUE(S.formAmbiguities().empty()) << S.formAmbiguities().front().What;
  // Through the model file: the kinds, and the site found again without the loop's own.
  std::string Text;
  const ScalingModelFile G = throughTheFile(S, Text);
  expectGenerated(G.Learnt, F, 64);
  EXPECT_NE(unmeasuredRankCount(G.Learnt, {2, 4, 8, 16}, 48, 1, At), "");
  EXPECT_EQ(At, Site(1));
}

/// The barrier alone, measured at 3 and 6 ranks as well: its rounds are ceil(log2(P)), which
/// only a count that is not a power of two tells from floor(log2(P)); generated at 12 and 100.
TEST(LoopStructureTest, DisseminationRoundsAreCeilLog2P) {
  const Pattern F = [](int R, int P) { return doubling(R, P, 1, false); };
  const CommStructure S = learnt(F, {2, 3, 4, 6, 8});
  const OpTemplate *Loop = loopOf(S);
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(Loop->Trips.K, TripExpr::Log2Ceil);
  EXPECT_EQ(Loop->Trips.text(), "ceil(log2(P))");
  EXPECT_EQ(Loop->Trips.eval(0, 100, 1), 7u);
  EXPECT_EQ(Loop->Trips.eval(0, 64, 1), 6u);
  for (int P : {12, 100})
    expectGenerated(S, F, P);
  BlockId At = 0;
  EXPECT_EQ(unmeasuredRankCount(S, {2, 3, 4, 6, 8}, 100, 1, At), "");
}

/// Far trips: 2^(t + A) past 2^31 is past every rank for r xor, and taken mod P for a wrap.
TEST(LoopStructureTest, DoublingPeersAtFarTrips) {
  const PeerExpr X{PeerExpr::TripXorPow, 1};
  EXPECT_EQ(X.evalTrip(3, 16, 0, 4), 1);                           // 3 xor 2
  EXPECT_EQ(X.evalTrip(3, 16, 3, 4), mpiete::estimator::ProcNull); // 3 xor 16
  EXPECT_EQ(X.evalTrip(3, 16, 40, 41), mpiete::estimator::ProcNull);
  const PeerExpr U{PeerExpr::TripWrapPow, 0}, D{PeerExpr::TripWrapPowDown, 0};
  EXPECT_EQ(U.evalTrip(5, 7, 4, 5), (5 + 16) % 7);
  EXPECT_EQ(D.evalTrip(5, 7, 4, 5), ((5 - 16) % 7 + 7) % 7);
  // 2^64 mod 7 = 2 (2^3 = 1 mod 7, 64 = 3 * 21 + 1).
  EXPECT_EQ(U.evalTrip(0, 7, 64, 65), 2);
  // A tree's children: r + 2^t, and the farthest first, r + 2^(n - 1 - t); past the last rank
  // or a trip past the loop's last, PROC_NULL.
  const PeerExpr Up{PeerExpr::TripOffsetPow, 0}, Rev{PeerExpr::TripOffsetPowRev, 0};
  EXPECT_EQ(Up.evalTrip(8, 16, 2, 3), 12);
  EXPECT_EQ(Up.evalTrip(8, 12, 2, 3), mpiete::estimator::ProcNull);
  EXPECT_EQ(Up.evalTrip(0, 1 << 30, 40, 41), mpiete::estimator::ProcNull);
  EXPECT_EQ(Rev.evalTrip(8, 16, 0, 3), 12);
  EXPECT_EQ(Rev.evalTrip(8, 16, 2, 3), 9);
  EXPECT_EQ(Rev.evalTrip(8, 16, 3, 3), mpiete::estimator::ProcNull);
  const PeerExpr Parent{PeerExpr::TreeParent, 0};
  EXPECT_EQ(Parent.eval(12, 16), 8);
  EXPECT_EQ(Parent.eval(7, 16), 6);
  EXPECT_EQ(Parent.eval(0, 16), mpiete::estimator::ProcNull);
  EXPECT_FALSE(Parent.usesTrip());
  // Without a trip, a trip kind is its trip 0 (not the parent of the kind listed beside it).
  EXPECT_EQ((PeerExpr{PeerExpr::TripOffset, 3}.eval(5, 16)), 3);
  // The textbook tree: the parent r - highbit(r); the children above r's bits, r + 2^(t +
  // b(r)), and the farthest first.
  const PeerExpr High{PeerExpr::HighTreeParent, 0};
  EXPECT_EQ(High.eval(12, 16), 4);
  EXPECT_EQ(High.eval(7, 16), 3);
  EXPECT_EQ(High.eval(1, 16), 0);
  EXPECT_EQ(High.eval(0, 16), mpiete::estimator::ProcNull);
  EXPECT_FALSE(High.usesTrip());
  const PeerExpr Above{PeerExpr::TripAbovePow, 0}, AboveRev{PeerExpr::TripAbovePowRev, 0};
  EXPECT_TRUE(Above.usesTrip());
  EXPECT_EQ(Above.evalTrip(0, 16, 0, 4), 1);
  EXPECT_EQ(Above.evalTrip(3, 16, 0, 2), 7);
  EXPECT_EQ(Above.evalTrip(3, 16, 1, 2), 11);
  EXPECT_EQ(Above.evalTrip(3, 10, 1, 2), mpiete::estimator::ProcNull);
  EXPECT_EQ(AboveRev.evalTrip(3, 16, 0, 2), 11);
  EXPECT_EQ(AboveRev.evalTrip(3, 16, 1, 2), 7);
  EXPECT_EQ(AboveRev.evalTrip(3, 16, 2, 2), mpiete::estimator::ProcNull);
  EXPECT_EQ(Above.evalTrip(1, 1 << 30, 40, 41), mpiete::estimator::ProcNull);
}

/// A reduction to rank 0 and a broadcast from it along a binomial tree, written by hand as
/// codes did before they trusted MPI_Reduce (test-programs/f77-bintree), Steps time steps: in
/// round mask = 1, 2, 4, ... a rank whose bit `mask` is set sends its sum to r - mask and stops;
/// the others receive from r + mask where that is a rank. The broadcast runs the rounds back:
/// a rank receives from its parent, then sends to r + mask for its masks from the largest
/// down, where that is a rank. Blocking sends and receives.
std::vector<Event> bintree(int R, int P, int Steps) {
  Calls C;
  for (int Step = 0; Step < Steps; ++Step) {
    int Mask = 1;
    for (; Mask < P; Mask <<= 1) {
      if (R & Mask) {
        C.call(Site(2), true, R - Mask, 21, 32);
        break;
      }
      if (R + Mask < P)
        C.call(Site(1), false, R + Mask, 21, 32);
    }
    for (Mask = 1; Mask < P; Mask <<= 1)
      if (R & Mask) {
        C.call(Site(3), false, R - Mask, 22, 32);
        break;
      }
    for (Mask >>= 1; Mask > 0; Mask >>= 1)
      if (R + Mask < P)
        C.call(Site(4), true, R + Mask, 22, 32);
  }
  return C.finish();
}

/// A tree learnt from 2, 3, 4, 6, 8 and 16 ranks (S) generates exactly at 12, 31, 64 and 100
/// ranks, also through the model file; learnt from powers of two only, exactly at 32 and 64,
/// and it is bound to powers of two (refused at 48).
void expectTreeExtrapolates(const CommStructure &S, const Pattern &F) {
  for (int P : {12, 31, 64, 100})
    expectGenerated(S, F, P);
  BlockId At = 0;
  EXPECT_EQ(unmeasuredRankCount(S, {2, 3, 4, 6, 8, 16}, 100, 1, At), "");
  std::string Text;
  const ScalingModelFile G = throughTheFile(S, Text);
  expectGenerated(G.Learnt, F, 100);

  const CommStructure Pow = learnt(F, {2, 4, 8, 16});
  for (int P : {32, 64})
    expectGenerated(Pow, F, P);
  std::string What;
  ASSERT_TRUE(Pow.powerOfTwoOnly(At, What));
  EXPECT_NE(unmeasuredRankCount(Pow, {2, 4, 8, 16}, 48, 1, At), "");
}

/// Learnt from 2, 3, 4, 6, 8 and 16 ranks (16: a rank with three children, which tells r +
/// 2^t from r + 1 + t), rank 0 apart: the other ranks' receives from their
/// children are a loop of min(tz(r), ceil(log2(P - r))) trips to r + 2^t, their send to the
/// parent r - lowbit(r), and the broadcast's sends a loop of as many trips to r + 2^(n - 1 -
/// t); regenerated exactly at 12, 31, 64 and 100 ranks. Learnt at powers of two only, every
/// rank's children are its trailing zeros, and a count that is not one is refused.
TEST(LoopStructureTest, BinomialTreeChildrenAreTrailingZeros) {
  const Pattern F = [](int R, int P) { return bintree(R, P, 2); };
  const CommStructure S = learnt(F, {2, 3, 4, 6, 8, 16});
  ASSERT_EQ(S.Classes.size(), 2u);
  EXPECT_EQ(S.Classes[0].K, RankClass::First);
  std::vector<std::string> Trips, Peers;
  loopsAndPeers(S.Classes[1], Trips, Peers);
  ASSERT_EQ(Trips.size(), 4u); // two steps, a reduction's and a broadcast's loop each
  for (const std::string &T : Trips)
    EXPECT_EQ(T.substr(0, 31), "min(tz(r), ceil(log2(P - r))) (") << T;
  EXPECT_NE(std::find(Peers.begin(), Peers.end(), "r + 2^t on trip t"), Peers.end());
  EXPECT_NE(std::find(Peers.begin(), Peers.end(),
                      "r - lowbit(r) (the parent in a binomial tree rooted at 0)"),
            Peers.end());
  EXPECT_NE(std::find(Peers.begin(), Peers.end(), "r + 2^(n - 1 - t) on trip t of n"), Peers.end());
  // Rank 0's rounds: ceil(log2(P)), which the runs at 3 and 6 ranks tell from the floor.
  for (const OpTemplate &Op : S.Classes[0].Ops) {
    if (Op.Ctl == OpTemplate::Control::LoopBegin) {
      EXPECT_EQ(Op.Trips.K, TripExpr::Log2Ceil);
    }
  }
  expectTreeExtrapolates(S, F);
  BlockId At = 0;
  EXPECT_EQ(unmeasuredRankCount(learnt(F, {2, 4, 8, 16}), {2, 4, 8, 16}, 64, 1, At), "");
}

/// Two loops back to back whose trips vary independently: C = 4 items dealt round-robin to the
/// ranks, then a binomial tree's receives from the children. The computation before the
/// tree's first receive starts at the item loop's last call on ranks 0-3 and at the call
/// before it on the others, so neither a fixed entry nor the loop's two seams give it:
/// it starts at the call generated last (FromRule::Dynamic), and the members part after the
/// first loop in different ways, which the alignment of the second explains.
std::vector<Event> itemsThenTree(int R, int P) {
  Calls C;
  for (int Step = 0; Step < 2; ++Step) {
    C.call(Site(6), true, (R + 1) % P, 5, 16);
    for (int Item = R; Item < 4; Item += P)
      C.call(Site(7), false, (R + P - 1) % P, 5, 16);
    int Mask = 1;
    for (; Mask < P && !(R & Mask); Mask <<= 1)
      if (R + Mask < P)
        C.call(Site(1), false, R + Mask, 5, 16);
    if (R != 0)
      C.call(Site(2), true, R - Mask, 5, 16);
  }
  return std::move(C.Es);
}

TEST(LoopStructureTest, ComputationAfterALoopThatMayRunNoTripStartsAtTheLastCall) {
  const CommStructure S = learnt(itemsThenTree, {2, 3, 4, 6, 8, 16});
  ASSERT_FALSE(S.Classes.empty());
  size_t Dynamic = 0;
  for (const RankClass &C : S.Classes)
    for (const OpTemplate &Op : C.Ops)
      Dynamic += Op.FromR == OpTemplate::FromRule::Dynamic;
  EXPECT_GT(Dynamic, 0u);
  for (int P : {12, 64})
    expectGenerated(S, itemsThenTree, P);
  std::string Text;
  const ScalingModelFile G = throughTheFile(S, Text);
  EXPECT_NE(Text.find("from-rule 3"), std::string::npos);
  expectGenerated(G.Learnt, itemsThenTree, 64);
}

/// The textbook's binomial tree, the other layout (Pacheco's and many course codes'): in round
/// mask = 1, 2, 4, ... of the broadcast, a rank below mask sends to r + mask where that is a
/// rank, and a rank in [mask, 2 mask) receives from r - mask; the reduction runs the rounds
/// from the largest mask down with the directions swapped. Rank r's parent is r - highbit(r)
/// and its children r + 2^j for j from bit_width(r) while that is a rank.
std::vector<Event> hightree(int R, int P, int Steps) {
  Calls C;
  int Top = 1;
  while (Top * 2 < P)
    Top *= 2;
  for (int Step = 0; Step < Steps; ++Step) {
    for (int Mask = 1; Mask < P; Mask <<= 1)
      if (R < Mask) {
        if (R + Mask < P)
          C.call(Site(1), true, R + Mask, 31, 24);
      } else if (R < 2 * Mask) {
        C.call(Site(2), false, R - Mask, 31, 24);
      }
    for (int Mask = P > 1 ? Top : 0; Mask > 0; Mask >>= 1)
      if (R < Mask) {
        if (R + Mask < P)
          C.call(Site(3), false, R + Mask, 32, 24);
      } else if (R < 2 * Mask) {
        C.call(Site(4), true, R - Mask, 32, 24);
      }
  }
  return C.finish();
}

/// Learnt from 2, 3, 4, 6, 8 and 16 ranks: rank 0 apart, a rank receives from r - highbit(r),
/// sends to its ceil(log2(P - r)) - bit_width(r) children r + 2^(t + b(r)), receives their
/// sums farthest first and sends its own to the parent; regenerated exactly at 12, 31, 64
/// and 100 ranks and through the model file. From powers of two only, exact at 32 and 64 and
/// refused at 48.
TEST(LoopStructureTest, TextbookTreeChildrenAreAboveTheRanksBits) {
  const Pattern F = [](int R, int P) { return hightree(R, P, 2); };
  const CommStructure S = learnt(F, {2, 3, 4, 6, 8, 16});
  ASSERT_EQ(S.Classes.size(), 2u);
  EXPECT_EQ(S.Classes[0].K, RankClass::First);
  std::vector<std::string> Trips, Peers;
  loopsAndPeers(S.Classes[1], Trips, Peers);
  ASSERT_EQ(Trips.size(), 4u) << ::testing::PrintToString(Peers);
  for (const std::string &T : Trips)
    EXPECT_EQ(T.substr(0, 34), "ceil(log2(P - r)) - bit_width(r), ") << T;
  for (const char *Want :
       {"r + 2^(t + b(r)) on trip t, b(r) = bit_width(r)",
        "r + 2^(n - 1 - t + b(r)) on trip t of n, b(r) = bit_width(r)",
        "r - highbit(r) (the parent in a binomial tree rooted at 0, children above their "
        "parent's bits)"})
    EXPECT_NE(std::find(Peers.begin(), Peers.end(), Want), Peers.end())
        << Want << " in " << ::testing::PrintToString(Peers);
  expectTreeExtrapolates(S, F);
}

/// A pipeline over the blocks of the problem, as a wavefront sweeps its columns in blocks of
/// NB: for each of W / (NB P) blocks of its own columns a rank receives the block's boundary
/// from r - 1, computes and sends its own to r + 1 (the line's ends skip theirs). The loop's
/// trips follow the problem size, the same on every rank.
std::vector<Event> blocks(int R, int P, double W) {
  Calls C;
  C.call(Site(6), true, (R + 1) % P, 9, 8 * 16);
  for (int K = 0; K < int(W) / (16 * P); ++K) {
    if (R > 0)
      C.call(Site(1), false, R - 1, 9, 8 * 16);
    if (R < P - 1)
      C.call(Site(2), true, R + 1, 9, 8 * 16);
  }
  C.call(Site(7), false, (R + P - 1) % P, 9, 8 * 16);
  return std::move(C.Es);
}

std::vector<MeasuredRun> measureAt(const std::function<std::vector<Event>(int, int, double)> &F,
                                   const std::vector<int> &Ranks, const std::vector<double> &Ws) {
  std::vector<MeasuredRun> Runs;
  for (double W : Ws)
    for (int P : Ranks) {
      MeasuredRun Run{P, W, {}, {}, {}};
      for (int R = 0; R < P; ++R)
        Run.PerRank.push_back(F(R, P, W));
      Runs.push_back(std::move(Run));
    }
  return Runs;
}

/// Learnt from 2, 4 and 8 ranks at W = 512 and 1024: the loop runs W / (16 P) trips, written
/// `0.0625 * W^1 / P^1` (every measured count is a multiple of 4, so a body of four blocks fits
/// as well: the shortest body is taken), and the structure generates exactly at 16 and 32
/// ranks and W = 1536 (3 and 6 blocks), 2560 and 4096, through the model file too. From one
/// size the same loop is a count of (r, P) and at another size is wrong; the learner cannot
/// tell, which is why the form needs two sizes.
TEST(LoopStructureTest, TripsFromTheProblemSize) {
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureAt(blocks, {2, 4, 8}, {512, 1024}), S, Why)) << Why.Message;
  const TripExpr *Trips = nullptr;
  for (const RankClass &C : S.Classes)
    for (const OpTemplate &Op : C.Ops)
      if (Op.Ctl == OpTemplate::Control::LoopBegin)
        Trips = &Op.Trips;
  ASSERT_NE(Trips, nullptr);
  EXPECT_EQ(Trips->K, TripExpr::Size);
  EXPECT_EQ(Trips->text(), "0.0625 * W^1 / P^1 (from the problem size W)");
  EXPECT_EQ(Trips->eval(3, 16, 4096), 16u);
  EXPECT_FALSE(Trips->powerOfTwoOnly());
  std::string Text;
  const ScalingModelFile G = throughTheFile(S, Text);
  for (const CommStructure *Each : std::vector<const CommStructure *>{&S, &G.Learnt})
    for (double W : {1536.0, 2560.0, 4096.0})
      for (int P : {16, 32})
        expectGeneratedAt(*Each, blocks, P, W);
  // At 16 ranks and W = 1000 the trips are 3.90625, a count no base run showed rounded: said
  // at the loop (each class's: rank 0's starts at its send, the others' at their receive),
  // and nothing at W = 4096 where it divides.
  EXPECT_TRUE(S.fractionsAt(16, 4096).empty());
  const std::vector<CommStructure::Fraction> Fs = S.fractionsAt(16, 1000);
  ASSERT_FALSE(Fs.empty());
  for (const CommStructure::Fraction &F : Fs) {
    EXPECT_EQ(F.Value, 3.90625);
    EXPECT_NE(F.What.find("its loop's trips"), std::string::npos) << F.What;
  }
  // A count that depends on the rank as well as the size is none of the forms.
  auto Skewed = [](int R, int P, double W) { return blocks(R, P, W * (R % 2 ? 2 : 1)); };
  CommStructure T;
  EXPECT_FALSE(learnStructure(measureAt(Skewed, {2, 4, 8}, {512, 1024}), T, Why));
}

/// A wavefront's sweeps over W / 64 column blocks, Steps times: forward, a rank receives a
/// block's boundary from r - 1 and sends its own to r + 1; backward, it receives from r + 1
/// and sends to r - 1 synchronously. Both sweeps receive through one helper (Site(1)), so a
/// member whose forward sweep ended keeps step with one still in it for the next receive: the
/// members part a call after the loop's end, and the loop is found by going back to it.
std::vector<Event> sweeps(int R, int P, double W) {
  Calls C;
  auto Call = [&](BlockId At, bool Send, int Peer) {
    if (Peer >= 0 && Peer < P)
      C.call(At, Send, Peer, 3, 512);
  };
  for (int Step = 0; Step < 3; ++Step) {
    for (int K = 0; K < int(W) / 64; ++K) {
      Call(Site(1), false, R - 1);
      Call(Site(2), true, R + 1);
    }
    for (int K = 0; K < int(W) / 64; ++K) {
      Call(Site(1), false, R + 1);
      Call(Site(3), true, R - 1);
    }
  }
  return C.finish();
}

TEST(LoopStructureTest, ALoopEndsBeforeTheMembersPart) {
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureAt(sweeps, {2, 4, 8}, {512, 1024}), S, Why)) << Why.Message;
  for (const RankClass &C : S.Classes)
    for (const OpTemplate &Op : C.Ops)
      if (Op.Ctl == OpTemplate::Control::LoopBegin)
        EXPECT_EQ(Op.Trips.text(), "0.015625 * W^1 (from the problem size W)");
  for (auto [P, W] : {std::pair{16, 1536.0}, std::pair{12, 2560.0}, std::pair{3, 320.0}})
    expectGeneratedAt(S, sweeps, P, W);
}

/// A line solve along x pipelined row by row, on a d0 x d1 grid of MPI_Dims_create(P, 2) in
/// row-major order (rank r at process row r / d1): the W rows are dealt to the process rows
/// (`nloc = n / d0 + (prow < mod(n, d0))`), and for each of its rows a rank receives the
/// row's coefficients from its west neighbour and sends its own east, then the back
/// substitution goes west, the row's ring periodic. The trips depend on the rank and the size
/// together wherever d0 does not divide W.
std::vector<Event> linesweep(int R, int P, double W) {
  const std::vector<int> D = dimsCreate(P, 2);
  const int Row = R / D[1], Col = R % D[1], N = int(W);
  const int East = Row * D[1] + (Col + 1) % D[1], West = Row * D[1] + (Col + D[1] - 1) % D[1];
  const int Rows = N / D[0] + (Row < N % D[0] ? 1 : 0);
  Calls C;
  C.call(Site(6), true, (R + 1) % P, 9, 64);
  for (int Step = 0; Step < 2; ++Step) {
    for (int K = 0; K < Rows; ++K) {
      C.call(Site(1), false, West, 4, 16);
      C.call(Site(2), true, East, 4, 16);
    }
    for (int K = 0; K < Rows; ++K) {
      C.call(Site(3), false, East, 5, 8);
      C.call(Site(4), true, West, 5, 8);
    }
  }
  return C.finish();
}

/// Learnt from 2, 4, 8 and 16 ranks at W = 250 and 390 (rows over 2 and 4 process rows, the
/// remainder 2 on the first): each loop's trips are the process row's share of W rows dealt
/// round-robin to the d0 process rows (groups of d1 consecutive ranks), and the structure
/// generates exactly at 12, 32 and 64 ranks and at sizes no base run had, through the model
/// file too. From one size the rows are a constant, and at another size the count is wrong.
TEST(LoopStructureTest, RowsDealtToProcessRowsFollowTheSize) {
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureAt(linesweep, {2, 4, 8, 16}, {251, 389}), S, Why))
      << Why.Message;
  std::vector<std::string> Trips, Peers;
  for (const RankClass &C : S.Classes)
    loopsAndPeers(C, Trips, Peers);
  ASSERT_EQ(Trips.size(), 4u);
  for (const std::string &T : Trips)
    EXPECT_EQ(T, "group r / (d1 of Dims_create(P, 2))'s share of C = 1 * W^1 (from the problem "
                 "size W) items dealt round-robin to the G = P / (d1 of Dims_create(P, 2)) groups "
                 "of (d1 of Dims_create(P, 2)) consecutive ranks");
  expectFileGeneratesAt(S, linesweep, "loop 6 7 1 2 2 0 0 1:1:0", {250, 501, 1003}, {12, 32, 64});
  // Pinned: no other way fits these runs.
  EXPECT_TRUE(S.formAmbiguities().empty()) << S.formAmbiguities().front().What;
  // At W = 501 and 389 every member shares 97 trips, and the whole shared prefix repeated once
  // or twice fitted 2 items dealt to groups of d0 d1 of Dims_create(P, 3); the rest of each
  // member's loop then followed as more trips of the one-row body, and the structure was
  // refused further on. A body of copies that some member repeats once more after its last
  // trip is not the loop.
  CommStructure Prefix;
  ASSERT_TRUE(learnStructure(measureAt(linesweep, {2, 4, 8, 16}, {501, 389}), Prefix, Why))
      << Why.Message;
  expectGeneratedAt(Prefix, linesweep, 32, 1003);
  // At W = 250 and 390 (2 mod 4) the rows fit W / 2 dealt to groups of d0 d1 of
  // Dims_create(P, 3) as well (the fewest items, but no whole count at odd W: the process
  // rows' W is taken), which parts from the process rows' W at 3 ranks (Dims_create 3 x 1
  // against 3 x 1 x 1: three process rows of W rows against one group of W / 2); the loops
  // keep the other way, through the model file too, and the target is refused where they
  // differ (12 ranks at W = 250); at W = 501 the taken form generates exactly.
  CommStructure Even;
  ASSERT_TRUE(learnStructure(measureAt(linesweep, {2, 4, 8, 16}, {250, 390}), Even, Why));
  expectGeneratedAt(Even, linesweep, 32, 501);
  const std::vector<CommStructure::Ambiguity> Open = Even.formAmbiguities();
  ASSERT_EQ(Open.size(), 2u); // the forward and backward loops, once each
  EXPECT_EQ(Open[0].PartsAt, 3);
  EXPECT_EQ(Open[0].Site, Site(1));
  EXPECT_EQ(Open[0].What.substr(0, 109), "its loop's trip count is group r / (d1 of Dims_create(P, "
                                         "2))'s share of C = 1 * W^1 (from the problem size W)");
  EXPECT_NE(Open[0].What.find(", but group r / (d0 * d1 of Dims_create(P, 3))'s share of C = 0.5 "
                              "* W^1"),
            std::string::npos)
      << Open[0].What;
  std::string Text;
  const ScalingModelFile Back = throughTheFile(Even, Text);
  EXPECT_EQ(Back.Learnt.formAmbiguities().size(), 2u);
  EXPECT_NE(Text.find(" alt-trips 7 "), std::string::npos) << Text;
  BlockId At = 0;
  for (const CommStructure *Each : {static_cast<const CommStructure *>(&Even), &Back.Learnt}) {
    // At 12 ranks and W = 250 both give every rank the same trips; at 501 rank 3 has 125 or
    // 126; at 32 ranks they part at either size.
    EXPECT_EQ(unmeasuredRankCount(*Each, {2, 4, 8, 16}, 12, 250, At), "");
    EXPECT_NE(unmeasuredRankCount(*Each, {2, 4, 8, 16}, 12, 501, At)
                  .find("at 12 ranks they differ (rank 3: 125 or 126 trips)"),
              std::string::npos);
    EXPECT_NE(unmeasuredRankCount(*Each, {2, 4, 8, 16}, 32, 250, At)
                  .find("at 32 ranks they differ (rank 0: 32 or 63 trips)"),
              std::string::npos);
    EXPECT_EQ(At, Site(1));
  }
  // From W = 251 alone, rank 0 of 8 generates 251's rows at W = 389 too.
  CommStructure One;
  ASSERT_TRUE(learnStructure(measureAt(linesweep, {2, 4, 8, 16}, {251}), One, Why));
  SyntheticEventSource Gen(One, 0, 8, 389);
  size_t Count = 0;
  for (Event E; Gen.next(E);)
    ++Count;
  EXPECT_EQ(Count, linesweep(0, 8, 251).size());
  EXPECT_NE(Count, linesweep(0, 8, 389).size());
}

/// A halo exchange on a periodic d0 x d1 grid of MPI_Dims_create(P, 2) (row-major) whose W x W
/// points do not divide: a rank's rows are its process row's share of W (the first W mod d0
/// process rows one longer), its columns its process column's. East and west go the rank's
/// rows with their two corners, 8 (nloc + 2) bytes; north and south its columns, 8 mloc.
std::vector<Event> halo2d(int R, int P, double W) {
  const std::vector<int> D = dimsCreate(P, 2);
  const int Row = R / D[1], Col = R % D[1], N = int(W);
  const int Rows = N / D[0] + (Row < N % D[0] ? 1 : 0), Cols = N / D[1] + (Col < N % D[1] ? 1 : 0);
  auto At = [&](int Rw, int Cl) { return (Rw + D[0]) % D[0] * D[1] + (Cl + D[1]) % D[1]; };
  Calls C;
  for (int Step = 0; Step < 3; ++Step) {
    C.call(Site(1), true, At(Row, Col + 1), 1, 8 * uint64_t(Rows + 2));
    C.call(Site(2), false, At(Row, Col - 1), 1, 8 * uint64_t(Rows + 2));
    C.call(Site(3), true, At(Row + 1, Col), 2, 8 * uint64_t(Cols));
    C.call(Site(4), false, At(Row - 1, Col), 2, 8 * uint64_t(Cols));
  }
  return C.finish();
}

/// Learnt from 2-16 ranks at W = 251 and 389: the east-west count is 16 + 8 times the process
/// row's share of W (groups of d1 consecutive ranks), the north-south count 8 times the process
/// column's (every d1-th rank); generated exactly at 12, 32 and 64 ranks and W = 250, 501 and
/// 1003, through the model file too. Before, the counts' difference between ranks was refused.
TEST(LoopStructureTest, HaloOfARanksShareOfRows) {
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureAt(halo2d, {2, 4, 8, 16}, {251, 389}), S, Why)) << Why.Message;
  std::vector<std::string> Bytes; // east's and south's, the same every step
  for (const RankClass &C : S.Classes)
    for (const OpTemplate &Op : C.Ops)
      if (Op.Proto.Kind == EventKind::SendStart && Op.Proto.Block != Site(8) &&
          std::find(Bytes.begin(), Bytes.end(), Op.bytesText()) == Bytes.end())
        Bytes.push_back(Op.bytesText());
  ASSERT_EQ(Bytes.size(), 2u);
  EXPECT_EQ(Bytes[0], "16 + 8 * (group r / (d1 of Dims_create(P, 2))'s share of C = 1 * W^1 (from "
                      "the problem size W) items dealt round-robin to the G = P / (d1 of "
                      "Dims_create(P, 2)) groups of (d1 of Dims_create(P, 2)) consecutive ranks)");
  EXPECT_EQ(Bytes[1], "8 * (group r mod (d1 of Dims_create(P, 2))'s share of C = 1 * W^1 (from "
                      "the problem size W) items dealt round-robin to the G = (d1 of "
                      "Dims_create(P, 2)) groups of every (d1 of Dims_create(P, 2))-th rank)");
  expectFileGeneratesAt(S, halo2d, " share 7 1 2 2 0 1 1:1:0", {250, 501, 1003}, {12, 32, 64});
  OpTemplate Op;
  EXPECT_FALSE(parseOp("segment 51ce0001:1 51ce0001:2 0 0 0 0 1 0:0:0:0:0 0:0:0 share 7 1 2 2 0 "
                       "1 1:1:0",
                       Op))
      << "a share on a computation";
  EXPECT_FALSE(parseOp("send 51ce0001:1 00000000:0 1 0 0 0 1 0:0:0:0:0 8:0:0 share 6 1 0 0 0 0 "
                       "1:1:0",
                       Op))
      << "a share that is no dealt count";
}

/// Items in blocks of ceil(C / P) (`nb = (n + np - 1) / np`, the last ranks short or empty) and
/// the remainder on the last rank (`if (me == np - 1) nloc = nloc + mod(n, np)`): a rank sends
/// each of its items to its successor. Learnt from 2, 3, 4 and 8 ranks at W = 60 and 100; at 16
/// ranks and W = 250 the blocks leave ranks 15's share short (250 = 15 x 16 + 10), at 7 ranks
/// and W = 20 the last rank empty.
std::vector<Event> shares(int R, int P, double W, TripExpr::Deal D) {
  Calls C;
  C.call(Site(6), true, (R + 1) % P, 9, 64);
  for (int64_t K = 0; K < TripExpr::share(int64_t(W), P, R, D); ++K)
    C.call(Site(2), true, (R + 1) % P, 4, 800);
  C.call(Site(7), false, (R + P - 1) % P, 9, 64);
  return C.finish();
}

TEST(LoopStructureTest, BlocksAndTheRestToTheLastFollowTheSize) {
  for (TripExpr::Deal D : {TripExpr::Blocks, TripExpr::LastTakesRest}) {
    const SizedPattern F = [D](int R, int P, double W) { return shares(R, P, W, D); };
    CommStructure S;
    Refusal Why;
    ASSERT_TRUE(learnStructure(measureAt(F, {2, 3, 4, 8}, {60, 100}), S, Why)) << Why.Message;
    const OpTemplate *Loop = loopOf(S);
    ASSERT_NE(Loop, nullptr);
    EXPECT_EQ(Loop->Trips.K, TripExpr::Dealt);
    EXPECT_EQ(Loop->Trips.A, D);
    std::string Text;
    const ScalingModelFile G = throughTheFile(S, Text);
    for (const CommStructure *Each : std::vector<const CommStructure *>{&S, &G.Learnt})
      for (auto [P, W] : {std::pair{16, 250.0}, std::pair{7, 20.0}, std::pair{64, 1000.0}})
        expectGeneratedAt(*Each, F, P, W);
  }
}

/// Shares: 10 items over 4 groups round-robin 3 3 2 2, in blocks 3 3 3 1, the rest to the last
/// 2 2 2 4; 2 items in blocks of 1 over 4 leave the last two none; nothing outside the groups.
TEST(LoopStructureTest, DealtShares) {
  std::vector<int64_t> RR, Bl, Last;
  for (int G = 0; G < 4; ++G) {
    RR.push_back(TripExpr::share(10, 4, G, TripExpr::RoundRobin));
    Bl.push_back(TripExpr::share(10, 4, G, TripExpr::Blocks));
    Last.push_back(TripExpr::share(10, 4, G, TripExpr::LastTakesRest));
  }
  EXPECT_EQ(RR, (std::vector<int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(Bl, (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(Last, (std::vector<int64_t>{2, 2, 2, 4}));
  EXPECT_EQ(TripExpr::share(2, 4, 3, TripExpr::Blocks), 0);
  EXPECT_EQ(TripExpr::share(10, 4, 4, TripExpr::RoundRobin), 0);
  EXPECT_EQ(TripExpr::share(-3, 4, 0, TripExpr::RoundRobin), 0);
  // In the model file: FORM 7, the way in A, the items as a byte count is written.
  OpTemplate Op;
  ASSERT_TRUE(parseOp("loop 2 7 2 0 0 1 0 1:1:0", Op));
  EXPECT_EQ(Op.Trips.eval(2, 8, 10), 3u); // group 1 of 4, blocks of 3
  EXPECT_EQ(Op.Trips.eval(7, 8, 10), 1u);
  EXPECT_EQ(formatOp(Op), "loop 2 7 2 0 0 1 0 1:1:0");
  EXPECT_FALSE(parseOp("loop 2 7 2 0 0 3 0 1:1:0", Op)) << "no such way";
  EXPECT_FALSE(parseOp("loop 2 7 2 0 0 1 0", Op)) << "no items";
}

/// The Size form in the model file: COEFF:WEXP:PEXP[:CONST] after the loop's fields.
TEST(LoopStructureTest, SizeTripsParse) {
  OpTemplate Op;
  ASSERT_TRUE(parseOp("loop 4 6 1 0 0 0 0 0.0625:1:1", Op));
  EXPECT_EQ(Op.Trips.K, TripExpr::Size);
  EXPECT_EQ(Op.Trips.eval(0, 4, 1024), 16u);
  EXPECT_EQ(formatOp(Op), "loop 4 6 1 0 0 0 0 0.0625:1:1");
  ASSERT_TRUE(parseOp("loop 4 6 1 0 0 0 0 1:1:0:-10", Op));
  EXPECT_EQ(Op.Trips.eval(0, 4, 4), 0u); // below zero: no trip
  EXPECT_EQ(Op.Trips.eval(0, 4, 14), 4u);
  EXPECT_FALSE(parseOp("loop 4 6 1 0 0 0 0", Op)) << "no count";
  EXPECT_FALSE(parseOp("loop 4 6 1 0 0 0 0 nan:1:1", Op));
  EXPECT_FALSE(parseOp("loop 4 6 1 0 0 0 0 1:1:1 extra", Op));
  EXPECT_FALSE(parseOp("loop 4 5 1 0 0 0 0 1:1:1", Op)) << "a count for a form without one";
  EXPECT_FALSE(parseOp("loop 4 8 1 0 0 0 0 1:1:1", Op)) << "no form 8";
}

/// The textbook tree's count: rank 0 ceil(log2(P)); rank 1 of 16 three (3, 5, 9); rank 3 of
/// 10 one (7; 11 is past the last rank); rank 5 of 6 and rank 9 of 16 none.
TEST(LoopStructureTest, HighTreeChildrenCount) {
  TripExpr T;
  T.K = TripExpr::HighTreeChildren;
  EXPECT_EQ(T.eval(0, 1, 1), 0u);
  EXPECT_EQ(T.eval(0, 6, 1), 3u);
  EXPECT_EQ(T.eval(1, 16, 1), 3u);
  EXPECT_EQ(T.eval(3, 10, 1), 1u);
  EXPECT_EQ(T.eval(5, 6, 1), 0u);
  EXPECT_EQ(T.eval(9, 16, 1), 0u);
  EXPECT_EQ(T.eval(2, 100, 1), 5u); // 6, 10, 18, 34, 66
  EXPECT_TRUE(T.mayBeZero());
  EXPECT_TRUE(T.powerOfTwoOnly());
}

/// The children's count: rank 0 has ceil(log2(P)); an odd rank none; rank 4 of 6 one (5; 6 is
/// past the last rank).
TEST(LoopStructureTest, TreeChildrenCount) {
  TripExpr T;
  T.K = TripExpr::TreeChildren;
  EXPECT_EQ(T.eval(0, 1, 1), 0u);
  EXPECT_EQ(T.eval(0, 6, 1), 3u);
  EXPECT_EQ(T.eval(0, 8, 1), 3u);
  EXPECT_EQ(T.eval(5, 8, 1), 0u);
  EXPECT_EQ(T.eval(4, 6, 1), 1u);
  EXPECT_EQ(T.eval(4, 8, 1), 2u);
  EXPECT_EQ(T.eval(8, 100, 1), 3u);
  EXPECT_EQ(T.eval(96, 100, 1), 2u); // 97, 98; 100 is past the last rank
  EXPECT_TRUE(T.mayBeZero());
  EXPECT_TRUE(T.powerOfTwoOnly());
}

/// f77-cg's hand-written sum, twice: rank 0 posts a receive from each other rank in turn (`do
/// k = 1, nproc - 1`), waits for each (req(k): the starts after it fall by one a trip and grow
/// with the loop), then sends the sum to each; the others send, receive and wait. Three loops a
/// sum on rank 0, each trip's peer its own.
std::vector<Event> gsum(int R, int P) {
  std::vector<Event> Es;
  uint64_t Req = 0;
  BlockId Last = mpiete::ProgramStart;
  auto Seg = [&](BlockId To) {
    Es.push_back(Event::segment(Last, To));
    Last = To;
  };
  for (int Time = 0; Time < 2; ++Time) {
    if (R == 0) {
      const uint64_t First = Req + 1;
      for (int K = 1; K < P; ++K) {
        Seg(Site(7));
        Es.push_back(Event::recv(Site(7), K, 7, 8, ++Req));
      }
      for (int K = 1; K < P; ++K) {
        Seg(Site(9));
        Es.push_back(Event::completion(Site(9), {{First + uint64_t(K) - 1, K, 7}}));
      }
      for (int K = 1; K < P; ++K) {
        Seg(Site(11));
        Es.push_back(Event::send(Site(11), K, 8, 8, ++Req));
        Seg(Site(12));
        Es.push_back(Event::completion(Site(12), {{Req, NoStatus, NoStatus}}));
      }
    } else {
      Seg(Site(11));
      Es.push_back(Event::send(Site(11), 0, 7, 8, ++Req));
      Seg(Site(12));
      Es.push_back(Event::completion(Site(12), {{Req, NoStatus, NoStatus}}));
      Seg(Site(13));
      Es.push_back(Event::recv(Site(13), 0, 8, 8, ++Req));
      Seg(Site(14));
      Es.push_back(Event::completion(Site(14), {{Req, 0, 8}}));
    }
    // The ghost exchange between the sums.
    Seg(Site(1));
    Es.push_back(Event::send(Site(1), (R + 1) % P, 3, 64, ++Req));
    Es.push_back(Event::recv(Site(1), (R + P - 1) % P, 3, 64, ++Req));
    Seg(Site(2));
    Es.push_back(
        Event::completion(Site(2), {{Req - 1, NoStatus, NoStatus}, {Req, (R + P - 1) % P, 3}}));
  }
  return Es;
}

TEST(LoopStructureTest, HandWrittenSumsLoopsOverTheOtherRanks) {
  const CommStructure S = learnt(gsum, {2, 4, 8, 16});
  ASSERT_EQ(S.Classes.size(), 2u);
  size_t Loops = 0;
  for (const OpTemplate &Op : S.Classes.front().Ops)
    if (Op.Ctl == OpTemplate::Control::LoopBegin) {
      ++Loops;
      EXPECT_EQ(Op.Trips.K, TripExpr::Linear);
      EXPECT_EQ(Op.Trips.text(), "P - 1");
    }
  EXPECT_EQ(Loops, 6u);
  EXPECT_TRUE(S.LoopDist);
  // At 64 ranks rank 0 waits for requests 62 starts back: the generator keeps that many.
  EXPECT_EQ(S.maxDist(0, 64, 1), 62u);
  for (int P : {32, 64})
    expectGenerated(S, gsum, P);
  // Through the model file.
  std::string Text;
  const ScalingModelFile G = throughTheFile(S, Text);
  EXPECT_NE(Text.find("dist-trip -1 1"), std::string::npos);
  EXPECT_TRUE(G.Learnt.LoopDist);
  expectGenerated(G.Learnt, gsum, 64);
}

/// A hand-written all-to-all in shifted steps, Rounds times (a time step around it): on step k
/// = 1 .. P - 1 a rank sends to (r + k) mod P and receives from (r - k) mod P.
std::vector<Event> shifted(int R, int P, int Rounds) {
  std::vector<Event> Es;
  uint64_t Req = 0;
  BlockId Last = mpiete::ProgramStart;
  for (int Round = 0; Round < Rounds; ++Round)
    for (int K = 1; K < P; ++K) {
      Es.push_back(Event::segment(Last, Site(3)));
      Es.push_back(Event::send(Site(3), (R + K) % P, 9, 512, ++Req));
      Es.push_back(Event::recv(Site(3), (R - K + P) % P, 9, 512, ++Req));
      Es.push_back(Event::segment(Site(3), Site(4)));
      Es.push_back(
          Event::completion(Site(4), {{Req - 1, NoStatus, NoStatus}, {Req, (R - K + P) % P, 9}}));
      Last = Site(4);
    }
  Es.push_back(Event::segment(Last, Site(5)));
  Es.push_back(Event::send(Site(5), 0, 1, 8, ++Req));
  return Es;
}

/// Once, and three times: the three rounds align as one loop of 3 (P - 1) trips, whose peers
/// are no function of its trip; split in three they are.
TEST(LoopStructureTest, ShiftedExchangeSendsUpAndReceivesDown) {
  for (int Rounds : {1, 3}) {
    const Pattern F = [Rounds](int R, int P) { return shifted(R, P, Rounds); };
    const CommStructure S = learnt(F, {2, 4, 8});
    ASSERT_FALSE(S.Classes.empty());
    const std::vector<OpTemplate> &Ops = S.Classes.front().Ops;
    EXPECT_EQ(std::count_if(Ops.begin(), Ops.end(),
                            [](const OpTemplate &Op) {
                              return Op.Ctl == OpTemplate::Control::LoopBegin &&
                                     Op.Trips.text() == "P - 1";
                            }),
              Rounds);
    const auto Send = std::find_if(Ops.begin(), Ops.end(), [](const OpTemplate &Op) {
      return Op.Ctl == OpTemplate::Control::None && Op.Proto.Kind == EventKind::SendStart &&
             Op.Proto.Block == Site(3);
    });
    ASSERT_NE(Send, Ops.end());
    EXPECT_EQ(Send->Peer.text(), "(r + 1 + t) mod P on trip t");
    EXPECT_EQ((Send + 1)->Peer.text(), "(r - 1 - t) mod P on trip t");
    expectGenerated(S, F, 64);
  }
}

/// Trips no form explains (the rank's square mod 3, plus one at 4 ranks) are refused at the
/// call where the sequences part, and the reason names the forms tried.
TEST(LoopStructureTest, TripsNoFormExplainsRefused) {
  const Pattern F = [](int R, int P) { return program(R, P, R * R % 3 + (P == 4), 1, true); };
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(measure(F, {2, 4, 8}), S, Why));
  EXPECT_NE(Why.Message.find("loop count"), std::string::npos) << Why.Message;
}

/// The loop's bounds and its seams' rules survive the model file; bounds that do not match are
/// a located error, not a stream that runs past its ops.
TEST(LoopStructureTest, LoopsRoundTripThroughTheModelFile) {
  const Pattern F = [](int R, int P) { return program(R, P, dealt(R, P, 2, 4), 1, true); };
  std::string First;
  const ScalingModelFile G = throughTheFile(learnt(F, {2, 4, 8, 16}), First);
  EXPECT_NE(First.find("from-rule 2"), std::string::npos);
  std::ostringstream Second;
  writeScalingModel(Second, G);
  EXPECT_EQ(First, Second.str());
  expectGenerated(G.Learnt, F, 64);

  // An end whose span differs from its loop's.
  const std::string Path =
      (std::filesystem::temp_directory_path() / "mpiete-loop-bad-test.yaml").string();
  std::ostringstream Errors;
  mpiete::DiagnosticSink Diags(Errors);
  std::string Bad = First;
  const size_t At = Bad.find("- end 5");
  ASSERT_NE(At, std::string::npos);
  Bad.replace(At, 7, "- end 4");
  std::ofstream(Path) << Bad;
  ScalingModelFile H;
  EXPECT_FALSE(loadScalingModel(Path, H, Diags));
  EXPECT_NE(Errors.str().find("a loop's bounds do not match"), std::string::npos) << Errors.str();
  std::filesystem::remove(Path);

  OpTemplate Op;
  EXPECT_FALSE(parseOp("loop 0 2 2 0 0 4 0", Op)); // an empty body
  EXPECT_FALSE(parseOp("loop 5 9 2 0 0 4 0", Op)); // no such form
  EXPECT_TRUE(parseOp("loop 5 3 1 0 0 1 0", Op));  // ceil(log2(P))
  EXPECT_EQ(Op.Trips.K, TripExpr::Log2Ceil);
  EXPECT_TRUE(parseOp("loop 5 4 1 0 0 0 0", Op)); // a binomial tree's children
  EXPECT_EQ(Op.Trips.K, TripExpr::TreeChildren);
  EXPECT_TRUE(parseOp("loop 5 5 1 0 0 0 0", Op)); // the textbook tree's children
  EXPECT_EQ(Op.Trips.K, TripExpr::HighTreeChildren);
  EXPECT_FALSE(parseOp("loop 5 7 1 0 0 1 0", Op));
  EXPECT_TRUE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 10:62:0:0:0 4096:0:0", Op));
  EXPECT_EQ(Op.Peer.K, PeerExpr::TripXorPow);
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 10:63:0:0:0 4096:0:0", Op))
      << "2^(t + 63)";
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 12:-1:0:0:0 4096:0:0", Op))
      << "a negative exponent";
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 19:0:0:0:0 4096:0:0", Op))
      << "no such peer kind";
  EXPECT_TRUE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 16:0:0:0:0 4096:0:0", Op));
  EXPECT_EQ(Op.Peer.K, PeerExpr::HighTreeParent);
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 16:2:0:0:0 4096:0:0", Op))
      << "a tree's parent has no offset";
  EXPECT_TRUE(parseOp("send 0aa758c0:3 0aa758c0:3 7 0 0 0 1 18:0:0:0:0 4096:0:0", Op));
  EXPECT_EQ(Op.Peer.K, PeerExpr::TripAbovePowRev);
  EXPECT_FALSE(parseOp("send 0aa758c0:3 0aa758c0:3 7 0 0 0 1 17:-1:0:0:0 4096:0:0", Op))
      << "a negative exponent";
  EXPECT_TRUE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 13:0:0:0:0 4096:0:0", Op));
  EXPECT_EQ(Op.Peer.K, PeerExpr::TreeParent);
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 13:1:0:0:0 4096:0:0", Op))
      << "a tree's parent has no offset";
  EXPECT_TRUE(parseOp("send 0aa758c0:3 0aa758c0:3 7 0 0 0 1 15:0:0:0:0 4096:0:0", Op));
  EXPECT_EQ(Op.Peer.K, PeerExpr::TripOffsetPowRev);
  EXPECT_FALSE(parseOp("send 0aa758c0:3 0aa758c0:3 7 0 0 0 1 14:-1:0:0:0 4096:0:0", Op))
      << "a negative exponent";
  EXPECT_FALSE(parseOp("loop 5 2 0 0 0 4 0", Op)); // groups of no rank
  EXPECT_FALSE(parseOp("end 5 extra", Op));
  EXPECT_FALSE(parseOp("loop 5 0 1 0 0 99999999999 0", Op)); // coefficients beyond 2^31
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 5:1:2:2:0 4096:0:0", Op))
      << "axis 2 of a 2-D grid";
  EXPECT_FALSE(parseOp("recv 0aa758c0:3 0aa758c0:3 7 0 0 0 1 2:4294967296:0:0:0 4096:0:0", Op))
      << "an offset beyond 2^31";
  EXPECT_FALSE(parseOp("wait 0aa758c0:4 0aa758c0:4 0 0 0 0 1 0:0:0:0:0 0:0:0 done 7:1:0:0:0 7 7 "
                       "4294967295 dist-trip -1 100000",
                       Op)); // a distance moving by more than 2^16 a trip
  EXPECT_TRUE(parseOp("wait 0aa758c0:4 0aa758c0:4 0 0 0 0 1 0:0:0:0:0 0:0:0 done 7:1:0:0:0 7 7 "
                      "4294967295 dist-trip -1 1",
                      Op));
  EXPECT_FALSE(parseOp("send 0aa758c0:3 0aa758c0:3 7 0 0 0 1 0:1:0:0:0 4096:0:0 from-rule 1 "
                       "0aa758c0:2",
                       Op)); // a rule on no computation
}

} // namespace
