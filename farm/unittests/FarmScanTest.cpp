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
