// Hand-built traces with exactly known what-if answers: zeroed waits, balanced steps, the
// domino path of seed 003 figure 4, the critical path, the F3 bound, a network what-if.
#include "mpiete/whatif/Analysis.h"

#include <gtest/gtest.h>

#include <memory>

namespace mpiete::whatif {
namespace {

using namespace estimator;

constexpr BlockId A = 0x100000001, B = 0x100000002, C1 = 0x100000003, C2 = 0x100000004;
constexpr BlockId X = 0x100000010, S1 = 0x100000011, S2 = 0x100000012;

/// Every message takes 1 us, start overheads are free, everything is eager.
std::shared_ptr<LinkModel> flatLink() {
  return std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1e-6}, {1 << 20, 1e-6}}, 0, 0, 1 << 20);
}

/// Replays Traces (copied for each replay) under a scenario, as the tool does with files.
struct Fixture {
  TableComputeModel Compute;
  ClusterNetworkModel Net{flatLink()};
  std::vector<std::vector<Event>> Traces;

  ReplayOutcome replay(const Scenario *S, RunRecorder *Rec) {
    std::vector<std::unique_ptr<EventSource>> Owned;
    std::vector<EventSource *> Src;
    for (size_t R = 0; R < Traces.size(); ++R) {
      Owned.push_back(std::make_unique<VectorEventSource>("rank" + std::to_string(R), Traces[R]));
      if (S && !S->VolumeFactors.empty())
        Owned.push_back(std::make_unique<ScenarioSource>(*Owned.back(), int(R), *S));
      Src.push_back(Owned.back().get());
    }
    std::unique_ptr<ScenarioAssumptions> As;
    std::unique_ptr<ScaledNetworkModel> Scaled;
    EngineOptions O;
    O.Observer = Rec;
    if (S) {
      As = std::make_unique<ScenarioAssumptions>(*S);
      O.Assume = As.get();
      O.AllowLargerMessages = !S->VolumeFactors.empty();
      Scaled = std::make_unique<ScaledNetworkModel>(Net, S->Net);
    }
    Engine E(Compute, Scaled ? static_cast<const NetworkModel &>(*Scaled) : Net, O);
    EstimateResult R = E.run(Src);
    return {R.Ok, R.Predicted, R.Errors.empty() ? "" : R.Errors.front().Message};
  }
  Replayer replayer() {
    return [this](const Scenario *S, RunRecorder *Rec) { return replay(S, Rec); };
  }
  StepMap steps(BlockId Site) {
    std::vector<std::unique_ptr<EventSource>> Owned;
    std::vector<EventSource *> Src;
    for (size_t R = 0; R < Traces.size(); ++R) {
      Owned.push_back(std::make_unique<VectorEventSource>("rank" + std::to_string(R), Traces[R]));
      Src.push_back(Owned.back().get());
    }
    return buildStepMap(Src, Site);
  }
  MessageIndex messages() {
    std::vector<std::unique_ptr<EventSource>> Owned;
    std::vector<EventSource *> Src;
    for (size_t R = 0; R < Traces.size(); ++R) {
      Owned.push_back(std::make_unique<VectorEventSource>("rank" + std::to_string(R), Traces[R]));
      Src.push_back(Owned.back().get());
    }
    return buildMessageIndex(Src);
  }
};

/// Rank 0 computes 10 us and sends; rank 1 waits for it, then computes 2 us.
Fixture sendAfterWork() {
  Fixture F;
  unsigned M = F.Compute.addMachine();
  F.Compute.setTime(M, A, 10e-6);
  F.Compute.setTime(M, B, 2e-6);
  F.Traces = {{Event::compute(A), Event::send(S1, 1, 0, 8, 1), Event::completion(S1, {{1}})},
              {Event::recv(S2, 0, 0, 8, 1), Event::completion(S2, {{1, 0, 0}}), Event::compute(B)}};
  return F;
}

