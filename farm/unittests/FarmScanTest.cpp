// Recognising a farm in hand-built event streams: a master with wildcard receives, and a ring
// whose wildcard receives are no farm.
#include "mpiete/farm/FarmScan.h"

#include <gtest/gtest.h>

using namespace mpiete;
using namespace mpiete::farm;
using namespace mpiete::estimator;

namespace {

constexpr BlockId WorkSite = 0x10, ResultSite = 0x11, Other = 0x12;

void farmRound(FarmScan &S, int Worker, uint64_t Req) {
  S.see(0, Event::send(WorkSite, Worker, 1, 24, 0));
  S.see(0, Event::recv(Other, AnySource, AnyTag, 800, Req));
  S.see(0, Event::completion(ResultSite, {{Req, Worker, 2}}));
  S.see(Worker, Event::recv(Other, 0, 1, 24, 1));
  S.see(Worker, Event::send(Other, 0, 2, 100 + uint64_t(Worker), 2));
}

} // namespace

TEST(FarmScanTest, FindsTheMasterItsWorkersAndTheTracedAssignment) {
  FarmScan S(3);
  for (int W : {2, 1, 1, 2, 1})
    farmRound(S, W, 7);
  S.see(0, Event::send(Other, 1, 9, 0, 0)); // stop messages: empty, another tag
  S.see(0, Event::send(Other, 2, 9, 0, 0));
  S.span(0, SpanKind::Comm, WorkSite, 500, 510);
  S.span(0, SpanKind::Comm, WorkSite, 900, 905);
  S.span(0, SpanKind::Wait, ResultSite, 600, 2000);
  S.span(0, SpanKind::Wait, Other, 3000, 4000);
  std::optional<RecognizedFarm> F = S.recognize();
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Master, 0);
  EXPECT_EQ(F->Workers, (std::vector<int>{2, 1}));
  EXPECT_EQ(F->TracedWorkerOfTask, (std::vector<int>{2, 1, 1, 2, 1}));
  EXPECT_EQ(F->WorkTag, 1);
  EXPECT_EQ(F->WorkBytes, 24u);
  EXPECT_EQ(F->ResultBytes, 101u); // (2 x 102 + 3 x 101) / 5, rounded down
  EXPECT_EQ(F->WildcardReceives, 5u);
  EXPECT_EQ(F->ReplayStart, 500);
  EXPECT_EQ(F->ReplayEnd, 2000);
}

TEST(FarmScanTest, ARingWithWildcardReceivesIsNoFarm) {
  FarmScan S(3);
  for (int R = 0; R < 3; ++R)
    for (uint64_t I = 0; I < 4; ++I) {
      S.see(R, Event::send(Other, (R + 1) % 3, 0, 8, 1));
      S.see(R, Event::recv(Other, AnySource, 0, 8, 2));
      S.see(R, Event::completion(Other, {{2, (R + 2) % 3, 0}}));
    }
  // Every rank receives from one rank and sends to another: no rank sends work to a rank that
  // sends back to it.
  EXPECT_FALSE(S.recognize());
}

