// The engine's radix-heap event queue against a binary heap under (time, sequence) order, with
// the pushes before the last minimum that front() can cause.
#include "EventQueue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using mpiete::estimator::EventQueue;

namespace {

struct Later {
  bool operator()(const EventQueue::Entry &A, const EventQueue::Entry &B) const {
    return A.Time != B.Time ? A.Time > B.Time : A.Seq > B.Seq;
  }
};

} // namespace

TEST(EventQueueTest, SameOrderAsABinaryHeap) {
  std::mt19937_64 Rng(11);
  EventQueue Q;
  std::vector<EventQueue::Entry> Ref;
  uint64_t Seq = 0;
  int64_t Now = 0; // the time of the entry handled last: pushes are at or after it
  size_t Popped = 0, Early = 0;
  auto Push = [&](int64_t Time) {
    EventQueue::Entry E{Time, Seq++, uint32_t(Rng() % 4), uint32_t(Rng())};
    Q.push(E);
    Ref.push_back(E);
    std::push_heap(Ref.begin(), Ref.end(), Later());
  };
  for (int I = 0; I < 64; ++I)
    Push(int64_t(Rng() % 4)); // many equal times: the sequence decides
  while (!Ref.empty()) {
    // front() may split a bucket and take a new minimum while "the rank" is still at Now.
    const int64_t Front = Q.front().Time;
    ASSERT_EQ(Front, Ref.front().Time);
    if (Front > Now && Rng() % 2 == 0) {
      Push(Now + int64_t(Rng() % uint64_t(Front - Now))); // before the new minimum
      ++Early;
    }
    std::pop_heap(Ref.begin(), Ref.end(), Later());
    EventQueue::Entry Want = Ref.back();
    Ref.pop_back();
    EventQueue::Entry Got = Q.pop();
    ASSERT_EQ(Got.Time, Want.Time);
    ASSERT_EQ(Got.Seq, Want.Seq);
    ASSERT_EQ(Got.Kind, Want.Kind);
    ASSERT_EQ(Got.Index, Want.Index);
    Now = Got.Time;
    ++Popped;
    if (Popped < 200000) {
      const int Pushes = int(Rng() % 3);
      for (int K = 0; K < Pushes; ++K) {
        // Mostly near Now, sometimes equal to it, sometimes far ahead.
        const uint64_t R = Rng() % 10;
        Push(R < 3 ? Now : Now + int64_t(R < 9 ? Rng() % 1000 : Rng() % (uint64_t(1) << 40)));
      }
    }
  }
  EXPECT_TRUE(Q.empty());
  EXPECT_GT(Popped, 100000U);
  EXPECT_GT(Early, 1000U); // the early heap was exercised
}