/// The compact records give back exactly what the engine reported: 64-bit block ids, the
/// kind, a wait's partner; a dependency reported again for the same wait replaces the first.
TEST(WhatIfTest, RecorderKeepsWhatTheEngineReported) {
  RunRecorder Rec(2);
  Rec.interval(1, 7, SpanKind::Compute, A, X, 100, 250);
  Rec.interval(1, 8, SpanKind::Wait, 0, S2, 250, 900);
  Rec.dependency(1, 8, 250, 900, 0, 400, S1);
  Rec.dependency(1, 8, 250, 900, 0, 450, S1);
  Rec.interval(1, 9, SpanKind::Wait, 0, S2, 900, 1000);
  Rec.interval(1, 10, SpanKind::Comm, 0, S1, 1000, 1000); // no time: not recorded
  EXPECT_EQ(Rec.size(0), 0u);
  ASSERT_EQ(Rec.size(1), 3u);
  const Interval C = Rec.at(1, 0), W = Rec.at(1, 1), Plain = Rec.at(1, 2);
  EXPECT_EQ(C.Kind, SpanKind::Compute);
  EXPECT_EQ(C.From, A);
  EXPECT_EQ(C.Block, X);
  EXPECT_EQ(C.Record, 7u);
  EXPECT_EQ(C.Begin, 100);
  EXPECT_EQ(C.End, 250);
  EXPECT_EQ(C.Rank, 1);
  EXPECT_EQ(W.Kind, SpanKind::Wait);
  EXPECT_EQ(W.Peer, 0);
  EXPECT_EQ(W.PeerTime, 450);
  EXPECT_EQ(W.PeerBlock, S1);
  EXPECT_EQ(Plain.Peer, -1);
  EXPECT_EQ(Rec.find(1, 900), 2);
  EXPECT_EQ(Rec.findBefore(1, 899), 0);
  EXPECT_FALSE(Rec.overflowed());
  Rec.interval(0, uint64_t(1) << 32, SpanKind::Compute, A, X, 0, 1);
  EXPECT_TRUE(Rec.overflowed());
}

TEST(WhatIfTest, CriticalPathAndItsShares) {
  Fixture F = sendAfterWork();
  RunRecorder Rec(2);
  ASSERT_TRUE(F.replay(nullptr, &Rec).Ok);
  CriticalPath P = criticalPath(Rec);
  EXPECT_EQ(P.Length, 13000);
  ASSERT_EQ(P.Steps.size(), 3u); // B, the message (rank 1's wait), A
  EXPECT_EQ(P.Steps[0].At.Block, B);
  EXPECT_EQ(P.Steps[0].Seconds, 2000);
  EXPECT_EQ(P.Steps[1].Kind, SpanKind::Comm);
  EXPECT_EQ(P.Steps[1].At.Rank, 1);
  EXPECT_EQ(P.Steps[1].Seconds, 1000);
  EXPECT_EQ(P.Steps[2].At.Block, A);
  EXPECT_EQ(P.Steps[2].At.Rank, 0);
  EXPECT_EQ(P.Steps[2].Seconds, 10000);
}

TEST(WhatIfTest, ZeroedWaitOfAnEventAndOfASite) {
  Fixture F = sendAfterWork();
  EXPECT_EQ(F.replay(nullptr, nullptr).Predicted, 13000);
  Scenario S;
  S.ZeroWaitEvents.insert({1, 1}); // rank 1's completion (record 1)
  EXPECT_EQ(F.replay(&S, nullptr).Predicted, 10000);
  Scenario T;
  T.ZeroWaitSites.insert(S2);
  EXPECT_EQ(F.replay(&T, nullptr).Predicted, 10000);
  Scenario U;
  U.ZeroWaitEvents.insert({1, 0}); // not a wait: nothing changes
  EXPECT_EQ(F.replay(&U, nullptr).Predicted, 13000);
}

TEST(WhatIfTest, ComputeScaledAndNetworkScaled) {
  Fixture F = sendAfterWork();
  Scenario S;
  S.Scales.push_back({0, A, 0.5});
  EXPECT_EQ(F.replay(&S, nullptr).Predicted, 8000); // 5 + 1 + 2 us
  Scenario N;
  N.Net.Latency = 0;
  EXPECT_EQ(F.replay(&N, nullptr).Predicted, 12000);
}

/// Two steps closing at the exchange X; step 1: rank 0 1 us, rank 1 5 us; step 2: 3 us, 1 us.
Fixture twoSteps() {
  Fixture F;
  unsigned M0 = F.Compute.addMachine(), M1 = F.Compute.addMachine();
  F.Compute.setTime(M0, C1, 1e-6);
  F.Compute.setTime(M0, C2, 3e-6);
  F.Compute.setTime(M1, C1, 5e-6);
  F.Compute.setTime(M1, C2, 1e-6);
  F.Compute.assignRank(1, M1);
  for (int R = 0; R < 2; ++R) {
    std::vector<Event> T;
    for (BlockId W : {C1, C2}) {
      T.push_back(Event::compute(W));
      T.push_back(Event::send(X, 1 - R, 0, 8, 1));
      T.push_back(Event::recv(X, 1 - R, 0, 8, 2));
      T.push_back(Event::completion(X, {{1}, {2, 1 - R, 0}}));
    }
    F.Traces.push_back(T);
  }
  return F;
}

