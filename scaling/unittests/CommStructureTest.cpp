// Communication structures learnt from hand-built traces at 2, 4 and 8 ranks reproduce the
// traces the same pattern gives at 16 and 64 ranks exactly; patterns no function of (r, P)
// explains are refused at their call site.
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/CommId.h"
#include "mpiete/scaling/ModelFile.h"

#include "ThroughTheFile.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace mpiete::scaling;
using mpiete::estimator::CompletedRequest;
using mpiete::estimator::ProcNull;

namespace {

constexpr BlockId SiteA = (BlockId(0x0aa758c0) << 32) | 3;
constexpr BlockId SiteB = (BlockId(0x0aa758c0) << 32) | 7;

using Pattern = std::function<std::vector<Event>(int R, int P, double W)>;

/// An exchange with each of Peers per iteration: receives posted, sends started, one wait.
std::vector<Event> exchange(const std::vector<int> &Peers, uint64_t Bytes, int Iterations) {
  std::vector<Event> Es;
  uint64_t Req = 0;
  BlockId Last = mpiete::ProgramStart;
  for (int It = 0; It < Iterations; ++It) {
    Es.push_back(Event::segment(Last, SiteA));
    std::vector<CompletedRequest> Done;
    for (int Q : Peers) {
      Es.push_back(Event::recv(SiteA, Q, 5, Bytes, ++Req));
      Done.push_back({Req, Q, Q == ProcNull ? -3 : 5});
    }
    for (int Q : Peers) {
      Es.push_back(Event::send(SiteA, Q, 5, Bytes, ++Req));
      Done.push_back({Req});
    }
    Es.push_back(Event::segment(SiteA, SiteB));
    Es.push_back(Event::completion(SiteB, Done));
    Last = SiteB;
  }
  return Es;
}

std::vector<MeasuredRun> measure(const Pattern &F, std::vector<int> Sizes, double W = 1) {
  std::vector<MeasuredRun> Runs;
  for (int P : Sizes) {
    MeasuredRun Run{P, W, {}, {}};
    for (int R = 0; R < P; ++R)
      Run.PerRank.push_back(F(R, P, W));
    Runs.push_back(std::move(Run));
  }
  return Runs;
}

/// Every rank's generated stream at P is the pattern's own.
void expectGenerated(const CommStructure &S, const Pattern &F, int P, double W) {
  Event E;
  for (int R = 0; R < P; ++R) {
    std::vector<Event> Want = F(R, P, W);
    SyntheticEventSource Gen(S, R, P, W);
    size_t K = 0;
    while (Gen.next(E)) {
      ASSERT_LT(K, Want.size());
      ASSERT_TRUE(sameEvent(E, Want[K])) << "rank " << R << " event " << K;
      ++K;
    }
    EXPECT_EQ(K, Want.size());
  }
}

/// Learns from 2, 4, 8 ranks and checks every rank at P against the pattern itself.
void roundTrip(const Pattern &F, int P, std::vector<int> From = {2, 4, 8}, double W = 1) {
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measure(F, From, W), S, Why)) << Why.Message;
  expectGenerated(S, F, P, W);
}

/// A line's ghost exchange completed by two MPI_Waitany calls at SiteB with SiteB's own
/// computation between them (cg's exchange_ghosts): receives from R - 1 and R + 1 posted, sends
/// started, then the completions in arrival order, which is the lower neighbour's first on odd
/// ranks when Arrival is set, else start order.
std::vector<Event> waitanyExchange(int R, int P, bool Arrival, int Iterations = 2) {
  std::vector<Event> Es;
  uint64_t Req = 0;
  BlockId Last = mpiete::ProgramStart;
  const int Up = R > 0 ? R - 1 : ProcNull, Down = R + 1 < P ? R + 1 : ProcNull;
  for (int It = 0; It < Iterations; ++It) {
    Es.push_back(Event::segment(Last, SiteA));
    const uint64_t First = Req + 1;
    Es.push_back(Event::recv(SiteA, Up, 5, 64, ++Req));
    Es.push_back(Event::recv(SiteA, Down, 6, 64, ++Req));
    Es.push_back(Event::send(SiteA, Up, 6, 64, ++Req));
    Es.push_back(Event::send(SiteA, Down, 5, 64, ++Req));
    Es.push_back(Event::segment(SiteA, SiteA));
    Es.push_back(Event::completion(SiteA, {{Req - 1}, {Req}}));
    std::vector<Event> Waits = {
        Event::completion(SiteB, {{First, Up, Up == ProcNull ? -3 : 5}}),
        Event::completion(SiteB, {{First + 1, Down, Down == ProcNull ? -3 : 6}})};
    if (Arrival && R % 2 == 1)
      std::swap(Waits[0], Waits[1]);
    Es.push_back(Event::segment(SiteA, SiteB));
    Es.push_back(Waits[0]);
    Es.push_back(Event::segment(SiteB, SiteB));
    Es.push_back(Waits[1]);
    Last = SiteB;
  }
  return Es;
}

