// Contention tests: transfers between nodes sharing node links (max-min fair fluid flows),
// with hand-computed completion times.
//
// The network is T(k) = 1000 + k ns with no overheads and G = 1 ns per byte, so a message of k
// bytes streams for its last k ns; a node link carries C = 1 byte per ns unless a test says
// otherwise (what one pair achieves). Messages are eager unless a test lowers the limit.
#include "Replay.h"
#include "mpiete/estimator/Engine.h"

#include <gtest/gtest.h>

#include <memory>

using namespace mpiete::estimator;
using mpiete::estimator::test::allErrors;
using mpiete::estimator::test::req;

namespace {

constexpr BlockId Half = 7; // 500,000 ns of compute
constexpr uint64_t MB = 1000000;

struct Cluster {
  TableComputeModel Compute;
  std::shared_ptr<TableLinkModel> Link;
  std::unique_ptr<ClusterNetworkModel> Net;

  /// NodeOfRank: the node of each rank; LinkBytesPerSecond 0: C = 1/G; GEager: seconds per
  /// byte an eager message streams at (< 0: G).
  Cluster(std::vector<int> NodeOfRank, ContentionKind Kind = ContentionKind::Fair,
          double LinkBytesPerSecond = 0, uint64_t EagerLimit = uint64_t(1) << 40,
          double GEager = -1) {
    Compute.setTime(Compute.addMachine(), Half, 500000e-9);
    Link = std::make_shared<TableLinkModel>(
        std::vector<TableLinkModel::Point>{{0, 1000e-9}, {1024, 2024e-9}}, 0, 0, EagerLimit);
    Link->setStreamGaps(1e-9, GEager);
    Net = std::make_unique<ClusterNetworkModel>(std::move(NodeOfRank), Link, Link);
    Net->setContention(Kind, LinkBytesPerSecond);
  }

  EstimateResult run(std::vector<std::vector<Event>> Traces) {
    return test::replay(Compute, *Net, std::move(Traces));
  }
};

/// Rank Sender sends Bytes to each of Peers at its start and waits for all of them.
std::vector<Event> sendAll(std::vector<std::pair<int, uint64_t>> Peers) {
  std::vector<Event> T;
  std::vector<CompletedRequest> Done;
  uint64_t Req = 1;
  for (auto [Peer, Bytes] : Peers) {
    T.push_back(Event::send(10, Peer, 0, Bytes, Req));
    Done.push_back(req(Req++));
  }
  T.push_back(Event::completion(11, Done));
  return T;
}

/// A receive of Bytes from Source posted at the start, then its wait.
std::vector<Event> recvOne(int Source, uint64_t Bytes) {
  return {Event::recv(20, Source, 0, Bytes, 1), Event::completion(21, {req(1, Source, 0)})};
}

} // namespace

TEST(ContentionTest, TwoFlowsOutOfOneNodeTakeTwiceAsLong) {
  // Ranks 0, 1, 2 on nodes 0, 1, 2. One 1 MB flow alone: 1000 + 1e6 ns. Two at once share
  // node 0's egress (C = 1/G): each streams at half its rate, 2e6 ns, both end at 2,001,000.
  Cluster One({0, 1, 2});
  EstimateResult A = One.run({sendAll({{1, MB}}), recvOne(0, MB), {}});
  ASSERT_TRUE(A.Ok) << allErrors(A);
  EXPECT_EQ(A.Ranks[1].End, 1001000);

  Cluster Two({0, 1, 2});
  EstimateResult B = Two.run({sendAll({{1, MB}, {2, MB}}), recvOne(0, MB), recvOne(0, MB)});
  ASSERT_TRUE(B.Ok) << allErrors(B);
  EXPECT_EQ(B.Ranks[1].End, 2001000);
  EXPECT_EQ(B.Ranks[2].End, 2001000);
  EXPECT_EQ(B.Ranks[0].End, 0); // eager sends complete at once
  EXPECT_EQ(B.Predicted, 2001000);
}