TEST(WhatIfTest, BalancedSteps) {
  Fixture F = twoSteps();
  StepMap M = F.steps(X);
  ASSERT_EQ(M.steps(), 2u);
  EXPECT_EQ(M.stepOf(0, 0), 0u);
  EXPECT_EQ(M.stepOf(0, 3), 0u);
  EXPECT_EQ(M.stepOf(0, 4), 1u);
  RunRecorder Base(2);
  EXPECT_EQ(F.replay(nullptr, &Base).Predicted, 10000);
  Scenario One = balanceSteps(Base, M, 0);
  EXPECT_EQ(F.replay(&One, nullptr).Predicted, 8000);
  Scenario Two = balanceSteps(Base, M, 1);
  EXPECT_EQ(F.replay(&Two, nullptr).Predicted, 9000);
  Scenario All = balanceSteps(Base, M, std::nullopt);
  EXPECT_EQ(F.replay(&All, nullptr).Predicted, 7000);
  // The segment form: C1 balanced over the whole run is step 1 here.
  Scenario Seg = balanceSegment(Base, 0, C1);
  EXPECT_EQ(F.replay(&Seg, nullptr).Predicted, 8000);
}

/// A computation only one rank runs cannot be balanced across ranks: the mean is over the
/// ranks that compute there, so the work is conserved (counting rank 1's none would halve rank
/// 0's 10 us and predict 8 us, a gain no change delivers), and it is not a candidate.
TEST(WhatIfTest, ComputationOfOneRankIsNotBalanced) {
  Fixture F = sendAfterWork();
  RunRecorder Base(2);
  EXPECT_EQ(F.replay(nullptr, &Base).Predicted, 13000);
  Scenario S = balanceSegment(Base, 0, A);
  EXPECT_TRUE(S.SegmentFactors.empty());
  EXPECT_EQ(F.replay(&S, nullptr).Predicted, 13000);
  AnalysisOptions O;
  Analysis An = analyze(F.replayer(), 2, O);
  ASSERT_TRUE(An.Ok) << An.Error;
  for (const Suggestion &G : An.Suggestions)
    EXPECT_NE(G.Kind, "balance-segment") << G.Where;
}

/// Balancing can lengthen a run: rank 0 computes C1 for 9 us and sends; rank 1 computes C2 for
/// 8 us, receives (the message arrives at 10 us) and computes C1 for 1 us: 11 us. C1 at the
/// mean, 5 us on both, makes the message arrive at 6 us, while rank 1 is busy until 8, and the
/// run 13 us. Such a change is no remedy: analyze counts it and leaves it out of the list.
TEST(WhatIfTest, ARemedyThatLengthensTheRunIsNotListed) {
  Fixture F;
  unsigned M0 = F.Compute.addMachine(), M1 = F.Compute.addMachine();
  F.Compute.setTime(M0, C1, 9e-6);
  F.Compute.setTime(M1, C1, 1e-6);
  F.Compute.setTime(M1, C2, 8e-6);
  F.Compute.assignRank(1, M1);
  F.Traces.push_back({Event::compute(C1), Event::send(X, 1, 0, 8, 1), Event::completion(X, {{1}})});
  F.Traces.push_back({Event::compute(C2), Event::recv(X, 0, 0, 8, 2),
                      Event::completion(X, {{2, 0, 0}}), Event::compute(C1)});
  RunRecorder Base(2);
  EXPECT_EQ(F.replay(nullptr, &Base).Predicted, 11000);
  Scenario S = balanceSegment(Base, 0, C1);
  EXPECT_EQ(F.replay(&S, nullptr).Predicted, 13000);
  AnalysisOptions O;
  Analysis An = analyze(F.replayer(), 2, O);
  ASSERT_TRUE(An.Ok) << An.Error;
  EXPECT_EQ(An.Base, 11000);
  EXPECT_GE(An.RemediesNotShorter, 1u);
  for (const Suggestion &G : An.Suggestions) {
    if (G.Class == SuggestionClass::Remedy)
      EXPECT_LT(G.Predicted, An.Base) << G.Kind << " " << G.Where;
    EXPECT_NE(G.Kind, "balance-segment") << G.Where;
  }
}

