// Unit tests of EditSet: ordering at one offset, conflicts, duplicates, bounds.
#include "mpiete/transforms/EditSet.h"

#include <gtest/gtest.h>

namespace mpiete {
namespace {

std::string applyOk(const EditSet &S, const std::string &Text) {
  std::string Error;
  auto Out = S.apply(Text, Error);
  EXPECT_TRUE(Out.has_value()) << Error;
  return Out.value_or("<conflict: " + Error + ">");
}

TEST(EditSetTest, NoEditsLeavesTextAlone) {
  EditSet S;
  EXPECT_EQ(applyOk(S, "int x;\n"), "int x;\n");
}

TEST(EditSetTest, InsertionsAndReplacementApplyAtTheirOffsets) {
  EditSet S;
  S.replace(0, 8, "mpiete_send");
  S.insert(9, "B, ", EditOrder::Open);
  S.insert(15, " /*end*/", EditOrder::Close);
  EXPECT_EQ(applyOk(S, "MPI_Send(a, b);"), "mpiete_send(B, a, b); /*end*/");
}

TEST(EditSetTest, CloseGoesBeforeReplaceBeforeOpenAtOneOffset) {
  // Added in the opposite order to the one expected: the order field decides. The Open text
  // sits where the replaced range ends, the Close text where it starts.
  EditSet S;
  S.insert(4, "<open>", EditOrder::Open);
  S.insert(4, "<close4>", EditOrder::Close);
  S.replace(3, 1, "R");
  S.insert(3, "<close>", EditOrder::Close);
  EXPECT_EQ(applyOk(S, "abcdef"), "abc<close>R<close4><open>ef");
}

TEST(EditSetTest, SameOrderKeepsInsertionSequence) {
  EditSet S;
  S.insert(2, "1", EditOrder::Close);
  S.insert(2, "2", EditOrder::Close);
  S.insert(2, "a", EditOrder::Open);
  S.insert(2, "b", EditOrder::Open);
  EXPECT_EQ(applyOk(S, "xxyy"), "xx12abyy");
}

TEST(EditSetTest, IdenticalDuplicatesCollapse) {
  EditSet S;
  S.replace(0, 3, "baz");
  S.replace(0, 3, "baz");
  S.insert(4, "!", EditOrder::Open);
  S.insert(4, "!", EditOrder::Open);
  EXPECT_EQ(applyOk(S, "foo bar"), "baz !bar");
}

TEST(EditSetTest, DifferentInsertionsAtOneOffsetAreNotDuplicates) {
  EditSet S;
  S.insert(0, "x", EditOrder::Open);
  S.insert(0, "x", EditOrder::Close);
  EXPECT_EQ(applyOk(S, "-"), "xx-");
}

TEST(EditSetTest, OverlappingReplacementsConflict) {
  EditSet S;
  S.replace(0, 5, "AAAAA");
  S.replace(3, 4, "BBBB");
  std::string Error;
  EXPECT_FALSE(S.apply("0123456789", Error).has_value());
  EXPECT_NE(Error.find("overlap"), std::string::npos) << Error;
  EXPECT_NE(Error.find("3"), std::string::npos) << Error;
}

TEST(EditSetTest, InsertionsAtAReplacementsStartGoBeforeIt) {
  EditSet S;
  S.replace(4, 3, "XYZ");
  S.insert(4, "{ ", EditOrder::Open);
  S.insert(4, "} ", EditOrder::Close);
  EXPECT_EQ(applyOk(S, "abc defghi"), "abc } { XYZghi");
}

TEST(EditSetTest, InsertionInsideAReplacementConflicts) {
  EditSet S;
  S.replace(2, 4, "XY");
  S.insert(4, "in", EditOrder::Open);
  std::string Error;
  EXPECT_FALSE(S.apply("0123456789", Error).has_value());
  EXPECT_NE(Error.find("overlap"), std::string::npos) << Error;
}

TEST(EditSetTest, DifferentReplacementsOfOneRangeConflict) {
  EditSet S;
  S.replace(1, 2, "aa");
  S.replace(1, 2, "bb");
  std::string Error;
  EXPECT_FALSE(S.apply("0123", Error).has_value());
}

TEST(EditSetTest, InsertionAtTheEndIsAllowed) {
  EditSet S;
  S.insert(3, "\n", EditOrder::Close);
  EXPECT_EQ(applyOk(S, "abc"), "abc\n");
}

TEST(EditSetTest, EditPastTheEndIsAnError) {
  std::string Error;
  EditSet Insert;
  Insert.insert(4, "x", EditOrder::Open);
  EXPECT_FALSE(Insert.apply("abc", Error).has_value());
  EXPECT_NE(Error.find("past the end"), std::string::npos) << Error;

  EditSet Replace;
  Replace.replace(2, 2, "yy");
  Error.clear();
  EXPECT_FALSE(Replace.apply("abc", Error).has_value());
  EXPECT_NE(Error.find("past the end"), std::string::npos) << Error;
}

TEST(EditSetTest, ApplyingDoesNotChangeTheSet) {
  EditSet S;
  S.insert(1, "+", EditOrder::Open);
  std::string Error;
  EXPECT_EQ(S.apply("ab", Error).value(), "a+b");
  EXPECT_EQ(S.apply("cd", Error).value(), "c+d");
  EXPECT_EQ(S.edits().size(), 1u);
}

} // namespace
} // namespace mpiete