/// Arrival orders differ between ranks, so the traces as measured are refused at the Waitany;
/// put in start order they are learnt, and the generated traces at 64 ranks are the pattern's
/// in start order. A wait loop already in start order is left as it is.
TEST(CommStructureTest, WaitanyCompletionsAreLearntInStartOrder) {
  CommStructure S;
  Refusal Why;
  Pattern Measured = [](int R, int P, double) { return waitanyExchange(R, P, true); };
  EXPECT_FALSE(learnStructure(measure(Measured, {2, 4, 8}), S, Why));
  EXPECT_EQ(Why.Site, SiteB) << Why.Message;
  std::vector<Event> Odd = waitanyExchange(3, 8, true);
  canonicaliseCompletionOrder(Odd);
  const std::vector<Event> InOrder = waitanyExchange(3, 8, false);
  ASSERT_EQ(Odd.size(), InOrder.size());
  for (size_t K = 0; K < Odd.size(); ++K)
    EXPECT_TRUE(sameEvent(Odd[K], InOrder[K])) << "event " << K;
  std::vector<Event> Same = InOrder;
  canonicaliseCompletionOrder(Same);
  for (size_t K = 0; K < Same.size(); ++K)
    EXPECT_TRUE(sameEvent(Same[K], InOrder[K])) << "event " << K;
  std::vector<MeasuredRun> Runs = measure(Measured, {2, 4, 8});
  for (MeasuredRun &Run : Runs)
    for (std::vector<Event> &Seq : Run.PerRank)
      canonicaliseCompletionOrder(Seq);
  ASSERT_TRUE(learnStructure(Runs, S, Why)) << Why.Message;
  roundTrip([](int R, int P, double) { return waitanyExchange(R, P, false); }, 64);
}

/// Completions at one site with a start between them are two waits of two exchanges, not one
/// Waitany loop: their order is the program's and stays.
TEST(CommStructureTest, CompletionsWithAStartBetweenKeepTheirOrder) {
  std::vector<Event> Es = {
      Event::recv(SiteA, 1, 5, 8, 1),        Event::recv(SiteA, 2, 5, 8, 2),
      Event::completion(SiteB, {{2, 2, 5}}), Event::segment(SiteB, SiteB),
      Event::send(SiteA, 1, 5, 8, 3),        Event::completion(SiteB, {{1, 1, 5}})};
  const std::vector<Event> Before = Es;
  canonicaliseCompletionOrder(Es);
  for (size_t K = 0; K < Es.size(); ++K)
    EXPECT_TRUE(sameEvent(Es[K], Before[K])) << "event " << K;
}