/// One loop body split into two segments by the call it starts after (S1 most steps, S2 every
/// other): steps of 1 us on rank 0 and 3 us on rank 1, closed by the exchange X. Balancing one
/// segment leaves the other's imbalance; the computation ending at X (From 0) balances both.
TEST(WhatIfTest, BalancedComputationEndingAtACall) {
  Fixture F;
  unsigned M0 = F.Compute.addMachine(), M1 = F.Compute.addMachine();
  for (BlockId From : {S1, S2}) {
    F.Compute.setSegment(M0, {From, X, 1e-6});
    F.Compute.setSegment(M1, {From, X, 3e-6});
  }
  F.Compute.assignRank(1, M1);
  for (int R = 0; R < 2; ++R) {
    std::vector<Event> T;
    for (BlockId From : {S1, S2, S1}) {
      T.push_back(Event::segment(From, X));
      T.push_back(Event::send(X, 1 - R, 0, 8, 1));
      T.push_back(Event::recv(X, 1 - R, 0, 8, 2));
      T.push_back(Event::completion(X, {{1}, {2, 1 - R, 0}}));
    }
    F.Traces.push_back(T);
  }
  RunRecorder Base(2);
  // Rank 1 (3 us a step) never waits: its last message reaches rank 0 at 3 x 3 + 1 us.
  EXPECT_EQ(F.replay(nullptr, &Base).Predicted, 10000);
  // S1 balanced (2 us each): the S2 step between keeps rank 1 behind, and its last message
  // still arrives at 10 us; the whole loop body balanced: three steps of 2 + 1 us.
  Scenario One = balanceSegment(Base, S1, X);
  EXPECT_EQ(F.replay(&One, nullptr).Predicted, 10000);
  Scenario All = balanceSegment(Base, 0, X);
  EXPECT_EQ(F.replay(&All, nullptr).Predicted, 9000);
  AnalysisOptions O;
  Analysis A = analyze(F.replayer(), 2, O);
  ASSERT_TRUE(A.Ok) << A.Error;
  const Suggestion *First = nullptr;
  for (const Suggestion &G : A.Suggestions)
    if (G.Kind == "balance-segment" && !First)
      First = &G;
  ASSERT_NE(First, nullptr);
  EXPECT_EQ(First->Predicted, 9000);
  EXPECT_EQ(First->Where.rfind("every computation ending at ", 0), 0u) << First->Where;
}

TEST(WhatIfTest, SumOfTimesBound) {
  Fixture F = twoSteps();
  StepMap M = F.steps(X);
  RunRecorder Base(2);
  F.replay(nullptr, &Base);
  Scenario None;
  // Rank 0: 4 us compute + 5 us wait; rank 1: 6 us compute + 4 us wait.
  EXPECT_EQ(sumOfTimesBound(Base, None), 10000);
  Scenario S = balanceSteps(Base, M, std::nullopt);
  S.ZeroWaitSites.insert(X);
  EXPECT_EQ(sumOfTimesBound(Base, S), 5000);
}

/// Remedies (changes of the program's structure) and sensitivities (a part made faster) are
/// ranked in lists of their own, each by predicted time, and the F3 bound ends the report.
TEST(WhatIfTest, AnalysisRanksRemediesAndSensitivitiesApartAndEndsWithTheBound) {
  Fixture F = twoSteps();
  StepMap M = F.steps(X);
  AnalysisOptions O;
  O.Steps = &M;
  Analysis A = analyze(F.replayer(), 2, O);
  ASSERT_TRUE(A.Ok) << A.Error;
  EXPECT_EQ(A.Base, 10000);
  ASSERT_FALSE(A.Suggestions.empty());
  EXPECT_TRUE(A.Suggestions.back().Bound);
  EXPECT_EQ(A.Suggestions.back().Kind, "bound");
  EXPECT_EQ(A.Suggestions.back().Class, SuggestionClass::Bound);
  EXPECT_EQ(A.Suggestions.back().Rank, 1u);
  // No wait at the exchange: rank 1's own 6 us of compute remain. The domino path's sites are
  // that one site on both ranks, predicted the same: listed once, as the site's suggestion.
  EXPECT_EQ(A.Suggestions.front().Class, SuggestionClass::Remedy);
  EXPECT_EQ(A.Suggestions.front().Kind, "zero-wait-site");
  EXPECT_EQ(A.Suggestions.front().Predicted, 6000);
  for (const Suggestion &S : A.Suggestions)
    EXPECT_NE(S.Kind, "domino-sites");
  const Suggestion *Network = nullptr, *Balance = nullptr;
  for (size_t I = 0; I + 1 < A.Suggestions.size(); ++I) {
    const Suggestion &S = A.Suggestions[I];
    EXPECT_FALSE(S.Bound);
    const bool Faster = S.Kind.rfind("faster-", 0) == 0;
    EXPECT_EQ(S.Class, Faster ? SuggestionClass::Sensitivity : SuggestionClass::Remedy) << S.Kind;
    if (S.Kind == "faster-network")
      Network = &S;
    if (S.Kind == "balance-step" && !Balance)
      Balance = &S;
    if (I && A.Suggestions[I - 1].Class == S.Class) {
      EXPECT_LE(A.Suggestions[I - 1].Predicted, S.Predicted);
      if (A.Suggestions[I - 1].Predicted == S.Predicted)
        EXPECT_EQ(S.Rank, A.Suggestions[I - 1].Rank);
      else
        EXPECT_GT(S.Rank, A.Suggestions[I - 1].Rank);
    } else {
      EXPECT_EQ(S.Rank, 1u);
      EXPECT_TRUE(!I || A.Suggestions[I - 1].Class < S.Class);
    }
  }
  // Balancing every step: step 1 takes the mean 3 us, step 2 2 us, each exchange 1 us.
  ASSERT_NE(Balance, nullptr);
  EXPECT_EQ(Balance->Predicted, 7000);
  // Latency halved: each of the two exchanges takes 0.5 us.
  ASSERT_NE(Network, nullptr);
  EXPECT_EQ(Network->Predicted, 9000);
}

