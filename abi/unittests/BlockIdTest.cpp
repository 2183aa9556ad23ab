// Unit tests of block ids: the one format and parse rule, the C macro, the reserved ids.
#include "mpiete/BlockId.h"
#include "mpiete/instrument.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mpiete {
namespace {

TEST(BlockIdTest, MakeAndSplitAgreeWithTheCMacro) {
  static_assert(makeBlockId(0x3f2a1c9e, 12) == MPIETE_ID(0x3f2a1c9eu, 12u));
  static_assert(makeBlockId(0xffffffffu, 0xffffffffu) == MPIETE_ID(0xffffffffu, 0xffffffffu));
  constexpr uint64_t Id = makeBlockId(0x3f2a1c9e, 12);
  EXPECT_EQ(blockUnit(Id), 0x3f2a1c9eu);
  EXPECT_EQ(blockIndex(Id), 12u);
}

TEST(BlockIdTest, FormatAndParse) {
  uint64_t Id = makeBlockId(0x3f2a1c9e, 12);
  EXPECT_EQ(formatBlockId(Id), "3f2a1c9e:12");
  EXPECT_EQ(parseBlockId("3f2a1c9e:12"), Id);
  EXPECT_EQ(parseBlockId("0000000a:0"), makeBlockId(10, 0));
  EXPECT_FALSE(parseBlockId("3f2a1c9e:"));
  EXPECT_FALSE(parseBlockId("3f2a1c9:12"));
  EXPECT_FALSE(parseBlockId("3f2a1c9e:12x"));
  EXPECT_FALSE(parseBlockId("zz2a1c9e:1"));
  EXPECT_FALSE(parseBlockId("3f2a1c9e-12"));
}

TEST(BlockIdTest, FormatPadsTheUnitAndWritesTheIndexInDecimal) {
  EXPECT_EQ(formatBlockId(makeBlockId(0xabc123, 5)), "00abc123:5");
  EXPECT_EQ(formatBlockId(makeBlockId(0, 0)), "00000000:0");
  EXPECT_EQ(formatBlockId(makeBlockId(0xffffffffu, 0xffffffffu)), "ffffffff:4294967295");
  EXPECT_EQ(std::strlen("ffffffff:4294967295") + 1, BlockIdBufferSize);
}

TEST(BlockIdTest, FormatIntoABufferCutsShortLikeSnprintf) {
  char Buf[BlockIdBufferSize];
  EXPECT_EQ(formatBlockId(makeBlockId(0x0aa758c0, 11), Buf, sizeof Buf), 11u);
  EXPECT_STREQ(Buf, "0aa758c0:11");
  char Small[5];
  EXPECT_EQ(formatBlockId(makeBlockId(0x0aa758c0, 11), Small, sizeof Small), 11u);
  EXPECT_STREQ(Small, "0aa7");
  EXPECT_EQ(formatBlockId(makeBlockId(1, 1), nullptr, 0), 10u);
}

TEST(BlockIdTest, ParseTakesExactlyEightHexDigitsOfEitherCase) {
  EXPECT_EQ(parseBlockId("0AA758C0:11"), makeBlockId(0x0aa758c0, 11));
  EXPECT_FALSE(parseBlockId("a:1"));
  EXPECT_FALSE(parseBlockId("cafe:3"));      // FILE:LINE, not an id
  EXPECT_FALSE(parseBlockId("main.c:66"));   // FILE:LINE, not an id
  EXPECT_FALSE(parseBlockId("00000000a:1")); // nine digits
  EXPECT_FALSE(parseBlockId(" 0aa758c0:1"));
  EXPECT_FALSE(parseBlockId("0aa758c0:+1"));
  EXPECT_FALSE(parseBlockId("0aa758c0:-1"));
  EXPECT_FALSE(parseBlockId(""));
}

TEST(BlockIdTest, ParseTakesAnIndexThatFitsThirtyTwoBits) {
  EXPECT_EQ(parseBlockId("ffffffff:4294967295"), makeBlockId(0xffffffffu, 0xffffffffu));
  EXPECT_EQ(parseBlockId("00000001:007"), makeBlockId(1, 7));
  EXPECT_FALSE(parseBlockId("ffffffff:4294967296"));
  EXPECT_FALSE(parseBlockId("ffffffff:99999999999999999999999"));
}

TEST(BlockIdTest, FormatThenParseIsTheIdentity) {
  for (uint64_t Id : {makeBlockId(0, 0), makeBlockId(0x12345678, 90), CalibrationBlock,
                      makeBlockId(0xdeadbeef, 0xffffffffu)})
    EXPECT_EQ(parseBlockId(formatBlockId(Id)), Id);
}

TEST(BlockIdTest, ReservedIds) {
  EXPECT_EQ(formatBlockId(uninstrumentedSite(3)), "ffffffff:12");
  EXPECT_EQ(formatBlockId(CalibrationBlock), "ffffffff:4294967294");
  EXPECT_TRUE(isReservedBlock(uninstrumentedSite(0)));
  EXPECT_TRUE(isReservedBlock(CalibrationBlock));
  EXPECT_FALSE(isReservedBlock(makeBlockId(0xfffffffe, 1)));
}

} // namespace
} // namespace mpiete