TEST(CommStructureTest, DimsCreate) {
  EXPECT_EQ(dimsCreate(12, 2), (std::vector<int>{4, 3}));
  EXPECT_EQ(dimsCreate(64, 3), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(dimsCreate(8, 2), (std::vector<int>{4, 2}));
  EXPECT_EQ(dimsCreate(7, 2), (std::vector<int>{7, 1}));
}

TEST(CommStructureTest, PeriodicRing) {
  roundTrip([](int R, int P, double) { return exchange({(R + P - 1) % P, (R + 1) % P}, 64, 3); },
            64);
}

// From 2 and 4 ranks the left neighbour is (r - 1) mod P and also (r + 3) mod P; the smaller
// distance is the one a program writes (the larger one deadlocked the replay at 8 ranks).
TEST(CommStructureTest, RingFromTwoAndFourRanksTakesTheNearerOffset) {
  roundTrip([](int R, int P, double) { return exchange({(R + P - 1) % P}, 64, 3); }, 64, {2, 4});
  roundTrip([](int R, int P, double) { return exchange({(R + 1) % P}, 64, 3); }, 64, {2, 4});
  // Nor is the farther shift kept as another form the base runs fit, beside a shift or a plain
  // offset (a pipeline's ranks after the first take r - 1, which (r + 3) mod P gives at 2 and
  // 4 ranks): nothing to refuse at 8.
  for (const Pattern &F : std::vector<Pattern>{
           [](int R, int P, double) { return exchange({(R + P - 1) % P}, 64, 3); },
           [](int R, int, double) { return exchange({R == 0 ? 1 : R - 1}, 64, 3); }}) {
    CommStructure S;
    Refusal Why;
    ASSERT_TRUE(learnStructure(measure(F, {2, 4}), S, Why)) << Why.Message;
    EXPECT_TRUE(S.formAmbiguities().empty()) << S.formAmbiguities().front().What;
    BlockId At = 0;
    EXPECT_EQ(unmeasuredRankCount(S, {2, 4}, 8, 1, At), "");
  }
}

// A shift by two (ring's MPI_Sendrecv_replace) from 2 and 4 ranks is (r + 2) and (r - 2) mod P
// alike: learnt with the other form kept, which first differs at 3 ranks; generated where the
// two agree (8 ranks: no, 12: no, 4: yes), refused at its site where they do not, saying which
// base run tells them apart; from 2 to 8 ranks it is learnt alone.
TEST(CommStructureTest, ShiftByTwoFromTwoAndFourRanksIsAmbiguous) {
  const Pattern F = [](int R, int P, double) { return exchange({(R + 2) % P}, 64, 2); };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measure(F, {2, 4}), S, Why)) << Why.Message;
  const std::vector<CommStructure::Ambiguity> A = S.formAmbiguities();
  ASSERT_EQ(A.size(), 2u); // the send's peer and the receive's
  EXPECT_EQ(A[0].Site, SiteA);
  EXPECT_EQ(A[0].PartsAt, 3);
  EXPECT_EQ(A[0].What, "its peer is (r + 2) mod P, but (r - 2) mod P fits every base run as well");
  EXPECT_EQ(A[1].Site, SiteB);
  EXPECT_EQ(A[1].What, "its matched source 1 of 2 is (r + 2) mod P, but (r - 2) mod P fits every "
                       "base run as well");
  BlockId At = 0;
  std::string What;
  EXPECT_FALSE(S.formsPartAt(4, 1, At, What));
  EXPECT_FALSE(S.formsPartAt(2, 1, At, What));
  ASSERT_TRUE(S.formsPartAt(8, 1, At, What));
  EXPECT_EQ(At, SiteA);
  EXPECT_EQ(What, "its peer is (r + 2) mod P, but (r - 2) mod P gives every base run's as well; "
                  "at 8 ranks they differ (rank 0: 2 or 6), and which one the program computes "
                  "was never measured: add a base run at 3 ranks (where they first differ) or "
                  "at 8");
  EXPECT_NE(unmeasuredRankCount(S, {2, 4}, 8, 1, At), "");
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4}, 4, 1, At), "");
  // The model file keeps the other form.
  for (const OpTemplate &Op : S.Classes[0].Ops)
    if (!Op.Alts.empty()) {
      OpTemplate Back;
      ASSERT_TRUE(parseOp(formatOp(Op), Back)) << formatOp(Op);
      ASSERT_EQ(Back.Alts.size(), 1u);
      EXPECT_EQ(Back.Alts[0].PartsAt, 3);
      EXPECT_EQ(Back.Alts[0].E.text(), "(r - 2) mod P");
    }
  roundTrip(F, 64, {2, 4, 8});
  ASSERT_TRUE(learnStructure(measure(F, {2, 4, 8}), S, Why)) << Why.Message;
  EXPECT_TRUE(S.formAmbiguities().empty());
}