/// Seed 003 figure 4: p's late send delays q, whose send delays r; the domino path walks back
/// from r's wait to q's wait (whose fix also removes r's).
TEST(WhatIfTest, DominoPathOfFigure4) {
  Fixture F;
  unsigned M = F.Compute.addMachine();
  F.Compute.setTime(M, A, 10e-6);
  F.Compute.setTime(M, B, 1e-6);
  F.Traces = {{Event::compute(A), Event::send(S1, 1, 0, 8, 1), Event::completion(S1, {{1}})},
              {Event::recv(S2, 0, 0, 8, 1), Event::completion(S2, {{1, 0, 0}}), Event::compute(B),
               Event::send(S1, 2, 0, 8, 2), Event::completion(S1, {{2}})},
              {Event::recv(S2, 1, 0, 8, 1), Event::completion(S2, {{1, 1, 0}}), Event::compute(B)}};
  RunRecorder Base(3);
  ASSERT_EQ(F.replay(nullptr, &Base).Predicted, 14000);
  AnalysisOptions O;
  DominoPath D = dominoPath(F.replayer(), Base, 14000, O);
  ASSERT_EQ(D.Waits.size(), 2u);
  EXPECT_EQ(D.Waits[0], std::make_pair(2, uint64_t(1)));
  EXPECT_EQ(D.Waits[1], std::make_pair(1, uint64_t(1)));
  EXPECT_EQ(D.Predicted, 10000); // only p's own 10 us remain
  CriticalPath P = criticalPath(Base);
  EXPECT_EQ(P.Length, 14000);
  ASSERT_EQ(P.Steps.size(), 5u); // B on r, message, B on q, message, A on p
  EXPECT_EQ(P.Steps[4].At.Rank, 0);
  // Each wait names the partner call it waited for: r's receive waited for q's send, q's for
  // p's.
  ASSERT_EQ(D.Partners.size(), 2u);
  EXPECT_EQ(D.Partners[0], std::make_pair(1, S1));
  EXPECT_EQ(D.Partners[1], std::make_pair(0, S1));
}

