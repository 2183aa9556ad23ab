// Unit tests of what makes a unit distinct: its defines, its parse flags and its id.
#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/frontend/CFrontend.h"
#include "mpiete/support/Hash.h"

#include <gtest/gtest.h>

namespace mpiete {
namespace {

using Args = std::vector<std::string>;

TEST(UnitIdTest, UnitDefinesKeepOrderAndJoinSeparateValues) {
  Args In = {"-O2", "-DA",      "-D",    "B=2", "-Iinc", "-UC",   "-U",
             "D",   "-include", "cfg.h", "-c",  "x.c",   "-DLAST"};
  EXPECT_EQ(unitDefines(In), (Args{"-DA", "-DB=2", "-UC", "-UD", "-include cfg.h", "-DLAST"}));
}

TEST(UnitIdTest, SeparateAndAttachedDefinesAreTheSameUnit) {
  EXPECT_EQ(unitDefines({"-D", "X"}), unitDefines({"-DX"}));
}

TEST(UnitIdTest, ParsingArgsKeepWhatAffectsTheParse) {
  Args In = {"-c",   "x.c",      "-o",       "x.o",      "-O2", "-g",     "-Wall",   "-Iinc",
             "-I",   "other",    "-DN=4",    "-std=c99", "-MD", "-MF",    "x.d",     "-isystem",
             "/sys", "-include", "config.h", "-fopenmp", "-lm", "-L/lib", "-pthread"};
  EXPECT_EQ(parsingArgs(In), (Args{"-O2", "-Iinc", "-I", "other", "-DN=4", "-std=c99", "-isystem",
                                   "/sys", "-include", "config.h", "-fopenmp", "-pthread"}));
}

TEST(UnitIdTest, IdIsStableForTheSameInputs) {
  EXPECT_EQ(computeUnitId("src/a.c", {"-DA"}), computeUnitId("src/a.c", {"-DA"}));
  EXPECT_EQ(computeUnitId("src/a.c", {}), computeUnitId(std::string("src/a.c"), {}));
}

TEST(UnitIdTest, IdDependsOnPathDefinesAndTheirOrder) {
  uint32_t Base = computeUnitId("src/a.c", {"-DA", "-DB"});
  EXPECT_NE(Base, computeUnitId("src/b.c", {"-DA", "-DB"}));
  EXPECT_NE(Base, computeUnitId("src/a.c", {"-DA"}));
  EXPECT_NE(Base, computeUnitId("src/a.c", {"-DB", "-DA"}));
  EXPECT_NE(Base, computeUnitId("src/a.c", {"-DA", "-DC"}));
  // Fields are separated: moving a character between path and define changes the id.
  EXPECT_NE(computeUnitId("a.c", {"-DAB"}), computeUnitId("a.c-", {"DAB"}));
  EXPECT_NE(computeUnitId("a.c", {"-DA", "B"}), computeUnitId("a.c", {"-DAB"}));
}

TEST(UnitIdTest, HashIsPlainFnv1a) {
  // Published FNV-1a 64-bit test vectors: ids must not depend on the platform or compiler.
  EXPECT_EQ(Fnv1a64().value(), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64().add("a").value(), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64().add("foobar").value(), 0x85944171f73967e8ULL);
}

// Block ids themselves (make, format, parse) are tested with the ground floor:
// abi/unittests/BlockIdTest.cpp.

} // namespace
} // namespace mpiete