// A ring's message of 8192 / (d0 d1 of MPI_Dims_create(P, 3)) bytes is 4096 / (d1 of
// MPI_Dims_create(P, 2)) as well at 2, 4, 8 and 16 ranks (4096, 2048, 2048, 1024); nothing
// says which grid the program divides, so both are kept: refused at 32 ranks (512 or 1024
// bytes), generated at 64 where they agree.
TEST(CommStructureTest, ByteCountOverEitherGridsFactorsIsAmbiguous) {
  const Pattern F = [](int R, int P, double) {
    const std::vector<int> D = dimsCreate(P, 3);
    return exchange({(R + 1) % P}, uint64_t(8192 / (D[0] * D[1])), 2);
  };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measure(F, {2, 4, 8, 16}), S, Why)) << Why.Message;
  const std::vector<CommStructure::Ambiguity> A = S.formAmbiguities();
  ASSERT_EQ(A.size(), 1u); // the send's and the receive's count, at one site
  EXPECT_EQ(A[0].Site, SiteA);
  EXPECT_EQ(A[0].PartsAt, 3);
  EXPECT_EQ(A[0].What, "its byte count is 4096 / (d1 of Dims_create(P, 2)), but 8192 / (d0 * d1 "
                       "of Dims_create(P, 3)) fits every base run as well");
  BlockId At = 0;
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4, 8, 16}, 32, 1, At),
            "the structure cannot be generated at 32 ranks: its byte count is 4096 / (d1 of "
            "Dims_create(P, 2)), but 8192 / (d0 * d1 of Dims_create(P, 3)) gives every base "
            "run's as well; at 32 ranks they differ (1024 or 512 bytes), and which one the "
            "program computes was never measured: add a base run at 3 ranks (where they first "
            "differ) or at 32");
  EXPECT_EQ(At, SiteA);
  EXPECT_EQ(unmeasuredRankCount(S, {2, 4, 8, 16}, 64, 1, At), "");
  expectGenerated(S, F, 64, 1);
  std::string Text;
  const ScalingModelFile G = mpiete::scaling::test::throughTheFile(S, Text);
  EXPECT_NE(unmeasuredRankCount(G.Learnt, {2, 4, 8, 16}, 32, 1, At), "");
}

TEST(CommStructureTest, LineWithProcNullEnds) {
  roundTrip(
      [](int R, int P, double) {
        return exchange({R > 0 ? R - 1 : ProcNull, R + 1 < P ? R + 1 : ProcNull}, 800, 2);
      },
      16);
}

TEST(CommStructureTest, EventsReadAgainWhenAskedLearnTheSame) {
  // `mpiete model` holds no run's events: each rank's are read again whenever the learner
  // passes over them (MeasuredRun::Load). Same structure as from events held; every rank read
  // at least twice (its items, then the check against the generated trace).
  Pattern F = [](int R, int P, double) {
    return exchange({R > 0 ? R - 1 : ProcNull, R + 1 < P ? R + 1 : ProcNull}, 800, 3);
  };
  std::vector<MeasuredRun> Held = measure(F, {2, 4, 8}), Read;
  std::map<std::pair<int, int>, int> Reads;
  for (const MeasuredRun &H : Held) {
    MeasuredRun Run{H.Ranks, H.Size, {}, {}, {}, {}};
    Run.Load = [&Reads, F, P = H.Ranks](int R, std::vector<Event> &Out) {
      ++Reads[{P, R}];
      Out = F(R, P, 1);
      return true;
    };
    Read.push_back(std::move(Run));
  }
  CommStructure FromHeld, FromRead;
  Refusal Why;
  ASSERT_TRUE(learnStructure(Held, FromHeld, Why)) << Why.Message;
  ASSERT_TRUE(learnStructure(Read, FromRead, Why)) << Why.Message;
  EXPECT_EQ(FromRead.describe(), FromHeld.describe());
  expectGenerated(FromRead, F, 16, 1);
  EXPECT_EQ(Reads.size(), 2u + 4u + 8u);
  for (const auto &[Rank, N] : Reads)
    EXPECT_GE(N, 2) << "rank " << Rank.second << " of " << Rank.first;

  // A rank whose events cannot be read again refuses the structure, saying which.
  Read[1].Load = [F](int R, std::vector<Event> &Out) {
    Out = F(R, 4, 1);
    return R != 3;
  };
  EXPECT_FALSE(learnStructure(Read, FromRead, Why));
  EXPECT_EQ(Why.Message, "the events of rank 3 of 4 cannot be read");
}