/// The domino suggestions are replays of exactly what they name: the chain's events, and the
/// chain's call sites on its ranks (every execution), listed once when that is a site's own
/// suggestion. Without a message index every wait counts as removable (seed 003's meaning).
TEST(WhatIfTest, DominoSuggestionsAreReplaysOfTheirWaits) {
  Fixture F;
  unsigned M = F.Compute.addMachine();
  F.Compute.setTime(M, A, 10e-6);
  F.Compute.setTime(M, B, 1e-6);
  // As figure 4, twice: the second round repeats the chain at the same call sites.
  std::vector<Event> P, Q, R;
  for (uint64_t I = 0; I < 2; ++I) {
    for (const Event &E :
         {Event::compute(A), Event::send(S1, 1, 0, 8, 1), Event::completion(S1, {{1}})})
      P.push_back(E);
    for (const Event &E :
         {Event::recv(S2, 0, 0, 8, 1), Event::completion(S2, {{1, 0, 0}}), Event::compute(B),
          Event::send(S1, 2, 0, 8, 2), Event::completion(S1, {{2}})})
      Q.push_back(E);
    for (const Event &E :
         {Event::recv(S2, 1, 0, 8, 1), Event::completion(S2, {{1, 1, 0}}), Event::compute(B)})
      R.push_back(E);
  }
  F.Traces = {P, Q, R};
  AnalysisOptions O;
  O.Site = [](BlockId B) { return B == S1 ? std::string("send.c:1") : std::string("recv.c:2"); };
  Analysis An = analyze(F.replayer(), 3, O);
  ASSERT_TRUE(An.Ok) << An.Error;
  EXPECT_EQ(An.Base, 24000); // p: 20 us of work; r ends 4 us after p's last send
  const Suggestion *Chain = nullptr, *Sites = nullptr, *Site = nullptr;
  for (const Suggestion &G : An.Suggestions) {
    if (G.Kind == "domino")
      Chain = &G;
    if (G.Kind == "domino-sites")
      Sites = &G;
    if (G.Kind == "zero-wait-site")
      Site = &G;
  }
  ASSERT_TRUE(Chain && Site);
  Scenario Events;
  for (const auto &W : An.Domino.Waits)
    Events.ZeroWaitEvents.insert(W);
  EXPECT_EQ(Chain->Predicted, F.replay(&Events, nullptr).Predicted);
  EXPECT_NE(Chain->Where.find("rank 2 recv.c:2 (record 4) waits for rank 1 send.c:1"),
            std::string::npos)
      << Chain->Where;
  // The chain's sites, recv.c:2 on ranks 1 and 2, are every wait at recv.c:2: the same change
  // as the site's own suggestion, which it predicts the same (only p's 20 us are left), so it is
  // listed once.
  EXPECT_EQ(Sites, nullptr);
  Scenario ChainSites;
  ChainSites.ZeroWaitMessages = {{1, S2, -1, std::nullopt}, {2, S2, -1, std::nullopt}};
  EXPECT_EQ(F.replay(&ChainSites, nullptr).Predicted, 20000);
  EXPECT_EQ(Site->Where, "recv.c:2");
  EXPECT_EQ(Site->Predicted, 20000);
  EXPECT_LE(Site->Predicted, Chain->Predicted);
}

/// A two-stage pipeline of blocks alternating heavy (A, 10 us) and light (B, 2 us): rank 0
/// computes each block and passes it on with a synchronous send (S1), rank 1 receives it (S2)
/// and computes it. Messages take 1 us.
Fixture ssendPipeline() {
  Fixture F;
  unsigned M = F.Compute.addMachine();
  F.Compute.setTime(M, A, 10e-6);
  F.Compute.setTime(M, B, 2e-6);
  std::vector<Event> P, Q;
  uint64_t Req = 1;
  for (BlockId W : {A, B, A, B}) {
    for (const Event &E :
         {Event::compute(W), Event::send(S1, 1, 0, 8, Req, 0, 0, SendMode::Synchronous),
          Event::completion(S1, {{Req}})})
      P.push_back(E);
    for (const Event &E :
         {Event::recv(S2, 0, 0, 8, Req), Event::completion(S2, {{Req, 0, 0}}), Event::compute(W)})
      Q.push_back(E);
    ++Req;
  }
  F.Traces = {P, Q};
  return F;
}

