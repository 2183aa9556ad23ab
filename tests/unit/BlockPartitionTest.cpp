// Unit tests of the block partition policy both frontends follow.
#include "mpiete/frontend/BlockPartition.h"

#include <gtest/gtest.h>

#include <vector>

namespace mpiete {
namespace {

StmtTraits work() { return {}; }
StmtTraits empty() { return {.NoCode = true}; }
StmtTraits decl() { return {.NoCode = true, .Declaration = true}; }

TEST(BlockPartitionTest, WhatAComputeBlockHolds) {
  PartitionPolicy Coarse(false), Seed(true);
  EXPECT_TRUE(Coarse.isComputation(work()));
  EXPECT_FALSE(Coarse.isComputation({.Communicates = true}));
  EXPECT_FALSE(Coarse.isComputation({.Jumps = true}));
  EXPECT_FALSE(Coarse.isComputation({.Entered = true}));
  EXPECT_FALSE(Coarse.isComputation({.Directive = true}));
  // A loop or branch of pure computation is computation, except in seed 004's partition.
  EXPECT_TRUE(Coarse.isComputation({.Structured = true}));
  EXPECT_FALSE(Seed.isComputation({.Structured = true}));
}

TEST(BlockPartitionTest, ARunEndsWhereItsFileChanges) {
  PartitionPolicy P(false);
  EXPECT_TRUE(P.continuesRun({.File = "a.c"}, {.File = "a.c"}));
  EXPECT_FALSE(P.continuesRun({.File = "a.c"}, {.File = "gen.y"}));
}

TEST(BlockPartitionTest, EdgesWithoutCodeStayOutside) {
  PartitionPolicy P(false);
  std::vector<StmtTraits> Run = {decl(), empty(), work(), empty(), work(), empty(), empty()};
  BlockRange R = P.blockOf(Run);
  EXPECT_EQ(R.First, 2u);
  EXPECT_EQ(R.Last, 5u);
  EXPECT_TRUE(P.blockOf(std::vector<StmtTraits>{empty(), decl(), empty()}).empty());
  EXPECT_TRUE(P.blockOf({}).empty());
}

TEST(BlockPartitionTest, ADeclarationNeverFollowsTheEndHook) {
  PartitionPolicy P(false);
  std::vector<StmtTraits> Run = {work(), decl(), empty()};
  BlockRange R = P.blockOf(Run);
  EXPECT_EQ(R.First, 0u);
  EXPECT_EQ(R.Last, 2u);
}

TEST(BlockPartitionTest, WholeLoops) {
  PartitionPolicy Seed(true);
  StmtTraits CHeader;                     // a C header runs code every trip
  StmtTraits DoHeader = {.NoCode = true}; // a Fortran DO's control does not
  std::vector<StmtTraits> Body = {work(), empty()};
  EXPECT_TRUE(Seed.timedWhole(CHeader, Body));
  EXPECT_TRUE(Seed.timedWhole(DoHeader, Body));
  std::vector<StmtTraits> OnlyContinue = {empty()};
  EXPECT_TRUE(Seed.timedWhole(CHeader, OnlyContinue));
  EXPECT_FALSE(Seed.timedWhole(DoHeader, OnlyContinue));
  EXPECT_FALSE(Seed.timedWhole(DoHeader, {}));
  // Any statement that is no computation keeps the loop from being one block.
  std::vector<StmtTraits> Nested = {work(), {.Structured = true}};
  EXPECT_FALSE(Seed.timedWhole(CHeader, Nested));
  EXPECT_TRUE(PartitionPolicy(false).timedWhole(CHeader, Nested));
  std::vector<StmtTraits> Target = {work(), {.Entered = true}};
  EXPECT_FALSE(Seed.timedWhole(CHeader, Target));
  EXPECT_FALSE(Seed.timedWhole({.Entered = true}, Body));
  EXPECT_FALSE(Seed.timedWhole({.Communicates = true}, Body));
}

TEST(BlockPartitionTest, PartsAddWhatTheyHold) {
  StmtTraits T = {.NoCode = true, .File = "a.c"};
  T += StmtTraits{.Jumps = true, .Structured = true, .File = "b.c"};
  EXPECT_TRUE(T.Jumps);
  EXPECT_TRUE(T.Structured);
  EXPECT_FALSE(T.Communicates);
  EXPECT_TRUE(T.NoCode);
  EXPECT_EQ(T.File, "a.c");
}

} // namespace
} // namespace mpiete