namespace {

constexpr BlockId ReadySite = 0x20, WaitSite = 0x21, CollSite = 0x22;

/// An unmarked farm of workers 1 and 2: each first asks for work (an empty message), then
/// gets tasks T0 -> 1, T1 -> 2, T2 -> 1, T3 -> 2 and sends each result back.
void unmarkedFarm(FarmScan &S) {
  for (int W : {1, 2})
    S.see(W, Event::send(ReadySite, 0, 5, 0, 1));
  uint64_t Req = 10;
  for (int W : {1, 2, 1, 2}) {
    S.see(0, Event::recv(Other, AnySource, AnyTag, 8, Req));
    S.see(0, Event::completion(WaitSite, {{Req, W, 5}}));
    ++Req;
    S.see(0, Event::send(WorkSite, W, 1, 24, 0));
    S.see(W, Event::recv(Other, 0, 1, 24, 2));
    S.see(W, Event::send(ResultSite, 0, 2, 8, 3));
  }
  for (int I = 0; I < 2; ++I) { // the last two results
    S.see(0, Event::recv(Other, AnySource, AnyTag, 8, Req));
    S.see(0, Event::completion(WaitSite, {{Req, 1 + I, 2}}));
    ++Req;
  }
  // The replay's messages, in the order they were matched: ready, work and result messages,
  // and a lowered collective's message from the master at the work tag (not a task). The
  // master's receives were posted at Other and completed at WaitSite: an arrow names the
  // posting site.
  S.message({1, 0, 0, 10, 0, 5, ReadySite, Other});
  S.message({2, 0, 0, 12, 0, 5, ReadySite, Other});
  S.message({0, 1, 5, 8, 24, 1, CollSite, CollSite});
  S.message({0, 1, 20, 30, 24, 1, WorkSite, Other});    // T0 arrives at 30
  S.message({0, 2, 25, 35, 24, 1, WorkSite, Other});    // T1 at 35
  S.message({1, 0, 130, 140, 8, 2, ResultSite, Other}); // T0's result starts at 130
  S.message({0, 1, 145, 150, 24, 1, WorkSite, Other});  // T2 at 150
  S.message({2, 0, 235, 245, 8, 2, ResultSite, Other}); // T1's at 235
  S.message({0, 2, 250, 260, 24, 1, WorkSite, Other});  // T3 at 260
  S.message({2, 0, 310, 320, 8, 2, ResultSite, Other}); // T3's at 310
  S.message({1, 0, 450, 460, 8, 2, ResultSite, Other}); // T2's at 450
}

} // namespace

TEST(FarmScanTest, AnUnmarkedFarmTimesEachTaskFromItsWorkToItsResult) {
  FarmScan S(3, nullptr, /*Unmarked=*/true);
  unmarkedFarm(S);
  std::optional<RecognizedFarm> F = S.recognize();
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Master, 0);
  EXPECT_EQ(F->TracedWorkerOfTask, (std::vector<int>{1, 2, 1, 2}));
  EXPECT_EQ(F->ReplayStart, 20); // T0's start on the master
  EXPECT_EQ(F->ReplayEnd, 460);  // the last result's receive at the wildcard site
  EXPECT_EQ(S.replayedTaskTimes(*F), (std::vector<TimeNs>{100, 200, 300, 50}));
}

TEST(FarmScanTest, UnmarkedWorkersMustTalkToTheMasterOnly) {
  // The same farm, but the workers also exchange with each other (a halo whose receives are
  // wildcards on the "master"): with task costs it would be taken for a farm, without not.
  for (bool Unmarked : {false, true}) {
    FarmScan S(3, nullptr, Unmarked);
    unmarkedFarm(S);
    S.see(1, Event::send(Other, 2, 7, 8, 4));
    S.see(2, Event::recv(Other, 1, 7, 8, 4));
    EXPECT_EQ(bool(S.recognize()), !Unmarked);
  }
  // Fewer tasks than workers, or one worker: the assignment cannot change.
  FarmScan One(2, nullptr, true);
  for (uint64_t I = 0; I < 4; ++I) {
    One.see(0, Event::send(WorkSite, 1, 1, 24, 0));
    One.see(0, Event::recv(Other, AnySource, AnyTag, 8, I));
    One.see(0, Event::completion(WaitSite, {{I, 1, 2}}));
    One.see(1, Event::send(ResultSite, 0, 2, 8, 3));
  }
  EXPECT_FALSE(One.recognize());
}

TEST(FarmScanTest, AnUnmarkedScanGivesUpPastItsCap) {
  FarmScan S(3, nullptr, /*Unmarked=*/true);
  unmarkedFarm(S);
  ASSERT_TRUE(S.recognize());
  for (size_t I = 0; I < FarmScan::UnmarkedCap; ++I)
    S.see(1, Event::send(Other, 0, 2, 8, 3));
  EXPECT_TRUE(S.gaveUp());
  EXPECT_FALSE(S.recognize());
  EXPECT_TRUE(S.replayedTaskTimes(RecognizedFarm{}).empty());
}