TEST(CommStructureTest, TwoDimensionalGridHalo) {
  // A 2-D non-periodic grid from MPI_Dims_create, halo bytes W / P per message.
  Pattern F = [](int R, int P, double W) {
    const std::vector<int> D = dimsCreate(P, 2);
    const int Row = R / D[1], Col = R % D[1];
    std::vector<int> Peers = {Row > 0 ? R - D[1] : ProcNull, Row + 1 < D[0] ? R + D[1] : ProcNull,
                              Col > 0 ? R - 1 : ProcNull, Col + 1 < D[1] ? R + 1 : ProcNull};
    return exchange(Peers, uint64_t(W / P), 2);
  };
  roundTrip(F, 64, {4, 8, 16}, 65536);
}

TEST(CommStructureTest, MasterApart) {
  // Workers send to rank 0 and rank 0 receives from rank 1 only (a token passed on): the
  // master's sequence is its own class.
  Pattern F = [](int R, int P, double) {
    (void)P;
    if (R == 0)
      return exchange({1}, 8, 1);
    return exchange({0}, 8, 1);
  };
  roundTrip(F, 32);
}

TEST(CommStructureTest, TernaryTreeIsRefusedAtItsSite) {
  // A broadcast from rank 0 along a ternary heap (parent (r - 1) / 3, children 3r + 1 .. 3r +
  // 3 where those are ranks): no function of the forms gives the parent or the children (a
  // binomial tree's are learnt: LoopStructureTest); the refusal names the call site.
  Pattern F = [](int R, int P, double) {
    std::vector<Event> Es = {Event::segment(mpiete::ProgramStart, SiteB)};
    uint64_t Req = 0;
    if (R != 0) {
      Es.push_back(Event::recv(SiteB, (R - 1) / 3, 101, 8, ++Req, 0, 1));
      Es.push_back(Event::completion(SiteB, {{Req, (R - 1) / 3, 101}}));
    }
    for (int C = 3 * R + 1; C <= 3 * R + 3 && C < P; ++C)
      Es.push_back(Event::send(SiteB, C, 101, 8, ++Req, 0, 1));
    return Es;
  };
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(measure(F, {2, 4, 8, 16}), S, Why));
  EXPECT_EQ(Why.Site, SiteB);
  EXPECT_TRUE(Why.Message.find("sequence of MPI events") != std::string::npos ||
              Why.Message.find("no function of the rank and the size gives the peer") !=
                  std::string::npos)
      << Why.Message;
}

TEST(CommStructureTest, ByteCountsNoFunctionRefused) {
  // Bytes 3, 5, 11 at 2, 4, 8 ranks: no c0 + c * W^a / P^b (three values: 3 + c P^b fits
  // none of the exponents).
  Pattern F = [](int R, int P, double) {
    const uint64_t B = P == 2 ? 3 : P == 4 ? 5 : 11;
    return exchange({(R + 1) % P}, B, 1);
  };
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(measure(F, {2, 4, 8}), S, Why));
  EXPECT_EQ(Why.Site, SiteA);
}

/// Runs at every (P, W) of the two lists.
std::vector<MeasuredRun> measureSizes(const Pattern &F, std::vector<int> Ranks,
                                      std::vector<double> Sizes) {
  std::vector<MeasuredRun> Runs;
  for (double W : Sizes)
    for (MeasuredRun &Run : measure(F, Ranks, W))
      Runs.push_back(std::move(Run));
  return Runs;
}

