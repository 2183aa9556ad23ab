// Engine tests: tiny hand-written traces whose predicted times are worked out by hand.
// Record numbers in diagnostics count from 0, as the trace reader does.
//
// Unless a test says otherwise the network is T(k) = 1000 + k ns, o_s = 10 ns, o_r = 20 ns,
// S = 1024 bytes (a table through (0, 1000 ns) and (1024, 2024 ns), extrapolated), and the
// compute blocks take C1 = 100 ns, C2 = 200 ns, C3 = 300 ns, C5 = 5000 ns.
#include "mpiete/estimator/Engine.h"
#include "Replay.h"
#include "mpiete/estimator/Report.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

using namespace mpiete::estimator;
using mpiete::estimator::test::allErrors;
using mpiete::estimator::test::req;

namespace {

constexpr BlockId C1 = 1, C2 = 2, C3 = 3, C5 = 5;

struct Replayer {
  TableComputeModel Compute;
  std::shared_ptr<LinkModel> Link = std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1000e-9}, {1024, 2024e-9}}, 10e-9, 20e-9, 1024);
  ClusterNetworkModel Net{Link};

  Replayer() {
    unsigned M = Compute.addMachine();
    Compute.setTime(M, C1, 100e-9);
    Compute.setTime(M, C2, 200e-9);
    Compute.setTime(M, C3, 300e-9);
    Compute.setTime(M, C5, 5000e-9);
  }

  EstimateResult run(std::vector<std::vector<Event>> Traces, EngineOptions Opt = {}) {
    return test::replay(Compute, Net, std::move(Traces), Opt);
  }
};

