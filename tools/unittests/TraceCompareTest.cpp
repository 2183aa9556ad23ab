// `probe-program --verify-skeleton`'s comparison (tools/lib/TraceCompare.h): a non-blocking
// collective's rounds, recorded wherever the rank drove the operation (runtime/lib/
// Nonblocking.h), compare per site; every other record in the trace's order.
#include "TraceCompare.h"

#include "mpiete/BlockId.h"
#include "mpiete/TraceFormat.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace mpiete;
using namespace mpiete::trace;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t Unit = 0x0aa758c0;

/// A version 2 trace of rank 0 of 1 built record by record (docs/trace-format.md); blocks are
/// indices in unit Unit.
struct Builder {
  std::string Data;
  uint64_t Records = 0;

  Builder() {
    Data.assign(reinterpret_cast<const char *>(Magic), sizeof Magic);
    u(2), u(0), u(1);
    for (int I = 0; I < 4; ++I)
      u(0); // fingerprint, host, date, tool: empty strings
    tag(Tag::Unit), u(0), u(Unit);
  }
  void u(uint64_t V) {
    unsigned char B[MaxVarint];
    Data.append(reinterpret_cast<const char *>(B), putVarint(B, V));
  }
  void z(int64_t V) { u(zigzag(V)); }
  void tag(Tag T) {
    Data += static_cast<char>(T);
    ++Records;
  }
  void block(uint64_t Index) { u(0), u(Index); }
  Builder &send(uint64_t Block, uint64_t Bytes) {
    tag(Tag::Send), block(Block), z(0), z(5), u(0), u(Bytes);
    Data += '\0', Data += '\0'; // standard mode, user context
    return *this;
  }
  /// A wait at Block completing the send Distance starts back (1 = the latest).
  Builder &wait(uint64_t Block, uint64_t Distance) {
    tag(Tag::Wait), block(Block), Data += '\0', u(1), u(Distance << 1);
    return *this;
  }
  std::string done() const {
    std::string Out = Data;
    unsigned char B[MaxVarint];
    Out += static_cast<char>(Tag::End);
    Out.append(reinterpret_cast<const char *>(B), putVarint(B, Records));
    return Out;
  }
};

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
  Full.send(1, 8).send(7, 16).send(2, 8).wait(7, 2).wait(3, 1).wait(3, 3);
  Skel.send(1, 8).send(2, 8).wait(3, 1).send(7, 16).wait(7, 1).wait(3, 3);
  const uint64_t Site = makeBlockId(Unit, 7);
  EXPECT_EQ(compare(Full, Skel, {Site}), "");
  // Without knowing block 7 is a non-blocking collective, the order differs at record 1.
  EXPECT_EQ(compare(Full, Skel, {}).substr(0, 9), "record 1:");
}

TEST_F(TraceCompareTest, ADifferentRoundIsStillFound) {
  Builder Full, Skel;
  Full.send(1, 8).send(7, 16).wait(7, 1).wait(3, 2);
  Skel.send(1, 8).send(7, 32).wait(7, 1).wait(3, 2);
  EXPECT_EQ(compare(Full, Skel, {makeBlockId(Unit, 7)}),
            "record 1: '0aa758c0:7 send to=0 tag=5 bytes=16 req=2' / "
            "'0aa758c0:7 send to=0 tag=5 bytes=32 req=2'");
  // A round missing from one trace is found at the end.
  Builder Short;
  Short.send(1, 8).wait(3, 1);
  EXPECT_NE(compare(Full, Short, {makeBlockId(Unit, 7)}), "");
}