/// The bytes of the first send a learnt structure's first class holds.
BytesExpr sendBytes(const CommStructure &S) {
  for (const OpTemplate &Op : S.Classes.front().Ops)
    if (!Op.IsColl && Op.Proto.Kind == mpiete::estimator::EventKind::SendStart)
      return Op.Bytes;
  ADD_FAILURE() << "no send";
  return {};
}

TEST(CommStructureTest, ByteCountsWithAConstantTerm) {
  // A row of n cells plus its two ghost cells, 8 bytes each: (n + 2) * 8 = 16 + 8 W, the same
  // at every rank count. Measured at 3 sizes; generated at a size and rank count never seen.
  Pattern F = [](int R, int P, double W) {
    return exchange({(R + P - 1) % P, (R + 1) % P}, uint64_t(W + 2) * 8, 2);
  };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureSizes(F, {2, 4, 8}, {100, 200, 400}), S, Why)) << Why.Message;
  const BytesExpr B = sendBytes(S);
  EXPECT_EQ(B.Const, 16);
  EXPECT_EQ(B.Coeff, 8);
  EXPECT_EQ(B.WExp, 1);
  EXPECT_EQ(B.PExp, 0);
  EXPECT_EQ(B.text(), "16 + 8 * W^1");
  EXPECT_EQ(B.eval(1000, 1e5), 800016u);
  roundTrip(F, 64, {2, 4, 8}, 1000);
  // roundTrip learns at one size only (a literal there): check the multi-size structure too.
  Event E;
  SyntheticEventSource Gen(S, 5, 64, 1000);
  uint64_t Sends = 0;
  while (Gen.next(E))
    if (E.Kind == mpiete::estimator::EventKind::SendStart) {
      EXPECT_EQ(E.Count, 8016u);
      ++Sends;
    }
  EXPECT_EQ(Sends, 4u);
}

TEST(CommStructureTest, ByteCountsWithAConstantTermPerRank) {
  // A 1-D decomposition's halo row: W / P cells plus two ghost cells, 16 + 8 W / P bytes.
  Pattern F = [](int R, int P, double W) {
    return exchange({(R + P - 1) % P, (R + 1) % P}, uint64_t(W / P + 2) * 8, 1);
  };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureSizes(F, {2, 4, 8}, {256, 1024}), S, Why)) << Why.Message;
  const BytesExpr B = sendBytes(S);
  EXPECT_EQ(B.Const, 16);
  EXPECT_EQ(B.Coeff, 8);
  EXPECT_EQ(B.WExp, 1);
  EXPECT_EQ(B.PExp, 1);
  EXPECT_EQ(B.eval(64, 65536), 8208u); // (1024 + 2) * 8
}

TEST(CommStructureTest, ByteCountsPureFormsKeepNoConstant) {
  // W / P exactly: the constant-free form is tried first and wins.
  Pattern F = [](int R, int P, double W) { return exchange({(R + 1) % P}, uint64_t(W / P), 1); };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureSizes(F, {2, 4, 8}, {1024, 4096}), S, Why)) << Why.Message;
  const BytesExpr B = sendBytes(S);
  EXPECT_EQ(B.Const, 0);
  EXPECT_EQ(B.Coeff, 1);
  EXPECT_EQ(B.text(), "1 * W^1 / P^1");
}

TEST(CommStructureTest, ByteCountsOfABlockDecompositionsFaces) {
  // A 3-D block decomposition of a W^3 cube over MPI_Dims_create(P, 3) = d0 x d1 x d2: the face
  // normal to axis 0 holds (W / d1) (W / d2) doubles. At 2, 4, 8 and 16 ranks d1 d2 is 1, 2, 4
  // and 4: 8 and 16 ranks send the same, which no W^a / P^b gives.
  Pattern F = [](int R, int P, double W) {
    const std::vector<int> D = dimsCreate(P, 3);
    return exchange({(R + 1) % P}, uint64_t(8 * (W / D[1]) * (W / D[2])), 1);
  };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measureSizes(F, {2, 4, 8, 16}, {32, 64}), S, Why)) << Why.Message;
  const BytesExpr B = sendBytes(S);
  EXPECT_EQ(B.Coeff, 8);
  EXPECT_EQ(B.WExp, 2);
  EXPECT_EQ(B.GridDims, 3);
  EXPECT_EQ(B.GridAxes, 6); // d1 and d2
  EXPECT_EQ(B.Const, 0);
  EXPECT_EQ(B.text(), "8 * W^2 / (d1 * d2 of Dims_create(P, 3))");
  EXPECT_EQ(B.eval(64, 128), 8192u); // 4 x 4 x 4: 8 * 32 * 32
  roundTrip(F, 64, {2, 4, 8, 16}, 32);
}

