// `probe-program --verify-skeleton`'s comparison (tools/lib/TraceCompare.h): a non-blocking
// collective's rounds, recorded wherever the rank drove the operation (runtime/lib/
// Nonblocking.h), compare per site; every other record in the trace's order.
#include "TraceCompare.h"
#include "TraceBuilder.h"

#include "mpiete/BlockId.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mpiete;
using namespace mpiete::trace;
namespace fs = std::filesystem;

namespace {

using trace::test::Builder;
constexpr uint32_t Unit = trace::test::BuilderUnit;

class TraceCompareTest : public ::testing::Test {
protected:
  fs::path Dir;
  void SetUp() override {
    Dir = fs::temp_directory_path() / ("mpiete-tracecompare-" + std::to_string(::getpid()));
    fs::create_directories(Dir / "full");
    fs::create_directories(Dir / "skeleton");
  }
  void TearDown() override { fs::remove_all(Dir); }

  /// The first difference of the two rank-0 traces (its description), or "" if none.
  std::string compare(const Builder &Full, const Builder &Skel,
                      const std::unordered_set<uint64_t> &Nonblocking) {
    std::ofstream(Dir / "full" / "rank0.trace", std::ios::binary) << Full.done();
    std::ofstream(Dir / "skeleton" / "rank0.trace", std::ios::binary) << Skel.done();
    std::ostringstream Errors;
    DiagnosticSink Diags(Errors);
    bool Ok = false;
    uint64_t Records = 0, Timing = 0;
    auto D = compareTraceDirs(Dir / "full", Dir / "skeleton", 1, Nonblocking, Diags, Ok, Records,
                              Timing);
    EXPECT_TRUE(Ok) << Errors.str();
    if (!D)
      return "";
    return "record " + std::to_string(D->Record) + ": '" + D->Full + "' / '" + D->Skeleton + "'";
  }
};

} // namespace

// The same records, the operation's round (block 7) driven inside the user's wait in one run
// and at its own wait in the other: equal per site, with the request numbers renamed.
TEST_F(TraceCompareTest, NonblockingRoundsComparePerSite) {
  Builder Full, Skel;
  // A user send (block 1), the operation's send (7), another user send (2); waits (3 and 7).
  Full.send(0, 5, 8)
      .at(7)
      .send(0, 5, 16)
      .at(2)
      .send(0, 5, 8)
      .at(7)
      .waitSend(2)
      .waitSend(1)
      .waitSend(3);
  Skel.send(0, 5, 8)
      .at(2)
      .send(0, 5, 8)
      .waitSend(1)
      .at(7)
      .send(0, 5, 16)
      .at(7)
      .waitSend(1)
      .waitSend(3);
  const uint64_t Site = makeBlockId(Unit, 7);
  EXPECT_EQ(compare(Full, Skel, {Site}), "");
  // Without knowing block 7 is a non-blocking collective, the order differs at record 1.
  EXPECT_EQ(compare(Full, Skel, {}).substr(0, 9), "record 1:");
}

TEST_F(TraceCompareTest, ADifferentRoundIsStillFound) {
  Builder Full, Skel;
  Full.send(0, 5, 8).at(7).send(0, 5, 16).at(7).waitSend(1).waitSend(2);
  Skel.send(0, 5, 8).at(7).send(0, 5, 32).at(7).waitSend(1).waitSend(2);
  EXPECT_EQ(compare(Full, Skel, {makeBlockId(Unit, 7)}),
            "record 1: '0aa758c0:7 send to=0 tag=5 bytes=16 req=2' / "
            "'0aa758c0:7 send to=0 tag=5 bytes=32 req=2'");
  // A round missing from one trace is found at the end.
  Builder Short;
  Short.send(0, 5, 8).waitSend(1);
  EXPECT_NE(compare(Full, Short, {makeBlockId(Unit, 7)}), "");
}
