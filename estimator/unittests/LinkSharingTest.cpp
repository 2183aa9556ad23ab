// Max-min fair link sharing on its own: hand-computed rates, flows coming and going, and the
// max-min conditions checked on random networks.
#include "LinkSharing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace mpiete::estimator;
using GroupId = LinkSharing::GroupId;
using LinkId = LinkSharing::LinkId;

namespace {

constexpr double Unbounded = 1e9;

GroupId add(LinkSharing &S, std::vector<LinkId> Route, double Bound = Unbounded) {
  return S.addFlow(Route, Bound);
}

} // namespace

TEST(LinkSharingTest, NoFlowsNothingToShare) {
  LinkSharing S;
  S.addLink(10);
  S.solve();
  EXPECT_TRUE(S.activeGroups().empty());
  EXPECT_EQ(S.groupCount(), 0u);
}

TEST(LinkSharingTest, TwoFlowsOnOneLinkHalveIt) {
  // Link 0 of 10: two identical flows are one group of two, each at 10 / 2.
  LinkSharing S;
  LinkId L = S.addLink(10);
  GroupId A = add(S, {L});
  GroupId B = add(S, {L});
  EXPECT_EQ(A, B);
  EXPECT_EQ(S.flowCount(A), 2u);
  S.solve();
  EXPECT_EQ(S.rate(A), 5);
  EXPECT_FALSE(S.atBound(A));
}

TEST(LinkSharingTest, AFlowAloneGetsItsBound) {
  LinkSharing S;
  LinkId L = S.addLink(10);
  GroupId A = add(S, {L}, 4);
  S.solve();
  EXPECT_EQ(S.rate(A), 4);
  EXPECT_TRUE(S.atBound(A));
}

TEST(LinkSharingTest, TheNarrowerLinkOfARouteIsItsBottleneck) {
  // A crosses links of 10 and 4: the second holds it at 4. B shares only the first link and
  // takes what A leaves of it: 10 - 4 = 6, more than an even split would give it.
  LinkSharing S;
  LinkId Wide = S.addLink(10), Narrow = S.addLink(4);
  GroupId A = add(S, {Wide, Narrow});
  S.solve();
  EXPECT_EQ(S.rate(A), 4);
  GroupId B = add(S, {Wide});
  S.solve();
  EXPECT_EQ(S.rate(A), 4);
  EXPECT_EQ(S.rate(B), 6);
}

TEST(LinkSharingTest, ClassicThreeFlows) {
  // Links 1 (capacity 10) and 2 (20). A crosses both, B only link 1, C only link 2. Filling:
  // link 1's fair share 10 / 2 = 5 is the lower, so A and B stop at 5 and link 1 is full; C
  // gets the rest of link 2, 20 - 5 = 15. Each flow has a full link on which no flow is
  // faster than it (A and B: link 1; C: link 2), which is what makes the rates max-min fair.
  LinkSharing S;
  LinkId L1 = S.addLink(10), L2 = S.addLink(20);
  GroupId A = add(S, {L1, L2});
  GroupId B = add(S, {L1});
  GroupId C = add(S, {L2});
  S.solve();
  EXPECT_EQ(S.rate(A), 5);
  EXPECT_EQ(S.rate(B), 5);
  EXPECT_EQ(S.rate(C), 15);
}

TEST(LinkSharingTest, ABoundedFlowLeavesItsShareToTheOthers) {
  // Link of 12: A wants at most 2, B and C take (12 - 2) / 2 each.
  LinkSharing S;
  LinkId L = S.addLink(12);
  GroupId A = add(S, {L}, 2);
  GroupId B = add(S, {L}, 100);
  GroupId C = add(S, {L}, 200);
  S.solve();
  EXPECT_EQ(S.rate(A), 2);
  EXPECT_TRUE(S.atBound(A));
  EXPECT_EQ(S.rate(B), 5);
  EXPECT_EQ(S.rate(C), 5);
  EXPECT_FALSE(S.atBound(B));
}