TEST(CommStructureTest, AGridNeighboursBytesAreOverItsOwnGridsFactors) {
  // f90-stencil3d's face normal to the last axis of a 3-D grid, sent to that axis's next
  // neighbour: 8 (W / d0) (W / d1) bytes of MPI_Dims_create(P, 3) = d0 x d1 x d2. At 2, 4, 8 and
  // 16 ranks d0 d1 is 2, 4, 4, 8, twice the d1 of MPI_Dims_create(P, 2) (1, 2, 2, 4): both
  // forms fit there, and they part at 32 ranks (16 against 4). The peer is a 3-D grid's
  // neighbour, so the 3-D factors are tried first.
  Pattern F = [](int R, int P, double W) {
    const std::vector<int> D = dimsCreate(P, 3);
    const int Next = R % D[2] + 1 < D[2] ? R + 1 : ProcNull;
    return exchange({Next}, uint64_t(8 * (W / D[0]) * (W / D[1])), 1);
  };
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(measure(F, {2, 4, 8, 16}, 32), S, Why)) << Why.Message;
  const BytesExpr B = sendBytes(S);
  EXPECT_EQ(B.GridDims, 3);
  EXPECT_EQ(B.GridAxes, 3); // d0 and d1
  roundTrip(F, 32, {2, 4, 8, 16}, 32);
}

TEST(CommStructureTest, PointToPointOnASubCommunicator) {
  // Pairs (r xor 1) exchanging on the communicator MPI_Comm_split made of each pair (its id
  // differs per pair): the peers stay world ranks, the id is computed for every rank.
  auto Id = [](int R) { return mpiete::childCommId(0, 0, R - R % 2); };
  Pattern F = [&](int R, int P, double) {
    std::vector<Event> Es = exchange({(R ^ 1) < P ? (R ^ 1) : ProcNull}, 64, 2);
    for (Event &E : Es)
      if (E.Kind == mpiete::estimator::EventKind::SendStart ||
          E.Kind == mpiete::estimator::EventKind::RecvStart)
        E.Comm = Id(R);
    return Es;
  };
  std::vector<MeasuredRun> Runs = measure(F, {2, 4, 8});
  for (MeasuredRun &Run : Runs)
    for (int R = 0; R < Run.Ranks; ++R)
      Run.Comms.push_back({{SiteA, 0, Id(R), {R - R % 2, R - R % 2 + 1}}});
  CommStructure S;
  Refusal Why;
  ASSERT_TRUE(learnStructure(Runs, S, Why)) << Why.Message;
  expectGenerated(S, F, 64, 1);
  // Without the creation records the differing ids are refused at the call.
  for (MeasuredRun &Run : Runs)
    Run.Comms.clear();
  EXPECT_FALSE(learnStructure(Runs, S, Why));
  EXPECT_EQ(Why.Site, SiteA);
}

TEST(CommStructureTest, ByteCountsConstantTermNeedsAThirdValue) {
  // 16 + 8 W at two sizes only: any exponents fit two values, so the constant term is not
  // trusted and the call is refused at its site.
  Pattern F = [](int R, int P, double W) {
    return exchange({(R + 1) % P}, uint64_t(W + 2) * 8, 1);
  };
  CommStructure S;
  Refusal Why;
  EXPECT_FALSE(learnStructure(measureSizes(F, {2, 4, 8}, {100, 200}), S, Why));
  EXPECT_EQ(Why.Site, SiteA);
  EXPECT_NE(Why.Message.find("c0 + c * W^a / P^b"), std::string::npos) << Why.Message;
}

} // namespace