/// A wait for data (rank 1's receive: rank 0 has not computed the block yet) is not one a
/// non-blocking or reordered call removes, a synchronous send's wait for its receiver is. Rank
/// 0's sends complete at 11, 22, 33 and 44 us (each light block's send waits for rank 1 to
/// finish the heavy one before it); rank 1 ends at 46. The send made non-blocking: rank 1 takes
/// blocks 2-4 as they come, 22-24, 25-35 and 36-38. Seed 003's zeroed receive wait lets rank 1
/// run without its data (24 us) and prices rank 0 at 28: more than any change delivers.
TEST(WhatIfTest, WaitsForDataAreLeftToTheReplay) {
  Fixture F = ssendPipeline();
  MessageIndex Index = F.messages();
  EXPECT_TRUE(Index.waitsForData(1, 1));  // rank 1's first receive
  EXPECT_FALSE(Index.waitsForData(0, 2)); // rank 0's first send
  EXPECT_FALSE(Index.waitsForData(1, 2)); // not a completion
  EXPECT_EQ(F.replay(nullptr, nullptr).Predicted, 46000);
  auto predicted = [&](BlockId Site, bool Keep) {
    Scenario S;
    S.ZeroWaitSites.insert(Site);
    S.KeepDataWaits = Keep;
    S.Messages = &Index;
    return F.replay(&S, nullptr).Predicted;
  };
  EXPECT_EQ(predicted(S1, true), 38000);
  EXPECT_EQ(predicted(S1, false), 38000);
  EXPECT_EQ(predicted(S2, false), 28000); // seed 003's meaning: the data taken as there
  EXPECT_EQ(predicted(S2, true), 46000);  // the remedies' meaning: nothing removable

  AnalysisOptions O;
  O.Messages = &Index;
  O.Site = [](BlockId B) {
    return B == S1 ? std::string("pipe.c:78 (MPI_Ssend)") : std::string("pipe.c:65 (MPI_Recv)");
  };
  Analysis An = analyze(F.replayer(), 2, O);
  ASSERT_TRUE(An.Ok) << An.Error;
  EXPECT_EQ(An.Base, 46000);
  // The search walks seed 003's way, from rank 0's last event: its second send's wait zeroed
  // (38 us), then rank 1's first receive, which that send waited for (37 us), then the send
  // that receive waited for (36 us). Only the two sends are waits a call change removes.
  ASSERT_EQ(An.Domino.Waits.size(), 3u);
  EXPECT_EQ(An.Domino.Waits[0], std::make_pair(0, uint64_t(5)));
  EXPECT_EQ(An.Domino.Waits[1], std::make_pair(1, uint64_t(1)));
  EXPECT_EQ(An.Domino.Waits[2], std::make_pair(0, uint64_t(2)));
  EXPECT_EQ(An.Domino.ForData, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(An.Domino.Predicted, 36000);
  // The send's site first (38 us), level with the domino chain's two sends (the same time, the
  // same rank); no remedy promises more.
  const Suggestion *Send = nullptr;
  for (const Suggestion &G : An.Suggestions)
    if (G.Kind == "zero-wait-site")
      Send = &G;
  ASSERT_NE(Send, nullptr);
  EXPECT_EQ(Send->Where, "pipe.c:78 (MPI_Ssend)");
  EXPECT_EQ(Send->Predicted, 38000);
  EXPECT_EQ(Send->Rank, 1u);
  for (const Suggestion &G : An.Suggestions) {
    if (G.Class == SuggestionClass::Remedy)
      EXPECT_GE(G.Predicted, 38000) << G.Kind << " " << G.Where;
    EXPECT_EQ(G.Where.find("pipe.c:65 (MPI_Recv)") != std::string::npos &&
                  G.Kind == "zero-wait-site",
              false);
    // The chain's sites are the send's site alone, predicted the same: listed once.
    EXPECT_NE(G.Kind, "domino-sites");
    if (G.Kind == "domino") {
      // Both of rank 0's light blocks' sends: the whole gain here.
      EXPECT_EQ(G.Predicted, 38000);
      EXPECT_EQ(G.Rank, 1u);
      EXPECT_NE(G.Where.find("rank 1 pipe.c:65 (MPI_Recv) (record 1) waits for data from rank 0 "
                             "pipe.c:78 (MPI_Ssend)"),
                std::string::npos)
          << G.Where;
    }
  }
}

/// Figure 4 with the message index: every wait on the chain is for data (each sender computes
/// before it sends), so the path is reported but no call change is offered for it.
TEST(WhatIfTest, DominoPathOfWaitsForDataOffersNoCallChange) {
  Fixture F;
  unsigned M = F.Compute.addMachine();
  F.Compute.setTime(M, A, 10e-6);
  F.Compute.setTime(M, B, 1e-6);
  F.Traces = {{Event::compute(A), Event::send(S1, 1, 0, 8, 1), Event::completion(S1, {{1}})},
              {Event::recv(S2, 0, 0, 8, 1), Event::completion(S2, {{1, 0, 0}}), Event::compute(B),
               Event::send(S1, 2, 0, 8, 2), Event::completion(S1, {{2}})},
              {Event::recv(S2, 1, 0, 8, 1), Event::completion(S2, {{1, 1, 0}}), Event::compute(B)}};
  MessageIndex Index = F.messages();
  AnalysisOptions O;
  O.Messages = &Index;
  Analysis An = analyze(F.replayer(), 3, O);
  ASSERT_TRUE(An.Ok) << An.Error;
  EXPECT_EQ(An.Base, 14000);
  ASSERT_EQ(An.Domino.Waits.size(), 2u);
  EXPECT_EQ(An.Domino.ForData, (std::vector<bool>{true, true}));
  EXPECT_EQ(An.Domino.Predicted, 10000);
  for (const Suggestion &G : An.Suggestions)
    EXPECT_TRUE(G.Kind != "domino" && G.Kind != "domino-sites" && G.Kind != "zero-wait-site")
        << G.Kind << " " << G.Where;
}

TEST(WhatIfTest, ZeroedWaitsOfAMessageSet) {
  Fixture F = sendAfterWork();
  MessageIndex Index = F.messages();
  ASSERT_EQ(Index.Started[1].size(), 1u);
  EXPECT_EQ(Index.Started[1][0].Peer, 0);
  auto predicted = [&](MessageSet M) {
    Scenario S;
    S.ZeroWaitMessages.push_back(M);
    S.Messages = &Index;
    return F.replay(&S, nullptr).Predicted;
  };
  EXPECT_EQ(predicted({1, 0, 0, 0}), 10000);              // rank 1's waits for rank 0
  EXPECT_EQ(predicted({-1, 0, 0, std::nullopt}), 10000);  // any wait for rank 0's messages
  EXPECT_EQ(predicted({1, S2, -1, std::nullopt}), 10000); // the receive site on rank 1
  EXPECT_EQ(predicted({1, 0, 2, std::nullopt}), 13000);   // no message from rank 2
  EXPECT_EQ(predicted({1, 0, -1, 7}), 13000);             // no message with tag 7
  EXPECT_EQ(predicted({0, 0, -1, std::nullopt}), 13000);  // rank 0 never waits
}

/// Transfers take 1 us + 1 ns per byte, overheads are free, everything is eager.
std::shared_ptr<LinkModel> linearLink() {
  return std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1e-6}, {1000000, 1.001e-3}}, 0, 0, 1 << 30);
}

