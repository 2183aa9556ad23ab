// RecordedMatchSource: wildcard receives rewritten to the recorded match, the stream's order
// kept, and the farm whose replay deadlocks under earliest-arrival matching replayed as the
// hand-directed trace is.
#include "mpiete/estimator/RecordedMatches.h"
#include "Replay.h"

#include <gtest/gtest.h>

#include <memory>

using namespace mpiete::estimator;
using mpiete::estimator::test::allErrors;
using mpiete::estimator::test::req;

namespace {

/// In's events through a RecordedMatchSource, with its counts.
struct Passed {
  std::vector<Event> Out;
  uint64_t Resolved = 0, Unresolved = 0;
};
Passed through(std::vector<Event> In, size_t MaxHeld = size_t(1) << 14) {
  VectorEventSource Source("r0", std::move(In));
  RecordedMatchSource S(Source, MaxHeld);
  Passed P;
  Event E;
  while (S.next(E))
    P.Out.push_back(E);
  P.Resolved = S.resolved();
  P.Unresolved = S.unresolved();
  return P;
}

TEST(RecordedMatchesTest, WildcardTakesTheSourceAndTagOfItsCompletion) {
  Passed P = through({Event::recv(10, AnySource, AnyTag, 8, 7), Event::compute(1),
                      Event::send(11, 3, 4, 8, 8), Event::completion(12, {req(8)}),
                      Event::completion(13, {req(7, 2, 5)}), Event::compute(2)});
  ASSERT_EQ(P.Out.size(), 6u);
  EXPECT_EQ(P.Out[0].Kind, EventKind::RecvStart);
  EXPECT_EQ(P.Out[0].Peer, 2);
  EXPECT_EQ(P.Out[0].Tag, 5);
  for (size_t I = 0; I < P.Out.size(); ++I)
    EXPECT_EQ(P.Out[I].Index, I); // the order and record numbers are the stream's
  EXPECT_EQ(P.Out[2].Peer, 3);    // a send is not touched
  EXPECT_EQ(P.Resolved, 1u);
  EXPECT_EQ(P.Unresolved, 0u);
}

TEST(RecordedMatchesTest, OnlyTheWildcardPartIsRewritten) {
  // ANY_TAG from rank 1: the source stays, the tag is the recorded one; a directed receive
  // passes unchanged even when its completion says otherwise.
  Passed P = through({Event::recv(10, 1, AnyTag, 8, 1), Event::recv(11, 3, 9, 8, 2),
                      Event::completion(12, {req(1, 1, 6), req(2, 3, 7)})});
  ASSERT_EQ(P.Out.size(), 3u);
  EXPECT_EQ(P.Out[0].Peer, 1);
  EXPECT_EQ(P.Out[0].Tag, 6);
  EXPECT_EQ(P.Out[1].Peer, 3);
  EXPECT_EQ(P.Out[1].Tag, 9);
  EXPECT_EQ(P.Resolved, 1u);
}

TEST(RecordedMatchesTest, WithoutARecordedStatusTheWildcardStays) {
  // Completed with MPI_STATUS_IGNORE, freed, never completed, or past the look-ahead.
  Passed P = through({Event::recv(10, AnySource, 0, 8, 1), Event::completion(11, {req(1)}),
                      Event::recv(12, AnySource, 0, 8, 2), Event::requestFree(13, 2),
                      Event::recv(14, AnySource, 0, 8, 3)});
  ASSERT_EQ(P.Out.size(), 5u);
  for (size_t I : {0, 2, 4})
    EXPECT_EQ(P.Out[I].Peer, AnySource) << I;
  EXPECT_EQ(P.Resolved, 0u);
  EXPECT_EQ(P.Unresolved, 3u);

  // The completion lies 3 events on, past a look-ahead of 2.
  P = through({Event::recv(10, AnySource, 0, 8, 1), Event::compute(1), Event::compute(2),
               Event::completion(11, {req(1, 4, 0)})},
              2);
  ASSERT_EQ(P.Out.size(), 4u);
  EXPECT_EQ(P.Out[0].Peer, AnySource);
  EXPECT_EQ(P.Unresolved, 1u);
}

TEST(RecordedMatchesTest, SeveralPendingReceivesResolveInAnyOrder) {
  Passed P = through({Event::recv(10, AnySource, 0, 8, 1), Event::recv(11, AnySource, 0, 8, 2),
                      Event::completion(12, {req(2, 5, 0)}), Event::completion(13, {req(1, 4, 0)}),
                      Event::recv(14, AnySource, 0, 8, 1), // the id reused
                      Event::completion(15, {req(1, 6, 0)})});
  ASSERT_EQ(P.Out.size(), 6u);
  EXPECT_EQ(P.Out[0].Peer, 4);
  EXPECT_EQ(P.Out[1].Peer, 5);
  EXPECT_EQ(P.Out[4].Peer, 6);
  EXPECT_EQ(P.Resolved, 3u);
}

// A farm whose master sends each next task to the worker it recorded taking a result from.
// Results and tasks are 2000 bytes, over the eager limit (1024): rendezvous. Worker 1 finishes
// its first task at 100 ns, worker 2 at 5000 ns, but the recorded run took worker 2's result
// first and sent it the next task. Matching by earliest predicted arrival takes worker 1's:
// the master's send to worker 2 and worker 2's send of its result wait for each other. With
// the recorded matches the replay runs, exactly as the trace with those sources written in.
TEST(RecordedMatchesTest, FarmThatDeadlocksUnderEarliestArrivalReplaysAsRecorded) {
  TableComputeModel Compute;
  unsigned M = Compute.addMachine();
  Compute.setTime(M, 1, 100e-9);
  Compute.setTime(M, 5, 5000e-9);
  auto Link = std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1000e-9}, {1024, 2024e-9}}, 10e-9, 20e-9, 1024);
  ClusterNetworkModel Net{Link};
  auto Master = [](int32_t First, int32_t Second, int32_t Third) {
    return std::vector<Event>{
        Event::recv(10, First, 0, 2000, 1),  Event::completion(11, {req(1, 2, 0)}),
        Event::send(12, 2, 0, 2000, 2),      Event::completion(13, {req(2)}),
        Event::recv(14, Second, 0, 2000, 3), Event::completion(15, {req(3, 1, 0)}),
        Event::recv(16, Third, 0, 2000, 4),  Event::completion(17, {req(4, 2, 0)})};
  };
  const std::vector<Event> Worker1 = {Event::compute(1), Event::send(20, 0, 0, 2000, 1),
                                      Event::completion(21, {req(1)})};
  const std::vector<Event> Worker2 = {Event::compute(5),
                                      Event::send(30, 0, 0, 2000, 1),
                                      Event::completion(31, {req(1)}),
                                      Event::recv(32, 0, 0, 2000, 2),
                                      Event::completion(33, {req(2, 0, 0)}),
                                      Event::compute(1),
                                      Event::send(34, 0, 0, 2000, 3),
                                      Event::completion(35, {req(3)})};

  EstimateResult Plain =
      test::replay(Compute, Net, {Master(AnySource, AnySource, AnySource), Worker1, Worker2});
  ASSERT_FALSE(Plain.Ok);
  EXPECT_TRUE(Plain.Stuck);
  EXPECT_EQ(Plain.WildcardReceives, 1u) << allErrors(Plain); // stuck before the second
  EXPECT_NE(allErrors(Plain).find("deadlock"), std::string::npos) << allErrors(Plain);

  EstimateResult Directed = test::replay(Compute, Net, {Master(2, 1, 2), Worker1, Worker2});
  ASSERT_TRUE(Directed.Ok) << allErrors(Directed);

  VectorEventSource R0("rank0.trace", Master(AnySource, AnySource, AnySource));
  VectorEventSource R1("rank1.trace", Worker1), R2("rank2.trace", Worker2);
  RecordedMatchSource F0(R0), F1(R1), F2(R2);
  std::vector<EventSource *> Sources = {&F0, &F1, &F2};
  Engine E(Compute, Net);
  EstimateResult Recorded = E.run(Sources);
  ASSERT_TRUE(Recorded.Ok) << allErrors(Recorded);
  EXPECT_FALSE(Recorded.Stuck);
  EXPECT_EQ(F0.resolved(), 3u);
  EXPECT_EQ(Recorded.WildcardReceives, 0u);
  EXPECT_EQ(Recorded.Predicted, Directed.Predicted);
  EXPECT_GT(Recorded.Predicted, 5000);
}

} // namespace