TEST(LinkSharingTest, FlowsLeavingSpeedUpTheOthers) {
  // Link of 12 with four flows (one group of two, two groups of one): 3 each. One of the pair
  // leaves: 4 each; a single leaves: 6 each; the pair's last one leaves: the rest alone at 12.
  LinkSharing S;
  LinkId L = S.addLink(12);
  GroupId Pair = add(S, {L}, 100);
  add(S, {L}, 100);
  GroupId B = add(S, {L}, 200);
  GroupId C = add(S, {L}, 300);
  S.solve();
  EXPECT_EQ(S.rate(Pair), 3);
  EXPECT_EQ(S.rate(B), 3);
  S.removeFlow(Pair);
  S.solve();
  EXPECT_EQ(S.flowCount(Pair), 1u);
  EXPECT_EQ(S.rate(Pair), 4);
  EXPECT_EQ(S.rate(C), 4);
  S.removeFlow(B);
  S.solve();
  EXPECT_EQ(S.rate(Pair), 6);
  EXPECT_EQ(S.rate(C), 6);
  S.removeFlow(Pair);
  S.solve();
  EXPECT_EQ(S.rate(C), 12);
  S.removeFlow(C);
  S.solve();
  EXPECT_TRUE(S.activeGroups().empty());
}

TEST(LinkSharingTest, GroupsAreByRouteAndBoundAndOutliveTheirFlows) {
  LinkSharing S;
  LinkId L0 = S.addLink(1), L1 = S.addLink(1);
  GroupId A = add(S, {L0, L1}, 1);
  EXPECT_NE(add(S, {L0, L1}, 2), A);
  EXPECT_NE(add(S, {L0}, 1), A);
  S.removeFlow(A);
  EXPECT_EQ(add(S, {L0, L1}, 1), A); // the same id again once it had emptied
  EXPECT_EQ(S.groupCount(), 3u);
}

TEST(LinkSharingTest, AnEmptiedGroupIsReplacedByTheLastActiveOne) {
  // The engine walks the active groups backwards while flows end: the order is part of the
  // contract, and with it the order of events at equal times.
  LinkSharing S;
  LinkId L = S.addLink(1);
  GroupId A = add(S, {L}, 1), B = add(S, {L}, 2), C = add(S, {L}, 3);
  EXPECT_EQ(std::vector<GroupId>(S.activeGroups().begin(), S.activeGroups().end()),
            (std::vector<GroupId>{A, B, C}));
  S.removeFlow(A);
  EXPECT_EQ(std::vector<GroupId>(S.activeGroups().begin(), S.activeGroups().end()),
            (std::vector<GroupId>{C, B}));
  add(S, {L}, 1);
  EXPECT_EQ(std::vector<GroupId>(S.activeGroups().begin(), S.activeGroups().end()),
            (std::vector<GroupId>{C, B, A}));
}

TEST(LinkSharingTest, RandomNetworksMeetTheMaxMinConditions) {
  // Feasible (no link over its capacity, no flow over its bound) and max-min fair: every flow
  // is at its bound or crosses a full link on which no flow is faster.
  std::mt19937 Rng(12);
  const double Eps = 1e-9;
  for (int Round = 0; Round < 200; ++Round) {
    LinkSharing S;
    std::vector<double> Caps(1 + Rng() % 6);
    for (double &Cap : Caps)
      S.addLink(Cap = 1 + Rng() % 20);
    std::vector<std::vector<LinkId>> Routes;
    std::vector<GroupId> Flows;
    for (size_t F = 0, N = 1 + Rng() % 12; F < N; ++F) {
      std::vector<LinkId> Route;
      for (LinkId L = 0; L < Caps.size() && Route.size() < LinkSharing::MaxRoute; ++L)
        if (Rng() % 2)
          Route.push_back(L);
      if (Route.empty())
        Route.push_back(LinkId(Rng() % Caps.size()));
      Flows.push_back(S.addFlow(Route, Rng() % 3 ? Unbounded : 0.5 + Rng() % 10));
      Routes.push_back(Route);
    }
    S.solve();
    std::vector<double> Load(Caps.size(), 0), Fastest(Caps.size(), 0);
    for (size_t F = 0; F < Flows.size(); ++F)
      for (LinkId L : Routes[F]) {
        Load[L] += S.rate(Flows[F]);
        Fastest[L] = std::max(Fastest[L], S.rate(Flows[F]));
      }
    for (size_t L = 0; L < Caps.size(); ++L)
      EXPECT_LE(Load[L], Caps[L] * (1 + Eps)) << "round " << Round << " link " << L;
    for (size_t F = 0; F < Flows.size(); ++F) {
      double Rate = S.rate(Flows[F]);
      EXPECT_LE(Rate, S.bound(Flows[F]) * (1 + Eps));
      bool Bottleneck = std::any_of(Routes[F].begin(), Routes[F].end(), [&](LinkId L) {
        return Load[L] >= Caps[L] * (1 - Eps) && Rate >= Fastest[L] * (1 - Eps);
      });
      EXPECT_TRUE(S.atBound(Flows[F]) || Bottleneck) << "round " << Round << " flow " << F;
    }
  }
}