TEST(EngineTest, EagerPingPong) {
  Replayer S;
  // rank 0: C1 0-100; send at 100 (o_s -> 110), arrives 100 + 1100 = 1200; eager send done;
  //         receive posted at 110 (o_r -> 130), waits for the reply arriving at 2300.
  // rank 1: receive posted at 0 (-> 20), waits until 1200; reply sent at 1200 (-> 1210),
  //         arrives 1200 + 1100 = 2300.
  EstimateResult R = S.run({
      {Event::compute(C1), Event::send(10, 1, 0, 100, 1), Event::completion(11, {req(1)}),
       Event::recv(12, 1, 0, 100, 2), Event::completion(13, {req(2, 1, 0)})},
      {Event::recv(20, 0, 0, 100, 1), Event::completion(21, {req(1, 0, 0)}),
       Event::send(22, 0, 0, 100, 2), Event::completion(23, {req(2)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 2300);
  EXPECT_EQ(R.Ranks[0].End, 2300);
  EXPECT_EQ(R.Ranks[0].Compute, 100);
  EXPECT_EQ(R.Ranks[0].Comm, 30);
  EXPECT_EQ(R.Ranks[0].Wait, 2170); // 130 .. 2300
  EXPECT_EQ(R.Ranks[1].End, 1210);
  EXPECT_EQ(R.Ranks[1].Comm, 30);
  EXPECT_EQ(R.Ranks[1].Wait, 1180); // 20 .. 1200
  EXPECT_EQ(R.Messages, 2u);
  EXPECT_EQ(R.Events, 9u);
  EXPECT_EQ(R.NondeterministicReceives, 0u);
}

// Two traces that contradict each other (issue 14, the hostile matrix's one silent case): a
// send of 36 bytes matched by a receive posted for 4. MPI would fail with MPI_ERR_TRUNCATE; the
// replay must fail, naming the receiving rank and both call sites, never predict.
TEST(EngineTest, MessageLargerThanItsReceiveIsAnError) {
  Replayer S;
  EstimateResult R = S.run({
      {Event::send(10, 1, 0, 36, 1), Event::completion(11, {req(1)})},
      {Event::recv(20, 0, 0, 4, 1), Event::completion(21, {req(1, 0, 0)})},
  });
  ASSERT_FALSE(R.Ok);
  const std::string Errors = allErrors(R);
  EXPECT_NE(Errors.find("rank 1: "), std::string::npos) << Errors;
  EXPECT_NE(Errors.find("a message of 36 bytes from rank 0"), std::string::npos) << Errors;
  EXPECT_NE(Errors.find("posted for 4 bytes"), std::string::npos) << Errors;
  EXPECT_NE(Errors.find("MPI_ERR_TRUNCATE"), std::string::npos) << Errors;
}

TEST(EngineTest, RendezvousSendWaitsForLateReceiver) {
  Replayer S;
  // 2000 bytes > S. rank 0 starts the send at 0 (-> 10) and blocks in its wait.
  // rank 1 computes C5 until 5000, then posts: the transfer starts at max(0, 5000) and ends
  // 5000 + T(2000) = 8000, completing both the receive and the send.
  EstimateResult R = S.run({
      {Event::send(10, 1, 0, 2000, 1), Event::completion(11, {req(1)})},
      {Event::compute(C5), Event::recv(20, 0, 0, 2000, 1), Event::completion(21, {req(1)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 8000);
  EXPECT_EQ(R.Ranks[0].End, 8000);
  EXPECT_EQ(R.Ranks[0].Wait, 7990);
  EXPECT_EQ(R.Ranks[1].Wait, 2980); // 5020 .. 8000
}

TEST(EngineTest, EagerSendDoesNotWaitForLateReceiver) {
  Replayer S;
  // The same with 1000 bytes (eager): the send completes at once (rank 0 ends at 10); the
  // message arrives at 2000 and waits in the unexpected queue; the receive posted at 5000
  // completes when posted, so rank 1 ends at 5020.
  EstimateResult R = S.run({
      {Event::send(10, 1, 0, 1000, 1), Event::completion(11, {req(1)})},
      {Event::compute(C5), Event::recv(20, 0, 0, 1000, 1), Event::completion(21, {req(1)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 10);
  EXPECT_EQ(R.Ranks[1].End, 5020);
  EXPECT_EQ(R.Ranks[1].Wait, 0);
  EXPECT_EQ(R.Predicted, 5020);
}

TEST(EngineTest, SynchronousSendIsRendezvousEvenWhenSmall) {
  Replayer S;
  // An Ssend of 10 bytes: the envelope arrives at T(0) = 1000, the receive is posted at 5000,
  // the transfer ends 5000 + T(10) = 6010 and only then does the send complete.
  EstimateResult R = S.run({
      {Event::send(10, 1, 0, 10, 1, 0, 0, SendMode::Synchronous), Event::completion(11, {req(1)})},
      {Event::compute(C5), Event::recv(20, 0, 0, 10, 1), Event::completion(21, {req(1)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 6010);
  EXPECT_EQ(R.Predicted, 6010);
}

std::vector<std::vector<Event>> wildcardTraces(int32_t FirstRecorded, int32_t SecondRecorded) {
  // rank 2 sends 10 bytes (tag 2) at 0: arrives 1010. rank 1 computes C5 and sends 10 bytes
  // (tag 1) at 5000: arrives 6010. rank 0 posts two ANY_SOURCE / ANY_TAG receives.
  auto Tag = [](int32_t Source) { return Source; };
  return {
      {Event::recv(30, AnySource, AnyTag, 10, 1),
       Event::completion(31, {req(1, FirstRecorded, Tag(FirstRecorded))}),
       Event::recv(32, AnySource, AnyTag, 10, 2),
       Event::completion(33, {req(2, SecondRecorded, Tag(SecondRecorded))})},
      {Event::compute(C5), Event::send(40, 0, 1, 10, 1), Event::completion(41, {req(1)})},
      {Event::send(50, 0, 2, 10, 1), Event::completion(51, {req(1)})},
  };
}

TEST(EngineTest, WildcardTakesEarliestArrival) {
  Replayer S;
  // rank 0: first receive posted at 0 (-> 20) takes rank 2's message at 1010; the second,
  // posted at 1010 (-> 1030), takes rank 1's at 6010.
  EstimateResult R = S.run(wildcardTraces(2, 1));
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 6010);
  EXPECT_EQ(R.Ranks[0].Wait, (1010 - 20) + (6010 - 1030));
  EXPECT_EQ(R.NondeterministicReceives, 0u);
  EXPECT_TRUE(R.NondeterminismNotes.empty());
}

TEST(EngineTest, WildcardMismatchIsReportedAsNondeterminism) {
  Replayer S;
  // The real run matched rank 1 first: the prediction still takes the earlier arrival (same
  // times as above) and reports both receives.
  EstimateResult R = S.run(wildcardTraces(1, 2));
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 6010);
  EXPECT_EQ(R.NondeterministicReceives, 2u);
  ASSERT_EQ(R.NondeterminismNotes.size(), 2u);
  EXPECT_NE(R.NondeterminismNotes[0].find("rank0.trace"), std::string::npos);
  EXPECT_NE(R.NondeterminismNotes[0].find("recorded matching rank 1 tag 1 but is predicted to "
                                          "match rank 2 tag 2"),
            std::string::npos)
      << R.NondeterminismNotes[0];
}

TEST(EngineTest, BinomialBroadcastOnFourRanks) {
  Replayer S;
  // Root 0 sends to 2 then 1; rank 2 forwards to 3 (100 bytes, collective context, comm 7).
  // rank 0: send at 0 (-> 10, arrives 1100 at 2), send at 10 (-> 20, arrives 1110 at 1).
  // rank 2: posted at 0 (-> 20), done 1100; forwards at 1100 (-> 1110), arrives 2200 at 3.
  // rank 1: done 1110. rank 3: done 2200.
  const uint32_t Comm = 7;
  const uint8_t Coll = 1;
  EstimateResult R = S.run({
      {Event::send(60, 2, -10, 100, 1, Comm, Coll), Event::completion(60, {req(1)}),
       Event::send(60, 1, -10, 100, 2, Comm, Coll), Event::completion(60, {req(2)})},
      {Event::recv(60, 0, -10, 100, 1, Comm, Coll), Event::completion(60, {req(1)})},
      {Event::recv(60, 0, -10, 100, 1, Comm, Coll), Event::completion(60, {req(1)}),
       Event::send(60, 3, -10, 100, 2, Comm, Coll), Event::completion(60, {req(2)})},
      {Event::recv(60, 2, -10, 100, 1, Comm, Coll), Event::completion(60, {req(1)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 20);
  EXPECT_EQ(R.Ranks[1].End, 1110);
  EXPECT_EQ(R.Ranks[2].End, 1110);
  EXPECT_EQ(R.Ranks[3].End, 2200);
  EXPECT_EQ(R.Predicted, 2200);
  // Everything was charged to the collective's one block.
  ASSERT_EQ(R.Blocks.size(), 1u);
  EXPECT_EQ(R.Blocks[0].Comm, 3 * 10 + 3 * 20); // three sends, three receives
  EXPECT_EQ(R.Blocks[0].Wait, (1100 - 20) + (1110 - 20) + (2200 - 20));
}

TEST(EngineTest, UserAndCollectiveContextsDoNotMatch) {
  Replayer S;
  // A user-context receive cannot take a collective-context message: deadlock-free only if
  // each goes to its own space. rank 0 sends collective (arrives 1010) then user (sent at 10,
  // arrives 1020); rank 1 receives user first (done 1020), then collective (done 1010, no wait).
  EstimateResult R = S.run({
      {Event::send(70, 1, 5, 10, 1, 0, 1), Event::send(71, 1, 5, 10, 2, 0, 0),
       Event::completion(72, {req(1), req(2)})},
      {Event::recv(80, 0, 5, 10, 1, 0, 0), Event::completion(81, {req(1)}),
       Event::recv(82, 0, 5, 10, 2, 0, 1), Event::completion(83, {req(2)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1040); // waits 20 .. 1020, posts again 1020 -> 1040
}

TEST(EngineTest, FourStagePipeline) {
  Replayer S;
  // Three items through four stages, 10-byte messages (T = 1010). Worked timeline:
  // rank 0: items computed 0-100, 110-210, 220-320, sent at 100, 210, 320 -> arrive 1110,
  //         1220, 1330; ends 330.
  // rank 1: item 0 done 1110, C1 -> 1210, sent 1210 (arr 2220); item 1 posted 1220 (-> 1240),
  //         arrived 1220, C1 -> 1340, sent (arr 2350); item 2 posted 1350 (-> 1370), C1 ->
  //         1470, sent (arr 2480); ends 1480.
  // rank 2: done 2220, C1 -> 2320, sent (arr 3330); posted 2330 (-> 2350), arrived 2350,
  //         C1 -> 2450, sent (arr 3460); posted 2460 (-> 2480), C1 -> 2580, sent (arr 3590).
  // rank 3: done 3330, C1 -> 3430; posted 3430 (-> 3450), waits to 3460, C1 -> 3560; posted
  //         3560 (-> 3580), waits to 3590, C1 -> 3690.
  std::vector<std::vector<Event>> T(4);
  for (int R = 0; R < 4; ++R)
    for (uint64_t Item = 0; Item < 3; ++Item) {
      if (R > 0) {
        T[R].push_back(Event::recv(90, R - 1, 0, 10, 2 * Item));
        T[R].push_back(Event::completion(91, {req(2 * Item)}));
      }
      T[R].push_back(Event::compute(C1));
      if (R < 3) {
        T[R].push_back(Event::send(92, R + 1, 0, 10, 2 * Item + 1));
        T[R].push_back(Event::completion(93, {req(2 * Item + 1)}));
      }
    }
  EstimateResult R = S.run(T);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 330);
  EXPECT_EQ(R.Ranks[1].End, 1480);
  EXPECT_EQ(R.Ranks[2].End, 2590);
  EXPECT_EQ(R.Ranks[3].End, 3690);
  EXPECT_EQ(R.Predicted, 3690);
  EXPECT_EQ(R.Ranks[3].Wait, (3330 - 20) + 10 + 10);
  EXPECT_EQ(R.Ranks[3].Compute + R.Ranks[3].Comm + R.Ranks[3].Wait, 3690);
}

TEST(EngineTest, HeterogeneousMachines) {
  Replayer S;
  // Rank 1 runs on a machine twice as slow: C1 takes 200 ns there.
  unsigned Slow = S.Compute.addMachine();
  S.Compute.setTime(Slow, C1, 200e-9);
  S.Compute.assignRank(1, Slow);
  // Exchange after C1 (send then receive, one waitall):
  // rank 0: C1 -> 100, send at 100 (-> 110, arrives 1110 at 1), posted 110 (-> 130), waits
  //         for rank 1's message sent at 200: arrives 1210.
  // rank 1: C1 -> 200, send (-> 210), posted 210 (-> 230), message from 0 arrived 1110.
  auto Trace = [](int Peer) {
    return std::vector<Event>{Event::compute(C1), Event::send(100, Peer, 0, 10, 1),
                              Event::recv(101, Peer, 0, 10, 2),
                              Event::completion(102, {req(1), req(2)})};
  };
  EstimateResult R = S.run({Trace(1), Trace(0)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Compute, 100);
  EXPECT_EQ(R.Ranks[1].Compute, 200);
  EXPECT_EQ(R.Ranks[0].End, 1210);
  EXPECT_EQ(R.Ranks[1].End, 1110);
  EXPECT_EQ(R.Predicted, 1210);
}

TEST(EngineTest, DeadlockIsReported) {
  Replayer S;
  // Both ranks receive before they send.
  EstimateResult R = S.run({
      {Event::recv(110, 1, 3, 10, 1), Event::completion(111, {req(1)}),
       Event::send(112, 1, 3, 10, 2), Event::completion(113, {req(2)})},
      {Event::compute(C1), Event::recv(120, 0, 3, 10, 1), Event::completion(121, {req(1)}),
       Event::send(122, 0, 3, 10, 2), Event::completion(123, {req(2)})},
  });
  EXPECT_FALSE(R.Ok);
  std::string E = allErrors(R);
  EXPECT_NE(E.find("deadlock: 2 of 2 ranks cannot progress"), std::string::npos) << E;
  EXPECT_NE(E.find("rank0.trace: rank 0: record 1: blocked from 20 ns in block "
                   "'00000000:111' waiting for a receive from rank 1 with tag 3"),
            std::string::npos)
      << E;
  EXPECT_NE(E.find("rank1.trace: rank 1: record 2: blocked from 120 ns in block '00000000:121'"),
            std::string::npos)
      << E;
}

TEST(EngineTest, RendezvousSendSendDeadlockIsReported) {
  Replayer S;
  // Both ranks send 4096 bytes (rendezvous) before receiving: neither send completes.
  auto Trace = [](int Peer) {
    return std::vector<Event>{Event::send(130, Peer, 0, 4096, 1), Event::completion(131, {req(1)}),
                              Event::recv(132, Peer, 0, 4096, 2), Event::completion(133, {req(2)})};
  };
  EstimateResult R = S.run({Trace(1), Trace(0)});
  EXPECT_FALSE(R.Ok);
  std::string E = allErrors(R);
  EXPECT_NE(E.find("deadlock: 2 of 2 ranks cannot progress"), std::string::npos) << E;
  EXPECT_NE(E.find("a send of 4096 bytes to rank 1 with tag 0 (communicator 0) started in block "
                   "'00000000:130' that no receive matched"),
            std::string::npos)
      << E;
  // The envelopes themselves sit in the unexpected queues.
  EXPECT_NE(E.find("was never received"), std::string::npos) << E;
}

TEST(EngineTest, UnmatchedMessageIsReported) {
  Replayer S;
  EstimateResult R = S.run({
      {Event::send(140, 1, 9, 10, 1), Event::completion(141, {req(1)})},
      {Event::compute(C1)},
  });
  EXPECT_FALSE(R.Ok);
  std::string E = allErrors(R);
  EXPECT_NE(E.find("rank0.trace: rank 0: the message of 10 bytes to rank 1 with tag 9 "
                   "(communicator 0) sent in block '00000000:140' was never received"),
            std::string::npos)
      << E;
}

TEST(EngineTest, MissingBlockIsReported) {
  Replayer S;
  EstimateResult R =
      S.run({{Event::compute(C1)}, {Event::compute(C1), Event::compute(0x500000063)}});
  EXPECT_FALSE(R.Ok);
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].File, "rank1.trace");
  EXPECT_EQ(R.Errors[0].Message, "rank 1: record 1: no compute time for block '00000005:99' on "
                                 "rank 1 in the compute base data");
}

TEST(EngineTest, NonOvertakingOnOneChannel) {
  Replayer S;
  // rank 0 sends 1000 bytes (arrives 0 + 2000) then 0 bytes at 10 (would arrive 1010, but may
  // not overtake: 2000). rank 1's first receive takes the first message, done 2000; C1 ->
  // 2100; the second is done already. Were the small one allowed to overtake, the first
  // receive would end at 1010 and rank 1 at 2000.
  EstimateResult R = S.run({
      {Event::send(150, 1, 0, 1000, 1), Event::send(151, 1, 0, 0, 2),
       Event::completion(152, {req(1), req(2)})},
      {Event::recv(160, 0, 0, 1000, 1), Event::recv(161, 0, 0, 1000, 2),
       Event::completion(162, {req(1)}), Event::compute(C1), Event::completion(163, {req(2)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 2100);
  EXPECT_EQ(R.Predicted, 2100);
}

TEST(EngineTest, LoopRecordIsPerIterationTimesTrips) {
  Replayer S;
  S.Compute.setTime(0, 7, 2.5e-9);
  S.Compute.setTime(0, 8, 0.4e-9);
  // 1000 trips x 2.5 ns = 2500 ns; then five executions of a 0.4 ns block carry their
  // sub-nanosecond parts: 5 x 400 ps = 2 ns.
  EstimateResult R = S.run({{Event::loop(7, 1000), Event::compute(8), Event::compute(8),
                             Event::compute(8), Event::compute(8), Event::compute(8)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 2502);
  ASSERT_EQ(R.Blocks.size(), 2u);
  EXPECT_EQ(R.Blocks[0].Compute, 2500);
  EXPECT_EQ(R.Blocks[0].Executions, 1u);
  EXPECT_EQ(R.Blocks[1].Executions, 5u);
}

TEST(EngineTest, ProbeWaitsForTheMessage) {
  Replayer S;
  // rank 1 probes at 0 and blocks until rank 0's message arrives at 1010, then posts the
  // receive (-> 1030) which completes at once.
  EstimateResult R = S.run({
      {Event::send(170, 1, 4, 10, 1), Event::completion(171, {req(1)})},
      {Event::probe(180, AnySource, 4), Event::recv(181, 0, 4, 10, 1),
       Event::completion(182, {req(1, 0, 4)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1030);
  EXPECT_EQ(R.Ranks[1].Wait, 1010);
}

TEST(EngineTest, ProcNullAndEmptyTestCostNothing) {
  Replayer S;
  EstimateResult R = S.run(
      {{Event::send(190, ProcNull, 0, 10, 1), Event::recv(191, ProcNull, 0, 10, 2),
        Event::completion(192, {}), Event::completion(193, {req(1), req(2)}), Event::compute(C1)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 100);
  EXPECT_EQ(R.Ranks[0].Comm, 0);
}

TEST(EngineTest, UnknownRequestIsReported) {
  Replayer S;
  EstimateResult R = S.run({{Event::completion(200, {req(42)})}});
  EXPECT_FALSE(R.Ok);
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].Message,
            "rank 0: record 0: block '00000000:200' completes request 42 which was never started");
}

TEST(EngineTest, FreedRendezvousSendStillNeedsItsReceive) {
  Replayer S;
  // rank 0 frees a 2000-byte send's request and goes on (C1 -> 110); rank 1 posts at 5000 and
  // the transfer ends 5000 + 3000. Request ids are the trace's: the freed one is never reused.
  EstimateResult R = S.run({
      {Event::send(210, 1, 0, 2000, 1), Event::requestFree(211, 1), Event::compute(C1)},
      {Event::compute(C5), Event::recv(220, 0, 0, 2000, 1), Event::completion(221, {req(1)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 110);
  EXPECT_EQ(R.Ranks[1].End, 8000);
}

TEST(EngineTest, DefaultRegionIsInitToFinalize) {
  Replayer S;
  // C2 before Init and after Finalize is outside: the region is 200 .. 400 on rank 0.
  EstimateResult R = S.run({{Event::compute(C2), Event::init(300), Event::compute(C1),
                             Event::compute(C1), Event::finalize(301), Event::compute(C2)}});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Start, 200);
  EXPECT_EQ(R.Ranks[0].End, 400);
  EXPECT_EQ(R.Ranks[0].Compute, 200);
  EXPECT_EQ(R.Predicted, 200);
}

TEST(EngineTest, ExplicitRegion) {
  Replayer S;
  // Region from C2 to the end of C3; its first instance runs 100 .. 600 on rank 0, 0 .. 500
  // on rank 1. Rank 0 starts it again (C2 at 700) and the stream ends at 900 without its end:
  // a second instance, 700 .. 900, on rank 0 alone.
  EngineOptions Opt;
  Opt.RegionStart = C2;
  Opt.RegionEnd = C3;
  Opt.RegionInstance = 1;
  std::vector<Event> T0{Event::compute(C1), Event::compute(C2), Event::compute(C3),
                        Event::compute(C1), Event::compute(C2)};
  std::vector<Event> T1{Event::compute(C2), Event::compute(C3), Event::compute(C5)};
  EstimateResult R = S.run({T0, T1}, Opt);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].Start, 100);
  EXPECT_EQ(R.Ranks[0].End, 600);
  EXPECT_EQ(R.Ranks[0].Compute, 500);
  EXPECT_EQ(R.Ranks[1].End, 500);
  EXPECT_EQ(R.Predicted, 600);
  ASSERT_EQ(R.Instances.size(), 2u);
  EXPECT_EQ(R.Instances[1].Start, 700);
  EXPECT_EQ(R.Instances[1].End, 900);
  EXPECT_EQ(R.Instances[1].Ranks, 1u);
  EXPECT_EQ(R.InstancesTotal, 800);
  // Every instance (the default): their sum; rank 0 computed 500 + 200 in them.
  Opt.RegionInstance = 0;
  R = S.run({T0, T1}, Opt);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 800);
  EXPECT_EQ(R.Ranks[0].Compute, 700);
  EXPECT_EQ(R.Ranks[0].End, 900);

  Opt.RegionStart = 999;
  EstimateResult Missing = S.run({T0}, Opt);
  EXPECT_FALSE(Missing.Ok);
  EXPECT_NE(allErrors(Missing).find("region start block '00000000:999' was never executed"),
            std::string::npos);
}

TEST(EngineTest, TimelineAndReports) {
  Replayer S;
  std::ostringstream Json;
  ChromeTraceWriter Writer(Json, 2);
  EngineOptions Opt;
  Opt.Timeline = &Writer;
  // The ping-pong's first half: rank 1 waits 20 .. 1200.
  EstimateResult R =
      S.run({{Event::compute(C1), Event::send(10, 1, 0, 100, 1), Event::completion(11, {req(1)})},
             {Event::recv(20, 0, 0, 100, 1), Event::completion(21, {req(1)})}},
            Opt);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  std::string T = Json.str();
  EXPECT_NE(
      T.find("\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":1,\"args\":{\"name\":\"rank 1\"}"),
      std::string::npos)
      << T;
  EXPECT_NE(T.find("{\"name\":\"wait 00000000:21\",\"cat\":\"wait\",\"ph\":\"X\",\"pid\":0,"
                   "\"tid\":1,\"ts\":0.020,\"dur\":1.180,"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("\"name\":\"compute 00000000:1\""), std::string::npos);
  EXPECT_EQ(T.substr(T.size() - 4), "\n]}\n");

  std::ostringstream Yaml, Js, Text;
  writeYaml(Yaml, R);
  writeJson(Js, R);
  writeText(Text, R);
  EXPECT_NE(Yaml.str().find("predicted_seconds: 0.000001200\n"), std::string::npos) << Yaml.str();
  EXPECT_NE(Yaml.str().find("- {rank: 1, compute_seconds: 0.000000000, comm_seconds: "
                            "0.000000020, wait_seconds: 0.000001180"),
            std::string::npos)
      << Yaml.str();
  EXPECT_NE(Js.str().find("\"predicted_seconds\": 0.000001200,"), std::string::npos) << Js.str();
  EXPECT_NE(Js.str().find("{\"rank\": 0, \"compute_seconds\": 0.000000100"), std::string::npos);
  EXPECT_NE(Text.str().find("predicted time: 0.000001200 s"), std::string::npos);
  // The biggest contributor is rank 1's wait block.
  std::vector<BlockResult> Top = R.topBlocks(1);
  ASSERT_EQ(Top.size(), 1u);
  EXPECT_EQ(Top[0].Block, 21u);
}

} // namespace

// Issue 13: a collective's copy of the rank's own block (LocalCopy) costs the rank's CPU the
// link's memory-copy time, as comm; without a copy table it costs nothing.
TEST(EngineTest, LocalCopyCostsTheCopyTable) {
  auto Traces = [] {
    return std::vector<std::vector<Event>>{
        {Event::localCopy(10, 500), Event::send(11, 1, 0, 100, 1, 0, 1),
         Event::completion(12, {req(1)})},
        {Event::localCopy(20, 2000), Event::recv(21, 0, 0, 100, 1, 0, 1),
         Event::completion(22, {req(1, 0, 0)})}};
  };
  Replayer S;
  // Copy table (0, 10 ns), (1000, 110 ns): 500 bytes 60 ns, 2000 bytes 210 ns (extrapolated).
  // rank 0: copy 0-60, send at 60 (o_s -> 70), arrives 60 + 1100 = 1160.
  // rank 1: copy 0-210, receive posted at 210 (o_r -> 230), waits until 1160.
  S.Link->setCopyTable({{0, 10e-9}, {1000, 110e-9}});
  EstimateResult R = S.run(Traces());
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 1160);
  EXPECT_EQ(R.Ranks[0].End, 70);
  EXPECT_EQ(R.Ranks[0].Comm, 70);
  EXPECT_EQ(R.Ranks[1].Comm, 230);
  EXPECT_EQ(R.Ranks[1].Wait, 930);
  EXPECT_EQ(R.Ranks[1].End, 1160);
  // Without the table (network.yaml before it): the copies are free, the message alone.
  Replayer Old;
  EstimateResult R0 = Old.run(Traces());
  ASSERT_TRUE(R0.Ok) << allErrors(R0);
  EXPECT_EQ(R0.Predicted, 1100);
  // An own block with gaps costs what MPI_Pack took over the memcpy (memory_copy_packed),
  // interpolated in log2 of the piece length as packed messages are; never below 0.
  S.Link->addPackedCopyTable(8, {{0, 0}, {1000, 100e-9}});
  S.Link->addPackedCopyTable(512, {{0, 0}, {1000, -40e-9}});
  EXPECT_EQ(S.Link->localCopy(500, 0), 60);
  EXPECT_EQ(S.Link->localCopy(500, 1), 110);  // pieces of 8: 60 + 50
  EXPECT_EQ(S.Link->localCopy(500, 4), 40);   // 512: 60 - 20
  EXPECT_EQ(S.Link->localCopy(500, 2), 87);   // 32, a third of the way: 60 + 50 - 70 / 3
  EXPECT_EQ(S.Link->localCopy(0, 6), 10);     // held beyond 512
  EXPECT_EQ(S.Link->localCopy(5000, 4), 470); // 510 - 40: a falling tail is held level
  S.Link->addPackedCopyTable(4096, {{0, -1e-6}});
  EXPECT_EQ(S.Link->localCopy(500, 6), 0);
  std::vector<std::vector<Event>> Packed = Traces();
  Packed[1][0].Layout = 1; // rank 1's 2000 bytes: 210 + 200; its receive posted at 410
  EstimateResult RP = S.run(Packed);
  ASSERT_TRUE(RP.Ok) << allErrors(RP);
  EXPECT_EQ(RP.Ranks[1].Comm, 430);
  EXPECT_EQ(RP.Ranks[1].End, 1160);
  EXPECT_EQ(R0.Ranks[0].Comm, 10);
  EXPECT_EQ(R0.Ranks[1].Comm, 20);
}

// Issue 13 (ring): a rendezvous message received into the buffer the receiver has just sent
// from (Event::SameBuffer) costs the link's sameBufferExtra on top of its transfer; an eager
// one, an unflagged one, or a link without the table (network.yaml before it) costs nothing
// more.
TEST(EngineTest, SameBufferReceiveCostsTheExtraTable) {
  auto Traces = [](uint64_t Bytes, bool Same) {
    Event Recv = Event::recv(20, 0, 0, Bytes, 1);
    Recv.SameBuffer = Same;
    return std::vector<std::vector<Event>>{
        {Event::send(10, 1, 0, Bytes, 1), Event::completion(11, {req(1)})},
        {Event::compute(C5), Recv, Event::completion(21, {req(1)})}};
  };
  Replayer S;
  // Extra (0, 0 ns), (4000, 400 ns): 2000 bytes 200 ns. As RendezvousSendWaitsForLateReceiver,
  // the transfer starts at 5000 and ends 5000 + T(2000) + 200 = 8200.
  S.Link->setSameBufferTable({{0, 0}, {4000, 400e-9}});
  EstimateResult R = S.run(Traces(2000, true));
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Predicted, 8200);
  EXPECT_EQ(R.Ranks[0].Wait, 8190);
  EXPECT_EQ(R.Ranks[1].Wait, 3180); // 5020 .. 8200
  EXPECT_EQ(S.run(Traces(2000, false)).Predicted, 8000);
  // Eager (1000 bytes): the receive completes when posted, as without the flag.
  EXPECT_EQ(S.run(Traces(1000, true)).Predicted, 5020);
  Replayer Old;
  EXPECT_EQ(Old.run(Traces(2000, true)).Predicted, 8000);
  // Negative table entries (noise: the same-buffer ping-pong faster) count as 0.
  Replayer Noisy;
  Noisy.Link->setSameBufferTable({{0, -50e-9}, {4000, -50e-9}});
  EXPECT_EQ(Noisy.run(Traces(2000, true)).Predicted, 8000);
}

// Issue 13 (alltoallw-transpose): a message whose datatype is not contiguous on either side
// costs the packed extra of its layout class (the shorter pieces of the two), interpolated in
// log2 of the piece length between the measured tables and held beyond them; eager messages
// too, when the receive completes.
TEST(EngineTest, PackedMessageCostsTheExtraOfItsLayout) {
  auto Traces = [](uint64_t Bytes, uint8_t SendLayout, uint8_t RecvLayout) {
    Event Send = Event::send(10, 1, 0, Bytes, 1);
    Send.Layout = SendLayout;
    Event Recv = Event::recv(20, 0, 0, Bytes, 1);
    Recv.Layout = RecvLayout;
    return std::vector<std::vector<Event>>{
        {Send, Event::completion(11, {req(1)})},
        {Event::compute(C5), Recv, Event::completion(21, {req(1)})}};
  };
  Replayer S;
  // Pieces of 8 bytes: (0, 0), (4000, 800 ns): 2000 bytes 400 ns, 1000 bytes 200 ns. Pieces of
  // 512: (0, 0), (4000, 400 ns): 2000 bytes 200 ns. Without them (as
  // SameBufferReceiveCostsTheExtraTable) the transfer runs 5000 .. 8000.
  S.Link->addPackedTable(8, {{0, 0}, {4000, 800e-9}});
  S.Link->addPackedTable(512, {{0, 0}, {4000, 400e-9}});
  EXPECT_EQ(S.run(Traces(2000, 0, 0)).Predicted, 8000);
  EXPECT_EQ(S.run(Traces(2000, 1, 0)).Predicted, 8400); // class 1: pieces of 8
  EXPECT_EQ(S.run(Traces(2000, 0, 4)).Predicted, 8200); // class 4: 512
  // Class 2 (32 bytes, log2 5): a third of the way from 8 (3) to 512 (9): 400 - 200/3.
  EXPECT_EQ(S.run(Traces(2000, 2, 0)).Predicted, 8333);
  EXPECT_EQ(S.run(Traces(2000, 4, 1)).Predicted, 8400); // the shorter pieces decide
  EXPECT_EQ(S.run(Traces(2000, 6, 0)).Predicted, 8200); // 8192: beyond the last, held
  EXPECT_EQ(S.run(Traces(2000, 7, 0)).Predicted, 8200); // unknown: costed as 512
  // Eager (1000 bytes): the message waits from 2000; the receive, posted at 5000, completes
  // 200 ns later, unpacked (the receive's own 20 ns overhead runs inside that): 5200, not 5020.
  EXPECT_EQ(S.run(Traces(1000, 0, 0)).Predicted, 5020);
  EXPECT_EQ(S.run(Traces(1000, 1, 0)).Predicted, 5200);
  // Network files before the tables: packed messages cost what contiguous ones do.
  Replayer Old;
  EXPECT_EQ(Old.run(Traces(2000, 1, 1)).Predicted, 8000);
  // A packed path measured faster (a negative extra) shortens a rendezvous transfer, never
  // below nothing, and never an eager message's (its arrival is the eager protocol's own).
  Replayer Fast;
  Fast.Link->addPackedTable(4096, {{0, 0}, {4000, -1000e-9}});
  EXPECT_EQ(Fast.run(Traces(2000, 6, 0)).Predicted, 7500);
  EXPECT_EQ(Fast.run(Traces(1000, 6, 0)).Predicted, 5020);
  Replayer Faster;
  Faster.Link->addPackedTable(4096, {{0, 0}, {4000, -20000e-9}});
  EXPECT_EQ(Faster.run(Traces(2000, 6, 0)).Predicted, 5020); // transfer 0: the receive's post
  // With the unpacked tables (the receiver's side, network.yaml unpacked) each side pays its
  // own: the sender's packing by its layout, the receiver's unpacking by its.
  // Unpacked pieces of 8: (0, 0), (4000, 600 ns): 2000 bytes 300 ns; of 512: 2000 bytes 100.
  Replayer Both;
  Both.Link->addPackedTable(8, {{0, 0}, {4000, 800e-9}});
  Both.Link->addPackedTable(512, {{0, 0}, {4000, 400e-9}});
  Both.Link->addUnpackedTable(8, {{0, 0}, {4000, 600e-9}});
  Both.Link->addUnpackedTable(512, {{0, 0}, {4000, 200e-9}});
  EXPECT_EQ(Both.run(Traces(2000, 0, 0)).Predicted, 8000);
  EXPECT_EQ(Both.run(Traces(2000, 1, 0)).Predicted, 8400); // packing alone, as before
  EXPECT_EQ(Both.run(Traces(2000, 0, 1)).Predicted, 8300); // unpacking alone: its own table
  EXPECT_EQ(Both.run(Traces(2000, 1, 1)).Predicted, 8700); // both sides: 400 + 300
  EXPECT_EQ(Both.run(Traces(2000, 4, 1)).Predicted, 8500); // 512 sent (200), 8 received (300)
  EXPECT_EQ(Both.run(Traces(1000, 1, 4)).Predicted, 5250); // eager: 200 + 50 at completion
}
