// FlatMap against std::map under random inserts and erases (backward-shift deletion).
#include "mpiete/estimator/FlatMap.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using mpiete::estimator::FlatMap;

TEST(FlatMapTest, AgreesWithStdMap) {
  FlatMap<uint32_t> F;
  std::map<uint64_t, uint32_t> Ref;
  std::mt19937_64 Rng(7);
  for (int I = 0; I < 200000; ++I) {
    uint64_t K = Rng() % 5000;
    if (Rng() % 3 == 0) {
      EXPECT_EQ(F.erase(K), Ref.erase(K) == 1);
    } else {
      F.getOrInsert(K, 0) = uint32_t(I);
      Ref[K] = uint32_t(I);
    }
  }
  EXPECT_EQ(F.size(), Ref.size());
  for (uint64_t K = 0; K < 5000; ++K) {
    auto It = Ref.find(K);
    uint32_t *V = F.find(K);
    ASSERT_EQ(V != nullptr, It != Ref.end()) << K;
    if (V)
      EXPECT_EQ(*V, It->second);
  }
}