TEST(ContentionTest, TwiceTheCapacityCarriesTwoFlowsAtFullRate) {
  // C = 2 bytes per ns = 2/G: both flows get their own rate and end as one alone does.
  Cluster S({0, 1, 2}, ContentionKind::Fair, 2e9);
  EstimateResult R = S.run({sendAll({{1, MB}, {2, MB}}), recvOne(0, MB), recvOne(0, MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1001000);
  EXPECT_EQ(R.Ranks[2].End, 1001000);
}

TEST(ContentionTest, AFlowStartingHalfwayChangesTheRatesMidFlight) {
  // Ranks 0 and 2 on node 0, rank 1 on node 1, rank 3 on node 2.
  // Flow A (0 -> 1) streams from 1000 at full rate. Rank 2 computes until 500,000 and sends:
  // flow B (2 -> 3) streams from 501,000. A has 500,000 ns left then, at half rate 1,000,000:
  // A ends at 1,501,000. B has streamed 500,000 ns' worth by then, and the rest alone:
  // B ends at 2,001,000.
  Cluster S({0, 1, 0, 2});
  std::vector<Event> Late = sendAll({{3, MB}});
  Late.insert(Late.begin(), Event::compute(Half));
  EstimateResult R = S.run({sendAll({{1, MB}}), recvOne(0, MB), Late, recvOne(2, MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1501000);
  EXPECT_EQ(R.Ranks[3].End, 2001000);
}

TEST(ContentionTest, AFinishedFlowFreesBandwidthForTheOther) {
  // 1 MB to rank 1 and 3 MB to rank 2 from node 0, both from 1000 at half rate: the first
  // ends at 1000 + 2e6 = 2,001,000, when the second has 2e6 ns left, alone at full rate:
  // 4,001,000 (alone it would end at 3,001,000).
  Cluster S({0, 1, 2});
  EstimateResult R = S.run({sendAll({{1, MB}, {2, 3 * MB}}), recvOne(0, MB), recvOne(0, 3 * MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 2001000);
  EXPECT_EQ(R.Ranks[2].End, 4001000);
}

TEST(ContentionTest, TwoSendersShareTheReceiverNodesIngress) {
  // Ranks 0 and 1 (nodes 0, 1) each send 1 MB to rank 2 (node 2): disjoint egress links, one
  // ingress link, so both stream at half rate and end at 2,001,000.
  Cluster S({0, 1, 2});
  EstimateResult R = S.run({
      sendAll({{2, MB}}),
      sendAll({{2, MB}}),
      {Event::recv(20, 0, 0, MB, 1), Event::recv(20, 1, 0, MB, 2),
       Event::completion(21, {req(1, 0, 0), req(2, 1, 0)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[2].End, 2001000);
  EXPECT_EQ(R.Ranks[2].Wait, 2001000);
}

TEST(ContentionTest, FlowsOnDisjointLinksDoNotInteract) {
  // 0 -> 1 and 1 -> 0 at once (full duplex: each uses one node's egress and the other's
  // ingress), and 2 -> 3 on other nodes: every flow alone on its links, 1,001,000 each.
  Cluster S({0, 1, 2, 3});
  auto Exchange = [](int Peer) {
    return std::vector<Event>{Event::recv(20, Peer, 0, MB, 1), Event::send(10, Peer, 0, MB, 2),
                              Event::completion(21, {req(1, Peer, 0), req(2)})};
  };
  EstimateResult R = S.run({Exchange(1), Exchange(0), sendAll({{3, MB}}), recvOne(2, MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 1001000);
  EXPECT_EQ(R.Ranks[1].End, 1001000);
  EXPECT_EQ(R.Ranks[3].End, 1001000);
}

TEST(ContentionTest, ContentionNoneGivesTheOldAnswers) {
  Cluster S({0, 1, 2}, ContentionKind::None);
  EstimateResult R = S.run({sendAll({{1, MB}, {2, 3 * MB}}), recvOne(0, MB), recvOne(0, 3 * MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1001000);
  EXPECT_EQ(R.Ranks[2].End, 3001000);
}

TEST(ContentionTest, RanksOnOneNodeDoNotUseItsLink) {
  // Ranks 0, 1, 2 all on node 0: intra-node messages are not flows.
  Cluster S({0, 0, 0});
  EstimateResult R = S.run({sendAll({{1, MB}, {2, MB}}), recvOne(0, MB), recvOne(0, MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1001000);
  EXPECT_EQ(R.Ranks[2].End, 1001000);
}

TEST(ContentionTest, RendezvousFlowsCompleteSendAndReceiveAtTheirEnd) {
  // S = 1024: 1 MB goes by rendezvous. The receives are posted at 0, the envelopes arrive at
  // T(0) = 1000 and match; each transfer would end at 0 + T(1 MB) = 1,001,000 alone, streaming
  // from 1000. Two share node 0's egress: both end at 2,001,000, and so does the sender's
  // wait for its two sends.
  Cluster S({0, 1, 2}, ContentionKind::Fair, 0, 1024);
  EstimateResult R = S.run({sendAll({{1, MB}, {2, MB}}), recvOne(0, MB), recvOne(0, MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 2001000);
  EXPECT_EQ(R.Ranks[1].End, 2001000);
  EXPECT_EQ(R.Ranks[2].End, 2001000);
}

TEST(ContentionTest, RendezvousMatchedLateStreamsFromTheReceive) {
  // S = 1024. Rank 0 starts a 1 MB rendezvous send to rank 1 at 0; rank 1 posts its receive
  // at 500,000 (after its compute): the transfer runs from 500,000 to 500,000 + T(1 MB),
  // streaming from 501,000. Rank 0, after its own compute, sends 1000 bytes eagerly to rank 2
  // at 500,000: T(1000) = 2000, streaming from 501,000 as well.
  Cluster S({0, 1, 2}, ContentionKind::Fair, 0, 1024);
  std::vector<Event> Sender = {Event::send(10, 1, 0, MB, 1), Event::compute(Half),
                               Event::send(10, 2, 0, 1000, 2),
                               Event::completion(11, {req(1), req(2)})};
  std::vector<Event> Late = recvOne(0, MB);
  Late.insert(Late.begin(), Event::compute(Half));
  // Both share node 0's egress at half rate: the small one ends after 2000 ns, at 503,000;
  // the big one has 999,000 ns left then, alone.
  EstimateResult R = S.run({Sender, Late, recvOne(0, 1000)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[2].End, 503000);
  EXPECT_EQ(R.Ranks[1].End, 1502000); // 501,000 + 1e6 + the 1000 ns lost to sharing
  EXPECT_EQ(R.Ranks[0].End, 1502000);
}

TEST(ContentionTest, NonOvertakingHoldsBackAFlowThatEndsFirst) {
  // On one channel 0 -> 1: 1 MB (tag 1), then 10 bytes (tag 2), both streaming from 1000 on
  // the same links at half rate. The small one ends at 1020, the big one then has 999,990 ns
  // left alone: 1,001,010. The small one may not arrive before it: both at 1,001,010.
  Cluster S({0, 1});
  EstimateResult R = S.run({
      {Event::send(10, 1, 1, MB, 1), Event::send(10, 1, 2, 10, 2),
       Event::completion(11, {req(1), req(2)})},
      {Event::recv(20, 0, 1, MB, 1), Event::recv(20, 0, 2, 10, 2),
       Event::completion(21, {req(2, 0, 2)}), Event::completion(22, {req(1, 0, 1)})},
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1001010);
  EXPECT_EQ(R.Ranks[1].Wait, 1001010);
}

TEST(ContentionTest, AllToAllSharesEveryLinkThreeWays) {
  // Four nodes, one rank each, every rank sends 1 MB to the three others: every egress and
  // every ingress link carries three flows, each at a third of its rate: 1000 + 3e6 ns.
  Cluster S({0, 1, 2, 3});
  std::vector<std::vector<Event>> Traces(4);
  for (int R = 0; R < 4; ++R) {
    std::vector<CompletedRequest> Done;
    uint64_t Req = 1;
    for (int P = 0; P < 4; ++P)
      if (P != R) {
        Traces[R].push_back(Event::recv(20, P, 0, MB, Req));
        Done.push_back(req(Req++, P, 0));
        Traces[R].push_back(Event::send(10, P, 0, MB, Req));
        Done.push_back(req(Req++));
      }
    Traces[R].push_back(Event::completion(21, Done));
  }
  EstimateResult R = S.run(Traces);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  for (int Rank = 0; Rank < 4; ++Rank)
    EXPECT_EQ(R.Ranks[Rank].End, 3001000) << "rank " << Rank;
}

TEST(ContentionTest, AClassRefilledWhenAnotherFlowEndsStartsAfresh) {
  // 0 -> 1 streams 1 MB from 1000 to 1,001,000; 2 -> 3 streams 2 MB from 1000 to 2,001,000.
  // Rank 0 computes until 2,000,000 and sends 1 MB to rank 1 again: it streams from
  // 2,001,000, the instant the other flow ends, and takes its full 1e6 ns: 3,001,000.
  Cluster S({0, 1, 2, 3});
  std::vector<Event> Again = {Event::send(10, 1, 0, MB, 1)};
  for (int I = 0; I < 4; ++I)
    Again.push_back(Event::compute(Half));
  Again.push_back(Event::send(10, 1, 0, MB, 2));
  Again.push_back(Event::completion(11, {req(1), req(2)}));
  EstimateResult R = S.run({
      Again,
      {Event::recv(20, 0, 0, MB, 1), Event::completion(21, {req(1, 0, 0)}),
       Event::recv(20, 0, 0, MB, 2), Event::completion(21, {req(2, 0, 0)})},
      sendAll({{3, 2 * MB}}),
      recvOne(2, 2 * MB),
  });
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[3].End, 2001000);
  EXPECT_EQ(R.Ranks[1].End, 3001000);
}

TEST(ContentionTest, LinkCapacityIsTheSustainedRateNotTheEagerOne) {
  // Small messages stream at 4 bytes per ns (G_eager = 0.25 ns per byte: they ride the
  // network's buffers), large ones at 1 (G). Two 1 MB rendezvous flows out of node 0 still
  // share its egress link, which carries what one pair keeps it busy with (1/G): each streams
  // at half its rate, 2e6 ns after the 1000 ns envelope, as with G_eager = G.
  Cluster Two({0, 1, 2}, ContentionKind::Fair, 0, 64 * 1024, 0.25e-9);
  EstimateResult B = Two.run({sendAll({{1, MB}, {2, MB}}), recvOne(0, MB), recvOne(0, MB)});
  ASSERT_TRUE(B.Ok) << allErrors(B);
  EXPECT_EQ(B.Ranks[1].End, 2001000);
  EXPECT_EQ(B.Ranks[2].End, 2001000);
}

TEST(ContentionTest, AnEagerFlowTakesTheLinkForItsOwnTime) {
  // Same network. Rank 0 sends 1 MB (rendezvous, streaming over [1000, 1,001,000]) to rank 2
  // and 4000 bytes (eager: T = 5000 ns, streaming its last 4000 x 0.25 = 1000 ns, [4000,
  // 5000] alone) to rank 1. Both fill node 0's egress when alone, so from 4000 each goes at
  // half its own pace: the small one's 1000 ns take 2000 (arrives at 6000), the large one
  // loses 1000 ns (ends at 1,002,000).
  Cluster Mixed({0, 1, 2}, ContentionKind::Fair, 0, 64 * 1024, 0.25e-9);
  EstimateResult B = Mixed.run({sendAll({{2, MB}, {1, 4000}}), recvOne(0, 4000), recvOne(0, MB)});
  ASSERT_TRUE(B.Ok) << allErrors(B);
  EXPECT_EQ(B.Ranks[1].End, 6000);
  EXPECT_EQ(B.Ranks[2].End, 1002000);
}

namespace {

/// Ranks 0 and 1 exchange Bytes at once: each posts its receive and starts its send at 0,
/// then waits for both. Layout: the sends' datatype class (0 contiguous).
std::vector<std::vector<Event>> exchangeOf(uint64_t Bytes, uint8_t Layout = 0) {
  std::vector<std::vector<Event>> T;
  for (int R = 0; R < 2; ++R) {
    Event Send = Event::send(11, 1 - R, 0, Bytes, 2);
    Send.Layout = Layout;
    T.push_back({Event::recv(10, 1 - R, 0, Bytes, 1), Send,
                 Event::completion(12, {req(1, 1 - R, 0), req(2)})});
  }
  return T;
}

} // namespace

// Transfers within a node share their ranks' endpoints when network.yaml measured exchanges
// slower than one-way messages (LinkModel::setExchangeTables). Rendezvous (S = 1024): each
// 1 MB transfer runs from 0 to T(1 MB) = 1,001,000 alone, streaming from 1000.
TEST(ContentionTest, AnExchangeSharesItsRanksEndpoints) {
  // Exchanges of 1 MB measured at 1,251,000 ns: each of the two kept f = 1e6 / (1e6 + 250,000)
  // = 0.8 of its rate, so each endpoint carries 1.6 bytes per ns.
  Cluster S({0, 0}, ContentionKind::Fair, 0, 1024);
  S.Link->setExchangeTables({{MB, 1251000e-9}}, 0, {});
  EXPECT_DOUBLE_EQ(S.Link->exchangeShare(), 0.8);
  EXPECT_DOUBLE_EQ(S.Net->endpointCapacity(), 1.6);
  EstimateResult R = S.run(exchangeOf(MB));
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 1251000); // 1000 + 1e6 / 0.8
  EXPECT_EQ(R.Ranks[1].End, 1251000);
  // One message alone is never slowed.
  R = S.run({sendAll({{1, MB}}), recvOne(0, MB)});
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1001000);
  // Without the table, or with a node map and contention none, nothing is shared.
  Cluster Old({0, 0}, ContentionKind::Fair, 0, 1024);
  EXPECT_EQ(Old.run(exchangeOf(MB)).Ranks[0].End, 1001000);
  Cluster None({0, 0}, ContentionKind::None, 0, 1024);
  None.Link->setExchangeTables({{MB, 1251000e-9}}, 0, {});
  EXPECT_EQ(None.Net->endpointCapacity(), 0);
  EXPECT_EQ(None.run(exchangeOf(MB)).Ranks[0].End, 1001000);
  // Without a node map (one network file for every pair) the endpoints are shared too.
  ClusterNetworkModel Flat(S.Link);
  EstimateResult F = test::replay(S.Compute, Flat, exchangeOf(MB));
  ASSERT_TRUE(F.Ok) << allErrors(F);
  EXPECT_EQ(F.Ranks[0].End, 1251000);
}

TEST(ContentionTest, PackedExchangesShareTheirPackingWork) {
  // Pieces of 512 bytes (class 4) cost 500,000 ns more at 1 MB: one way 1,501,000, of which
  // all but the fixed 1000 is work; exchanged at once in 3,001,000 (f = 0.5). Contiguous
  // exchanges as above (f = 0.8): endpoints of 1.6 bytes per ns, a packed transfer taking
  // 1.6 / (2 x 0.5) of one at its own pace.
  Cluster S({0, 0}, ContentionKind::Fair, 0, 1024);
  S.Link->addPackedTable(512, {{0, 0}, {MB, 500000e-9}});
  S.Link->setExchangeTables({{MB, 1251000e-9}}, 512, {{MB, 3001000e-9}});
  EXPECT_DOUBLE_EQ(S.Link->packedExchangeShare(), 0.5);
  EXPECT_DOUBLE_EQ(S.Link->packedFlowRate(), 1.6);
  EstimateResult R = S.run(exchangeOf(MB, 4));
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[0].End, 3001000); // 1000 + 1.5e6 / 0.5
  EXPECT_EQ(R.Ranks[1].End, 3001000);
  // Alone, a packed transfer takes its one-way time.
  std::vector<std::vector<Event>> One = {sendAll({{1, MB}}), recvOne(0, MB)};
  One[0][0].Layout = 4;
  R = S.run(One);
  ASSERT_TRUE(R.Ok) << allErrors(R);
  EXPECT_EQ(R.Ranks[1].End, 1501000);
  // Contiguous exchanges keep their own share.
  EXPECT_EQ(S.run(exchangeOf(MB)).Ranks[0].End, 1251000);
}

TEST(ContentionTest, ExchangeSharesAreMediansHeldWithinHalfAndOne) {
  Cluster S({0, 0}, ContentionKind::Fair, 0, 1024);
  // Eager sizes and sizes whose streaming is under a quarter of their time are left out;
  // 100 KB (T 101,000, S 100,000): f = 100,000 / (100,000 + 400,000) = 0.2, held at 0.5.
  S.Link->setExchangeTables({{512, 1e-3}, {100, 1e-3}, {100000, 501000e-9}}, 0, {});
  EXPECT_DOUBLE_EQ(S.Link->exchangeShare(), 0.5);
  EXPECT_DOUBLE_EQ(S.Link->endpointRate(), 1.0);
  // Median of 0.8, 1 (faster than one way) and 1: 1, no sharing at all.
  S.Link->setExchangeTables({{MB, 1251000e-9}, {2 * MB, 1.5e-3}, {3 * MB, 3.001e-3}}, 0, {});
  EXPECT_DOUBLE_EQ(S.Link->exchangeShare(), 1);
  EXPECT_EQ(S.Link->endpointRate(), 0);
  EXPECT_TRUE(S.Link->hasExchangeTable());
  // No usable size: the packed share falls back on the contiguous one.
  S.Link->setExchangeTables({{MB, 1251000e-9}}, 512, {{100, 1e-3}});
  EXPECT_DOUBLE_EQ(S.Link->packedExchangeShare(), 0.8);
}