/// Two steps, each an exchange at X: step 1 rank 0 sends 6000 bytes and rank 1 2000; step 2
/// 1000 and 3000.
Fixture unevenVolumes() {
  Fixture F;
  F.Net = ClusterNetworkModel(linearLink());
  F.Compute.setTime(F.Compute.addMachine(), A, 0); // separates the steps, takes no time
  const uint64_t Bytes[2][2] = {{6000, 1000}, {2000, 3000}};
  for (int R = 0; R < 2; ++R) {
    std::vector<Event> T;
    for (int K = 0; K < 2; ++K) {
      T.push_back(Event::compute(A));
      T.push_back(Event::send(X, 1 - R, 0, Bytes[R][K], 1));
      T.push_back(Event::recv(X, 1 - R, 0, Bytes[1 - R][K], 2));
      T.push_back(Event::completion(X, {{1}, {2, 1 - R, 0}}));
    }
    F.Traces.push_back(T);
  }
  return F;
}

TEST(WhatIfTest, BalancedMessageVolume) {
  Fixture F = unevenVolumes();
  StepMap M = F.steps(X);
  ASSERT_EQ(M.steps(), 2u);
  MessageIndex Index = F.messages();
  EXPECT_EQ(Index.volumes(0, &M), (std::vector<uint64_t>{6000, 1000}));
  EXPECT_EQ(Index.volumes(1, nullptr), (std::vector<uint64_t>{5000}));
  // Each step ends when the larger message arrives: 1 + 6 us, then 1 + 3 us.
  EXPECT_EQ(F.replay(nullptr, nullptr).Predicted, 11000);
  Scenario One = balanceVolume(Index, &M, 0); // 4000 each: 5 us
  EXPECT_EQ(F.replay(&One, nullptr).Predicted, 9000);
  Scenario Two = balanceVolume(Index, &M, 1); // 2000 each: 3 us
  EXPECT_EQ(F.replay(&Two, nullptr).Predicted, 10000);
  Scenario All = balanceVolume(Index, &M, std::nullopt);
  EXPECT_EQ(F.replay(&All, nullptr).Predicted, 8000);
  // Over the whole run: 7000 and 5000 bytes, the mean 6000: rank 0's sends x6/7 (5143, 857),
  // rank 1's x6/5 (2400, 3600): 1 + 5.143 us, then 1 + 3.6 us.
  Scenario Run = balanceVolume(Index, nullptr, std::nullopt);
  EXPECT_EQ(F.replay(&Run, nullptr).Predicted, 10743);
  // The analysis tries each step and ranks them by the replay, not by the spread.
  AnalysisOptions O;
  O.Steps = &M;
  O.Messages = &Index;
  Analysis An = analyze(F.replayer(), 2, O);
  ASSERT_TRUE(An.Ok) << An.Error;
  std::vector<TimeNs> Volume;
  for (const Suggestion &G : An.Suggestions)
    if (G.Kind == "balance-volume")
      Volume.push_back(G.Predicted);
  EXPECT_EQ(Volume, (std::vector<TimeNs>{8000, 9000, 10000}));
}

} // namespace
} // namespace mpiete::whatif
