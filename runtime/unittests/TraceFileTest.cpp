// The runtime's TraceWriter against the TraceReader: every record kind round-trips, records
// made before MPI_Init (spilled past the buffer) come out in order, and every truncation or
// corruption of a valid file is reported, never silently accepted.
#include "TraceWriter.h"
#include "mpiete/BlockId.h"
#include "mpiete/trace/TraceReader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace mpiete;
using namespace mpiete::trace;

namespace {

constexpr uint32_t UnitA = 0x00abc123, UnitB = 0xfedcba98;
constexpr mpiete_site_t idA(uint32_t I) { return MPIETE_ID(UnitA, I); }
constexpr mpiete_site_t idB(uint32_t I) { return MPIETE_ID(UnitB, I); }

/// A fresh directory per test.
std::string tempDir(const char *Name) {
  auto Dir = std::filesystem::temp_directory_path() /
             ("mpiete-trace-test-" + std::to_string(::getpid()) + "-" + Name);
  std::filesystem::remove_all(Dir);
  return Dir.string();
}

std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Writes one record of every kind (and PreBlocks compute blocks before start()), as rank 1 of
/// 3; returns the file's path.
std::string writeSample(const std::string &Dir, int PreBlocks) {
  auto W = std::make_unique<TraceWriter>();
  W->enable(Dir.c_str());
  for (int I = 0; I < PreBlocks; ++I)
    W->block(idA(100 + I % 7));
  ::setenv("MPIETE_FINGERPRINT", "00ff12ab", 1);
  W->start(1, 3);
  W->init(idA(1));
  W->block(idB(5));
  W->loop(idA(10), 123456789012ULL);
  W->send(idA(12), 2, 7, 0, 4096, SendMode::Synchronous, Context::User);
  W->send(idA(14), ProcNull, 0, 0, 0, SendMode::Standard, Context::User);
  W->recv(idA(16), AnySource, AnyTag, 0x123456789abcdefULL, 800, Context::Collective);
  W->wait(idA(17), WaitOp::Waitall, 3);
  W->sendCompleted(1);
  W->recvCompleted(3, 0, 42, 640);
  W->sendCompleted(2);
  W->wait(idA(18), WaitOp::Test, 0);
  W->probe(idA(19), true, AnySource, 5, 0, true, 2, 5, 16);
  W->probe(idA(20), false, 0, AnyTag, 1, false, 0, 0, 0);
  const int Members[] = {2, 0};
  W->commCreate(idA(21), 0, true, 0xdeadbeef12345678ULL, 2, Members);
  W->commCreate(idA(22), 0, false, 0, 0, nullptr);
  W->commFree(idA(23), 0xdeadbeef12345678ULL);
  W->requestFree(idA(24), 2);
  W->send(idA(25), 1, -3, 0, 1, SendMode::Buffered, Context::User); // negative: zigzag
  W->finalize(idA(2));
  W->block(idA(3)); // after MPI_Finalize
  W->finish();
  return Dir + "/rank1.trace";
}

struct Reading {
  std::ostringstream Errors;
  DiagnosticSink Diags{Errors};
  TraceReader Reader{Diags};
};

} // namespace

TEST(TraceFile, EveryRecordKindRoundTrips) {
  const std::string Dir = tempDir("kinds");
  const std::string Path = writeSample(Dir, 3);
  Reading Rd;
  ASSERT_TRUE(Rd.Reader.open(Path)) << Rd.Errors.str();
  const Header &H = Rd.Reader.header();
  EXPECT_EQ(H.FormatVersion, FormatVersion);
  EXPECT_EQ(H.Rank, 1);
  EXPECT_EQ(H.WorldSize, 3);
  EXPECT_EQ(H.Fingerprint, "00ff12ab");
  EXPECT_FALSE(H.Host.empty());
  EXPECT_EQ(H.Date.size(), 20u) << H.Date; // 2025-01-02T03:04:05Z
  EXPECT_EQ(H.Date.back(), 'Z');
  EXPECT_FALSE(H.ToolVersion.empty());

  std::vector<Record> Rs;
  Record R;
  while (Rd.Reader.next(R))
    Rs.push_back(R);
  ASSERT_TRUE(Rd.Reader.ok()) << Rd.Errors.str();
  ASSERT_TRUE(Rd.Reader.atEnd());
  ASSERT_EQ(Rs.size(), 3u + 17u);

  size_t I = 0;
  for (; I < 3; ++I) {
    EXPECT_EQ(Rs[I].Kind, RecordKind::Block);
    EXPECT_EQ(Rs[I].Block, idA(100 + I));
  }
  EXPECT_EQ(Rs[I].Kind, RecordKind::Init);
  EXPECT_EQ(Rs[I++].Block, idA(1));
  EXPECT_EQ(Rs[I].Kind, RecordKind::Block);
  EXPECT_EQ(Rs[I++].Block, idB(5));
  EXPECT_EQ(Rs[I].Kind, RecordKind::Loop);
  EXPECT_EQ(Rs[I].Block, idA(10));
  EXPECT_EQ(Rs[I++].Trips, 123456789012ULL);

  const Record &S = Rs[I++];
  EXPECT_EQ(S.Kind, RecordKind::Send);
  EXPECT_EQ(S.Block, idA(12));
  EXPECT_EQ(S.Peer, 2);
  EXPECT_EQ(S.Tag, 7);
  EXPECT_EQ(S.Comm, 0u);
  EXPECT_EQ(S.Bytes, 4096u);
  EXPECT_EQ(S.Request, 1u);
  EXPECT_EQ(S.Mode, SendMode::Synchronous);
  EXPECT_EQ(S.Ctx, Context::User);
  EXPECT_EQ(Rs[I].Kind, RecordKind::Send);
  EXPECT_EQ(Rs[I++].Peer, ProcNull);

  const Record &Rv = Rs[I++];
  EXPECT_EQ(Rv.Kind, RecordKind::Recv);
  EXPECT_EQ(Rv.Block, idA(16));
  EXPECT_EQ(Rv.Peer, AnySource);
  EXPECT_EQ(Rv.Tag, AnyTag);
  EXPECT_EQ(Rv.Comm, 0x123456789abcdefULL);
  EXPECT_EQ(Rv.Bytes, 800u);
  EXPECT_EQ(Rv.Request, 3u);
  EXPECT_EQ(Rv.Ctx, Context::Collective);

  const Record &Wa = Rs[I++];
  EXPECT_EQ(Wa.Kind, RecordKind::Wait);
  EXPECT_EQ(Wa.Op, WaitOp::Waitall);
  ASSERT_EQ(Wa.Completions.size(), 3u);
  EXPECT_EQ(Wa.Completions[0].Request, 1u);
  EXPECT_FALSE(Wa.Completions[0].Recv);
  EXPECT_EQ(Wa.Completions[1].Request, 3u);
  EXPECT_TRUE(Wa.Completions[1].Recv);
  EXPECT_EQ(Wa.Completions[1].Source, 0);
  EXPECT_EQ(Wa.Completions[1].Tag, 42);
  EXPECT_EQ(Wa.Completions[1].Bytes, 640u);
  EXPECT_EQ(Wa.Completions[2].Request, 2u);

  const Record &T = Rs[I++];
  EXPECT_EQ(T.Kind, RecordKind::Wait);
  EXPECT_EQ(T.Op, WaitOp::Test);
  EXPECT_TRUE(T.Completions.empty());

  const Record &P1 = Rs[I++];
  EXPECT_EQ(P1.Kind, RecordKind::Probe);
  EXPECT_TRUE(P1.Blocking);
  EXPECT_TRUE(P1.Found);
  EXPECT_EQ(P1.Peer, AnySource);
  EXPECT_EQ(P1.Tag, 5);
  EXPECT_EQ(P1.MatchedSource, 2);
  EXPECT_EQ(P1.MatchedTag, 5);
  EXPECT_EQ(P1.MatchedBytes, 16u);
  const Record &P2 = Rs[I++];
  EXPECT_FALSE(P2.Blocking);
  EXPECT_FALSE(P2.Found);
  EXPECT_EQ(P2.Tag, AnyTag);
  EXPECT_EQ(P2.Comm, 1u);

  const Record &C1 = Rs[I++];
  EXPECT_EQ(C1.Kind, RecordKind::CommCreate);
  EXPECT_EQ(C1.Parent, 0u);
  EXPECT_TRUE(C1.HasNew);
  EXPECT_EQ(C1.NewComm, 0xdeadbeef12345678ULL);
  EXPECT_EQ(C1.Members, (std::vector<int32_t>{2, 0}));
  const Record &C2 = Rs[I++];
  EXPECT_EQ(C2.Kind, RecordKind::CommCreate);
  EXPECT_FALSE(C2.HasNew);
  EXPECT_TRUE(C2.Members.empty());
  EXPECT_EQ(Rs[I].Kind, RecordKind::CommFree);
  EXPECT_EQ(Rs[I++].Comm, 0xdeadbeef12345678ULL);
  EXPECT_EQ(Rs[I].Kind, RecordKind::RequestFree);
  EXPECT_EQ(Rs[I++].Request, 2u);
  EXPECT_EQ(Rs[I].Kind, RecordKind::Send);
  EXPECT_EQ(Rs[I].Request, 4u);
  EXPECT_EQ(Rs[I].Tag, -3);
  EXPECT_EQ(Rs[I++].Mode, SendMode::Buffered);
  EXPECT_EQ(Rs[I].Kind, RecordKind::Finalize);
  EXPECT_EQ(Rs[I++].Block, idA(2));
  EXPECT_EQ(Rs[I].Kind, RecordKind::Block);
  EXPECT_EQ(Rs[I++].Block, idA(3));
  EXPECT_EQ(I, Rs.size());
  EXPECT_EQ(Rd.Errors.str(), "");
  std::filesystem::remove_all(Dir);
}

// Far more records than the 1 MiB buffer holds, most of them before start(): they spill to a
// temporary file, then follow the header in order; the temporary file is removed.
TEST(TraceFile, LongRunsStreamInOrder) {
  const std::string Dir = tempDir("long");
  constexpr int Pre = 700000; // about 2.8 MB of block records
  const std::string Path = writeSample(Dir, Pre);
  size_t Files = 0;
  for (auto &E : std::filesystem::directory_iterator(Dir))
    Files += E.path().extension() != ".loops"; // the loop plan's file (LoopPlan.h) beside it
  EXPECT_EQ(Files, 1u) << "the spill file was not removed";
  Reading Rd;
  ASSERT_TRUE(Rd.Reader.open(Path)) << Rd.Errors.str();
  Record R;
  uint64_t N = 0;
  while (Rd.Reader.next(R)) {
    if (N < static_cast<uint64_t>(Pre)) {
      ASSERT_EQ(R.Kind, RecordKind::Block) << N;
      ASSERT_EQ(R.Block, idA(100 + N % 7)) << N;
    }
    ++N;
  }
  EXPECT_TRUE(Rd.Reader.ok()) << Rd.Errors.str();
  EXPECT_EQ(N, static_cast<uint64_t>(Pre) + 17);
  std::filesystem::remove_all(Dir);
}

// Every proper prefix of a valid trace is an error, located, and never reaches the end.
TEST(TraceFile, EveryTruncationIsReported) {
  const std::string Dir = tempDir("cut");
  const std::string Full = slurp(writeSample(Dir, 2));
  ASSERT_GT(Full.size(), 100u);
  for (size_t Cut = 0; Cut < Full.size(); ++Cut) {
    Reading Rd;
    Record R;
    if (Rd.Reader.openBuffer("rank1.trace", Full.substr(0, Cut)))
      while (Rd.Reader.next(R)) {
      }
    EXPECT_FALSE(Rd.Reader.ok()) << "cut at " << Cut << " accepted";
    EXPECT_FALSE(Rd.Reader.atEnd()) << "cut at " << Cut;
    EXPECT_EQ(Rd.Diags.errorCount(), 1u) << "cut at " << Cut;
    const std::string Msg = Rd.Errors.str();
    EXPECT_EQ(Msg.rfind("rank1.trace: error: ", 0), 0u) << Msg;
    EXPECT_NE(Msg.find("[mpiete-trace]"), std::string::npos) << Msg;
  }
  // A cut at a record boundary names the record and its offset.
  Reading Rd;
  ASSERT_TRUE(Rd.Reader.openBuffer("rank1.trace", Full.substr(0, Full.size() - 2)));
  Record R;
  uint64_t Last = 0, LastOffset = 0, N = 0;
  while (Rd.Reader.next(R)) {
    Last = R.Number;
    LastOffset = R.Offset;
    ++N;
  }
  (void)Last;
  (void)LastOffset;
  EXPECT_NE(Rd.Errors.str().find("truncated trace: no end marker [mpiete-trace]"),
            std::string::npos)
      << Rd.Errors.str();
  EXPECT_NE(Rd.Errors.str().find(": error: record "), std::string::npos) << Rd.Errors.str();
  std::filesystem::remove_all(Dir);
}

namespace {
/// Reads Data to the end; returns the diagnostics.
std::string readAll(const std::string &Data, size_t *Records = nullptr) {
  Reading Rd;
  Record R;
  size_t N = 0;
  if (Rd.Reader.openBuffer("t.trace", Data))
    while (Rd.Reader.next(R))
      ++N;
  if (Records)
    *Records = N;
  EXPECT_FALSE(Rd.Reader.ok());
  return Rd.Errors.str();
}

/// Offset of the first record's tag byte (after the header) in a sample trace.
size_t firstRecordOffset(const std::string &Full) {
  std::ostringstream E;
  DiagnosticSink D(E);
  TraceReader Rd(D);
  EXPECT_TRUE(Rd.openBuffer("t.trace", Full));
  Record R;
  EXPECT_TRUE(Rd.next(R));
  return R.Offset;
}
} // namespace

TEST(TraceFile, CorruptTagIsReported) {
  const std::string Dir = tempDir("tag");
  std::string Data = slurp(writeSample(Dir, 0));
  // The first record the caller sees is Init at its offset, after the unit record 0.
  const size_t Off = firstRecordOffset(Data);
  Data[Off] = 0x5a;
  size_t N = 99;
  const std::string Msg = readAll(Data, &N);
  EXPECT_EQ(N, 0u);
  EXPECT_EQ(Msg, "t.trace: error: record 1 at offset " + std::to_string(Off) +
                     ": corrupt trace: unknown record tag 0x5a [mpiete-trace]\n");
  std::filesystem::remove_all(Dir);
}

TEST(TraceFile, OtherCorruptionsAreReported) {
  const std::string Dir = tempDir("other");
  const std::string Full = slurp(writeSample(Dir, 0));
  // Bad magic.
  std::string Bad = Full;
  Bad[0] = 'X';
  EXPECT_NE(readAll(Bad).find("not an mpiete trace (bad magic)"), std::string::npos);
  // Trailing bytes after the end marker.
  EXPECT_NE(readAll(Full + "x").find("data after the end marker"), std::string::npos);
  // End marker with a wrong count (the last byte is the count, < 128 here).
  Bad = Full;
  Bad.back() = static_cast<char>(Bad.back() + 1);
  EXPECT_NE(readAll(Bad).find("end marker counts"), std::string::npos);
  // A block naming a unit index that was never defined: drop the Unit record (tag 0x01,
  // index 0, 4-byte varint unit id) in front of the first block.
  const size_t Off = firstRecordOffset(Full);
  Bad = Full;
  size_t UnitAt = Off - 1;
  while (static_cast<unsigned char>(Bad[UnitAt]) != 0x01)
    --UnitAt;
  Bad.erase(UnitAt, Off - UnitAt);
  EXPECT_NE(readAll(Bad).find("unit index 0 used before its definition"), std::string::npos);
  // Unsupported format version.
  Bad = Full;
  Bad[8] = 9;
  EXPECT_NE(readAll(Bad).find("unsupported trace format version 9"), std::string::npos);
  // A file that does not exist.
  Reading Rd;
  EXPECT_FALSE(Rd.Reader.open(Dir + "/missing.trace"));
  EXPECT_NE(Rd.Errors.str().find("cannot open the trace"), std::string::npos);
  std::filesystem::remove_all(Dir);
}

//===-- Version 2: call boundaries, relative requests, repeat compression --------------------===//

namespace {

/// A record as text: every field the kind carries, so two sequences compare exactly.
std::string describe(const Record &R) {
  std::ostringstream S;
  S << recordKindName(R.Kind) << ' ' << formatBlockId(R.Block) << (R.CallStart ? " *" : "");
  switch (R.Kind) {
  case RecordKind::Send:
  case RecordKind::Recv:
    S << " peer=" << R.Peer << " tag=" << R.Tag << " comm=" << R.Comm << " bytes=" << R.Bytes
      << " req=" << R.Request << (R.SameBuffer ? " same-buffer" : "");
    if (R.Layout != 0)
      S << " layout=" << int(R.Layout);
    break;
  case RecordKind::Wait:
    S << ' ' << waitOpName(R.Op);
    for (const Completion &C : R.Completions)
      S << ' ' << C.Request << (C.Recv ? "r" : "s") << C.Source << '/' << C.Tag << '/' << C.Bytes;
    break;
  case RecordKind::Collective:
    S << ' ' << collKindName(R.Coll) << " comm=" << R.Comm << " root=" << R.Root
      << " bytes=" << R.Bytes;
    break;
  case RecordKind::RequestFree:
    S << " req=" << R.Request;
    break;
  case RecordKind::Loop:
    S << " trips=" << R.Trips;
    break;
  default:
    break;
  }
  return S.str();
}

/// All records of Data (expanded unless Raw), as text; Errors gets the diagnostics.
std::vector<std::string> records(const std::string &Data, std::string *Errors = nullptr,
                                 bool Raw = false) {
  Reading Rd;
  Rd.Reader.setExpandRepeats(!Raw);
  std::vector<std::string> Out;
  Record R;
  if (Rd.Reader.openBuffer("t.trace", Data))
    while (Rd.Reader.next(R))
      Out.push_back(R.Kind == RecordKind::Repeat ? "repeat " + std::to_string(R.RepeatCount) + "x" +
                                                       std::to_string(R.RepeatLength)
                                                 : describe(R));
  EXPECT_TRUE(Rd.Reader.ok() || Errors != nullptr) << Rd.Errors.str();
  EXPECT_TRUE(Rd.Reader.atEnd() || Errors != nullptr);
  if (Errors)
    *Errors = Rd.Errors.str();
  return Out;
}

constexpr mpiete_site_t Outer = idA(500), Inner = idA(501), Broken = idA(502), Big = idA(503);

/// One MPI call of a time step: a ring exchange whose send completes in the next call (a
/// request across iterations), as the runtime writes it.
void exchange(TraceWriter &W, uint64_t &Pending, int Step) {
  W.callBegin();
  const uint64_t S = W.send(idA(600), 1, 7, 0, 8, SendMode::Standard, Context::User);
  const uint64_t R = W.recv(idA(601), 1, 7, 0, 8, Context::User);
  W.wait(idA(602), WaitOp::Waitall, Pending != 0 ? 2 : 1);
  W.recvCompleted(R, 1, 7, Step % 10 == 9 ? 16 : 8); // every tenth step differs
  if (Pending != 0)
    W.sendCompleted(Pending);
  Pending = S;
  W.callEnd(idA(600));
}

/// The sample program: nested loops, a loop left by a break (no exit hook), a collective, a
/// call that wrote nothing, a frame too large to compress. With Hooks false, the same records
/// without the loop hooks (nothing compressed).
std::string writeProgram(const std::string &Dir, bool Hooks, int Steps = 40) {
  auto W = std::make_unique<TraceWriter>();
  W->enable(Dir.c_str());
  if (!Hooks)
    W->setRepeats(false, false);
  W->start(0, 2);
  W->callBegin();
  W->init(idA(1));
  W->callEnd(idA(1));
  uint64_t Pending = 0;
  for (int T = 0; T < Steps; ++T) {
    if (Hooks)
      W->iter(Outer);
    for (int K = 0; K < 3; ++K) {
      if (Hooks)
        W->iter(Inner);
      exchange(*W, Pending, T);
    }
    if (Hooks)
      W->loopExit(Inner);
    W->callBegin();
    W->collective(idA(610), CollKind::Allreduce, 0, -1, 8);
    W->send(idA(610), 1, 0, 0, 8, SendMode::Standard, Context::Collective);
    W->callEnd(idA(610));
    W->callBegin();
    W->callEnd(idA(611)); // an MPI call that wrote nothing: a Call record
    // A search loop left by a break after 2 iterations: no exit hook.
    for (int K = 0; K < 5; ++K) {
      if (Hooks)
        W->iter(Broken);
      W->callBegin();
      W->probe(idA(620), false, 1, 9, 0, false, 0, 0, 0);
      W->callEnd(idA(620));
      if (K == 1)
        break;
    }
  }
  if (Hooks)
    W->loopExit(Outer);
  // Iterations of 600 KB each: two do not fit in the 1 MiB buffer, so the frame gives up.
  for (int K = 0; K < 3; ++K) {
    if (Hooks)
      W->iter(Big);
    for (int B = 0; B < 200000; ++B)
      W->block(idB(B % 100));
  }
  if (Hooks)
    W->loopExit(Big);
  W->callBegin();
  W->requestFree(idA(630), Pending);
  W->callEnd(idA(630));
  W->callBegin();
  W->finalize(idA(2));
  W->callEnd(idA(2));
  W->finish();
  return slurp(Dir + "/rank0.trace");
}

} // namespace

// The compressed file expands to exactly the records of the uncompressed one, is far smaller,
// and its raw form shows the repeats.
TEST(TraceFile, RepeatsExpandToTheUncompressedRecords) {
  const std::string Dir = tempDir("repeat"), PlainDir = tempDir("plain");
  const std::string Packed = writeProgram(Dir, true);
  const std::string Plain = writeProgram(PlainDir, false);
  const std::vector<std::string> Expanded = records(Packed), Full = records(Plain);
  ASSERT_EQ(Expanded.size(), Full.size());
  for (size_t I = 0; I < Full.size(); ++I)
    ASSERT_EQ(Expanded[I], Full[I]) << "record " << I;
  // Exact content checks on the uncompressed sequence.
  EXPECT_EQ(Full[0], "init 00abc123:1 *");
  EXPECT_EQ(Full[1], "send 00abc123:600 * peer=1 tag=7 comm=0 bytes=8 req=1");
  EXPECT_EQ(Full[2], "recv 00abc123:601 peer=1 tag=7 comm=0 bytes=8 req=2");
  EXPECT_EQ(Full[3], "wait 00abc123:602 waitall 2r1/7/8");
  EXPECT_EQ(Full[6], "wait 00abc123:602 waitall 4r1/7/8 1s0/0/0");
  EXPECT_EQ(Full[10], "collective 00abc123:610 * allreduce comm=0 root=-1 bytes=8");
  EXPECT_EQ(Full[12], "call 00abc123:611 *");
  EXPECT_EQ(Full[13], "probe 00abc123:620 *");
  EXPECT_EQ(Full.size(), 1 + 40 * (9 + 2 + 1 + 2) + 3 * 200000 + 2u);
  EXPECT_EQ(Full[Full.size() - 2], "request-free 00abc123:630 * req=" + std::to_string(40 * 7 - 2));

  // The loop's iterations are stored once per distinct iteration: steps 9, 19, ... differ from
  // their neighbours, so each run of identical steps becomes a repeat.
  const std::vector<std::string> Raw = records(Packed, nullptr, true);
  size_t Repeats = 0;
  for (const std::string &R : Raw)
    Repeats += R.rfind("repeat ", 0) == 0;
  EXPECT_GT(Repeats, 10u);
  EXPECT_LT(Raw.size(), 3 * 200000 + 500u);
  EXPECT_LT(Packed.size() + 2000, Plain.size());
  std::filesystem::remove_all(Dir);
  std::filesystem::remove_all(PlainDir);
}

// A trace's size does not grow with the iterations of a loop that repeats itself.
TEST(TraceFile, IdenticalIterationsCostNothing) {
  auto Steady = [](int Steps) {
    const std::string Dir = tempDir(("steady" + std::to_string(Steps)).c_str());
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(0, 2);
    for (int T = 0; T < Steps; ++T) {
      W->iter(Outer);
      W->callBegin();
      const uint64_t S = W->send(idA(600), 1, 7, 0, 8, SendMode::Standard, Context::User);
      W->wait(idA(601), WaitOp::Wait, 1);
      W->sendCompleted(S);
      W->callEnd(idA(600));
    }
    W->loopExit(Outer);
    W->finish();
    const std::string Data = slurp(Dir + "/rank0.trace");
    EXPECT_EQ(records(Data).size(), 2u * Steps);
    std::filesystem::remove_all(Dir);
    return Data.size();
  };
  const size_t Ten = Steady(10), Thousand = Steady(1000);
  EXPECT_LE(Thousand, Ten + 2) << "10 steps: " << Ten << " bytes, 1000 steps: " << Thousand;
}

namespace {

/// The compression modes of the writer: hooks and detector, the detector alone, none.
enum class Mode { Both, Detect, Plain };

/// Runs Program (which may call the loop hooks) on a fresh writer in Mode; returns the file.
template <typename Fn> std::string writeWith(const char *Name, Mode M, Fn Program) {
  const std::string Dir = tempDir(Name);
  auto W = std::make_unique<TraceWriter>();
  W->enable(Dir.c_str());
  W->setRepeats(M == Mode::Both, M != Mode::Plain);
  W->start(0, 2);
  Program(*W);
  W->finish();
  std::string Data = slurp(Dir + "/rank0.trace");
  std::filesystem::remove_all(Dir);
  return Data;
}

size_t repeatCount(const std::string &Data) {
  size_t N = 0;
  for (const std::string &R : records(Data, nullptr, true))
    N += R.rfind("repeat ", 0) == 0;
  return N;
}

/// Expands Packed and Plain and compares them record for record.
void expectSameRecords(const std::string &Packed, const std::string &Plain) {
  const std::vector<std::string> Expanded = records(Packed), Full = records(Plain);
  ASSERT_EQ(Expanded.size(), Full.size());
  for (size_t I = 0; I < Full.size(); ++I)
    ASSERT_EQ(Expanded[I], Full[I]) << "record " << I;
}

/// A blocking call: a send or receive start and its wait.
void blockingCall(TraceWriter &W, mpiete_site_t Site, bool Send, int32_t Tag) {
  W.callBegin();
  const uint64_t R = Send ? W.send(Site, 1, Tag, 0, 16384, SendMode::Standard, Context::User)
                          : W.recv(Site, 1, Tag, 0, 16384, Context::User);
  W.wait(Site, WaitOp::Wait, 1);
  if (Send)
    W.sendCompleted(R);
  else
    W.recvCompleted(R, 1, Tag, 16384);
  W.callEnd(Site);
}

/// A time step whose MPI calls are in another file's procedures (no hooks in the step loop):
/// a halo exchange with a hooked loop of its own, an allreduce, and every fifth step a
/// convergence test (a second allreduce).
void stepWithoutHooks(TraceWriter &W, uint64_t &Pending, int T) {
  for (int K = 0; K < 2; ++K) {
    W.iter(Inner);
    exchange(W, Pending, 0);
  }
  W.loopExit(Inner);
  for (int C = 0; C < (T % 5 == 4 ? 2 : 1); ++C) {
    W.callBegin();
    W.collective(idA(610 + C), CollKind::Allreduce, 0, -1, 8);
    W.send(idA(610 + C), 1, 0, 0, 8, SendMode::Standard, Context::Collective);
    W.callEnd(idA(610 + C));
  }
}

} // namespace

// The detector finds a time step whose loop has no hooks, with a hooked loop inside and a
// period of five steps; the expanded trace is the uncompressed one, record for record, and
// its size does not grow with the steps.
TEST(TraceFile, DetectedRepeatsExpandToTheUncompressedRecords) {
  auto Program = [](int Steps) {
    return [Steps](TraceWriter &W) {
      uint64_t Pending = 0;
      for (int T = 0; T < Steps; ++T)
        stepWithoutHooks(W, Pending, T);
    };
  };
  const std::string Plain = writeWith("d-plain", Mode::Plain, Program(400));
  for (Mode M : {Mode::Both, Mode::Detect}) {
    const std::string Packed = writeWith("d-packed", M, Program(400));
    SCOPED_TRACE(M == Mode::Both ? "hooks and detector" : "detector alone");
    expectSameRecords(Packed, Plain);
    EXPECT_GE(repeatCount(Packed), 1u);
    const std::string Longer = writeWith("d-longer", M, Program(4000));
    EXPECT_EQ(records(Longer).size(), 10 * records(Packed).size());
    EXPECT_LE(Longer.size(), Packed.size() + 8) << Packed.size() << " -> " << Longer.size();
    EXPECT_LT(Packed.size() * 4, Plain.size());
  }
}

// A ring whose tag cycles through 50 values (hooked lap loop whose neighbouring laps always
// differ): the hook frame gives up and the detector finds the 100-call period.
TEST(TraceFile, CyclingTagsAreDetected) {
  auto Program = [](int Laps) {
    return [Laps](TraceWriter &W) {
      W.callBegin();
      W.init(idA(1));
      W.callEnd(idA(1));
      for (int Lap = 0; Lap < Laps; ++Lap) {
        W.iter(Outer);
        blockingCall(W, idA(700), true, 100 + Lap % 50);
        blockingCall(W, idA(701), false, 100 + Lap % 50);
      }
      W.loopExit(Outer);
      W.callBegin();
      W.finalize(idA(2));
      W.callEnd(idA(2));
    };
  };
  const std::string Plain = writeWith("r-plain", Mode::Plain, Program(1000));
  const std::string Packed = writeWith("r-packed", Mode::Both, Program(1000));
  expectSameRecords(Packed, Plain);
  EXPECT_EQ(records(Plain).size(), 1 + 1000 * 4 + 1u);
  const std::string Longer = writeWith("r-longer", Mode::Both, Program(10000));
  EXPECT_LE(Longer.size(), Packed.size() + 8) << Packed.size() << " -> " << Longer.size();
  EXPECT_LT(Packed.size() * 4, Plain.size());
  // Hooks alone cannot compress it.
  const std::string HooksOnly = writeWith("r-hooks", Mode::Both, [](TraceWriter &W) {
    W.setRepeats(true, false);
    for (int Lap = 0; Lap < 1000; ++Lap) {
      W.iter(Outer);
      blockingCall(W, idA(700), true, 100 + Lap % 50);
    }
    W.loopExit(Outer);
  });
  EXPECT_EQ(repeatCount(HooksOnly), 0u);
}

// A hooked time-step loop whose runs of equal steps are broken by every fifth step (a
// convergence test, as in jacobi2d): the hook frame compresses the runs but keeps holding bytes,
// so the detector cuts where its previous step becomes final and finds the five-step period
// below it. With an inner hooked loop in each step, and with a step loop that is exited.
TEST(TraceFile, BrokenRunsOfHookedStepsAreDetected) {
  auto Program = [](int Steps) {
    return [Steps](TraceWriter &W) {
      uint64_t Pending = 0;
      W.callBegin();
      W.init(idA(1));
      W.callEnd(idA(1));
      for (int T = 0; T < Steps; ++T) {
        W.iter(Outer);
        stepWithoutHooks(W, Pending, T);
      }
      W.loopExit(Outer);
      W.callBegin();
      W.finalize(idA(2));
      W.callEnd(idA(2));
    };
  };
  const std::string Plain = writeWith("b-plain", Mode::Plain, Program(400));
  const std::string Packed = writeWith("b-packed", Mode::Both, Program(400));
  expectSameRecords(Packed, Plain);
  const std::string Longer = writeWith("b-longer", Mode::Both, Program(4000));
  expectSameRecords(Longer, writeWith("b-lplain", Mode::Plain, Program(4000)));
  EXPECT_LE(Longer.size(), Packed.size() + 8) << Packed.size() << " -> " << Longer.size();
  // The hooks alone grow with the steps (a Repeat and the differing step every five steps).
  const std::string Hooks = writeWith("b-hooks", Mode::Both, [&](TraceWriter &W) {
    W.setRepeats(true, false);
    Program(4000)(W);
  });
  expectSameRecords(Hooks, Longer);
  EXPECT_GT(Hooks.size(), 10 * Longer.size()) << Hooks.size() << " vs " << Longer.size();
  // Steps whose period is broken at random places stay lossless.
  auto Irregular = [](TraceWriter &W) {
    uint64_t Pending = 0;
    for (int T = 0; T < 3000; ++T) {
      W.iter(Outer);
      stepWithoutHooks(W, Pending, T % 97 == 13 || T % 31 == 7 ? 4 : 0);
    }
    W.loopExit(Outer);
  };
  expectSameRecords(writeWith("b-irr", Mode::Both, Irregular),
                    writeWith("b-irrplain", Mode::Plain, Irregular));
}

// Calls that never repeat (a tag that grows) are written plainly, the same as without
// compression, byte for byte.
TEST(TraceFile, SequencesThatNeverRepeatStayPlain) {
  auto Program = [](TraceWriter &W) {
    for (int Lap = 0; Lap < 3000; ++Lap)
      blockingCall(W, idA(700), Lap % 3 == 0, Lap);
  };
  const std::string Plain = writeWith("n-plain", Mode::Plain, Program);
  const std::string Packed = writeWith("n-packed", Mode::Both, Program);
  EXPECT_EQ(records(Packed, nullptr, true), records(Plain, nullptr, true));
  EXPECT_EQ(Packed.size(), Plain.size());
}

// Calls whose records fill a good part of the buffer (the detector's history and frame are
// given up when they do not fit) still expand to the uncompressed records.
TEST(TraceFile, LargeSpansStayLossless) {
  for (auto [Blocks, Steps] : {std::pair{3000, 80}, std::pair{60000, 12}}) {
    auto Program = [Blocks, Steps](TraceWriter &W) {
      for (int T = 0; T < Steps; ++T) {
        W.iter(Outer);
        W.callBegin();
        for (int B = 0; B < Blocks; ++B)
          W.block(idB(B % 50 + (T % 7 == 6 ? 1 : 0)));
        W.callEnd(idA(800));
        blockingCall(W, idA(700), true, 5);
      }
      W.loopExit(Outer);
    };
    const std::string Plain = writeWith("l-plain", Mode::Plain, Program);
    expectSameRecords(writeWith("l-both", Mode::Both, Program), Plain);
    expectSameRecords(writeWith("l-detect", Mode::Detect, Program), Plain);
  }
}

//===-- The detector's second level: blocks between reports ---------------------------------===//

namespace {

/// One step of neighbor-halo: a halo exchange whose kind cycles with the step (four distinct
/// calls of five records each), and with Blocks compute blocks in it (large steps).
void haloExchange(TraceWriter &W, int Step, int Blocks = 0) {
  const mpiete_site_t Site = idA(900 + 4 * static_cast<uint32_t>(Step % 4));
  W.callBegin();
  for (int B = 0; B < Blocks; ++B)
    W.block(idB(static_cast<uint32_t>(B % 50 + Step % 4)));
  const uint64_t S0 = W.send(Site, 0, Step % 4, 0, 4096, SendMode::Standard, Context::Collective);
  const uint64_t R0 = W.recv(Site + 1, 0, Step % 4, 0, 4096, Context::Collective);
  const uint64_t S1 = W.send(Site, 1, Step % 4, 0, 4096, SendMode::Standard, Context::Collective);
  const uint64_t R1 = W.recv(Site + 1, 1, Step % 4, 0, 4096, Context::Collective);
  W.wait(Site + 2, WaitOp::Waitall, 4);
  W.sendCompleted(S0);
  W.recvCompleted(R0, 0, Step % 4, 4096);
  W.sendCompleted(S1);
  W.recvCompleted(R1, 1, Step % 4, 4096);
  W.callEnd(Site);
}

/// neighbor-halo's report: an allreduce of the heat and a reduce of the corners; Hooked: the
/// allreduce three times in a hooked loop, the first time with other bytes (its frame compresses
/// the other two, inside the blocks).
void haloReport(TraceWriter &W, bool Hooked) {
  for (int K = 0; K < (Hooked ? 3 : 1); ++K) {
    if (Hooked)
      W.iter(Inner);
    W.callBegin();
    W.collective(idA(950), CollKind::Allreduce, 0, -1, 8 << (K == 0 ? 1 : 0));
    W.send(idA(950), 1, 0, 0, 8, SendMode::Standard, Context::Collective);
    W.callEnd(idA(950));
  }
  if (Hooked)
    W.loopExit(Inner);
  W.callBegin();
  W.collective(idA(951), CollKind::Reduce, 0, 0, 8);
  W.callEnd(idA(951));
}

/// neighbor-halo's time steps (hooked; the hooks are off in Mode::Detect), with a report after
/// every step Report(step) says, and Blocks(step) compute blocks in its exchange.
template <typename Fn>
auto haloProgram(int Steps, Fn Report, int (*Blocks)(int) = nullptr, bool HookedReport = false) {
  return [=](TraceWriter &W) {
    W.callBegin();
    W.init(idA(1));
    W.callEnd(idA(1));
    for (int Step = 1; Step <= Steps; ++Step) {
      W.iter(Outer);
      haloExchange(W, Step, Blocks ? Blocks(Step) : 0);
      if (Report(Step) || Step == Steps)
        haloReport(W, HookedReport);
    }
    W.loopExit(Outer);
    W.callBegin();
    W.finalize(idA(2));
    W.callEnd(idA(2));
  };
}

} // namespace

// neighbor-halo: a period of four steps broken by a report every 50 steps. Each 50-step block
// is compressed inside by the detector, and the compressed blocks repeat themselves (every
// other block starts at another step % 4, so blocks repeat with a period of a few blocks): the
// trace expands to the records written and does not grow with the blocks. The same with a
// hooked loop in the report.
TEST(TraceFile, BlocksBetweenReportsAreDetected) {
  const auto Every50 = [](int Step) { return Step % 50 == 0; };
  for (Mode M : {Mode::Both, Mode::Detect}) {
    SCOPED_TRACE(M == Mode::Both ? "hooks and detector" : "detector alone");
    const std::string Plain = writeWith("h-plain", Mode::Plain, haloProgram(800, Every50));
    const std::string Packed = writeWith("h-packed", M, haloProgram(800, Every50));
    expectSameRecords(Packed, Plain);
    const std::string Longer = writeWith("h-longer", M, haloProgram(1600, Every50));
    expectSameRecords(Longer, writeWith("h-lplain", Mode::Plain, haloProgram(1600, Every50)));
    EXPECT_LE(Longer.size(), Packed.size() + 64) << Packed.size() << " -> " << Longer.size();
    EXPECT_LT(Packed.size() * 10, Plain.size()) << Packed.size() << " of " << Plain.size();
    const std::string HookedPlain =
        writeWith("k-plain", Mode::Plain, haloProgram(800, Every50, nullptr, true));
    const std::string Hooked = writeWith("k-packed", M, haloProgram(800, Every50, nullptr, true));
    expectSameRecords(Hooked, HookedPlain);
    const std::string HookedLonger =
        writeWith("k-longer", M, haloProgram(1600, Every50, nullptr, true));
    expectSameRecords(HookedLonger, writeWith("k-lplain", Mode::Plain,
                                              haloProgram(1600, Every50, nullptr, true)));
    EXPECT_LE(HookedLonger.size(), Hooked.size() + 64)
        << Hooked.size() << " -> " << HookedLonger.size();
  }
}

// Blocks of different lengths (a report every 50 steps, then every 37; reports at both
// multiples), and calls too large for the buffer to hold them with the second level's
// iterations (its frame then gives its iterations up), stay lossless.
TEST(TraceFile, BlocksOfDifferentLengthsStayLossless) {
  const auto Then37 = [](int Step) { return Step <= 800 ? Step % 50 == 0 : Step % 37 == 0; };
  const auto Both = [](int Step) { return Step % 50 == 0 || Step % 37 == 0; };
  const auto Every50 = [](int Step) { return Step % 50 == 0; };
  // One while the detector's frame is open above the second level's, one while the detector
  // only keeps its history there.
  int (*Large)(int) = [](int Step) { return Step == 790 ? 400000 : Step == 1277 ? 330000 : 300; };
  for (Mode M : {Mode::Both, Mode::Detect}) {
    SCOPED_TRACE(M == Mode::Both ? "hooks and detector" : "detector alone");
    expectSameRecords(writeWith("v-packed", M, haloProgram(1600, Then37)),
                      writeWith("v-plain", Mode::Plain, haloProgram(1600, Then37)));
    expectSameRecords(writeWith("w-packed", M, haloProgram(1600, Both)),
                      writeWith("w-plain", Mode::Plain, haloProgram(1600, Both)));
    expectSameRecords(writeWith("x-packed", M, haloProgram(1400, Every50, Large)),
                      writeWith("x-plain", Mode::Plain, haloProgram(1400, Every50, Large)));
  }
}

//===----------------------------------------------------------------------------------------===//

// Every proper prefix of a compressed trace is an error, never a shorter valid trace.
TEST(TraceFile, EveryTruncationOfACompressedTraceIsReported) {
  const std::string Dir = tempDir("cut2");
  auto W = std::make_unique<TraceWriter>();
  W->enable(Dir.c_str());
  W->start(0, 2);
  uint64_t Pending = 0;
  for (int T = 0; T < 6; ++T) {
    W->iter(Outer);
    for (int K = 0; K < 3; ++K) {
      W->iter(Inner);
      exchange(*W, Pending, T);
    }
    W->loopExit(Inner);
  }
  W->loopExit(Outer);
  W->finish();
  const std::string Full = slurp(Dir + "/rank0.trace");
  size_t Repeats = 0;
  for (const std::string &R : records(Full, nullptr, true))
    Repeats += R.rfind("repeat ", 0) == 0;
  ASSERT_GE(Repeats, 2u);
  for (size_t Cut = 0; Cut < Full.size(); ++Cut) {
    Reading Rd;
    Record R;
    if (Rd.Reader.openBuffer("rank0.trace", Full.substr(0, Cut)))
      while (Rd.Reader.next(R)) {
      }
    EXPECT_FALSE(Rd.Reader.ok()) << "cut at " << Cut << " accepted";
    EXPECT_EQ(Rd.Diags.errorCount(), 1u) << "cut at " << Cut;
  }
  std::filesystem::remove_all(Dir);
}

namespace {
/// A version 2 trace by hand: header (rank 0 of 2), unit 0 = UnitA, then Body, then End
/// counting Records physical records (the unit record included).
std::string handTrace(uint64_t Version, const std::string &Body, unsigned Records) {
  std::string D(reinterpret_cast<const char *>(Magic), sizeof Magic);
  D += static_cast<char>(Version);
  D += std::string("\x00\x02\x00\x00\x00\x00", 6);
  D += std::string("\x01\x00\xa3\x82\xaf\x05", 6); // unit 0 = 0x00abc123
  D += Body;
  D += '\x7f';
  D += static_cast<char>(Records);
  return D;
}
} // namespace

TEST(TraceFile, VersionOneStillReads) {
  // Send (request 5 stored), Wait completing 5, RequestFree 5.
  const std::string Body = std::string("\x04\x00\x0c\x02\x0e\x00\x08\x05\x00\x00", 10) +
                           std::string("\x06\x00\x0d\x00\x01\x0a", 6) +
                           std::string("\x0c\x00\x0e\x05", 4);
  const std::vector<std::string> Rs = records(handTrace(1, Body, 4));
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[0], "send 00abc123:12 peer=1 tag=7 comm=0 bytes=8 req=5");
  EXPECT_EQ(Rs[1], "wait 00abc123:13 wait 5s0/0/0");
  EXPECT_EQ(Rs[2], "request-free 00abc123:14 req=5");
}

TEST(TraceFile, BadRepeatsAreReported) {
  const std::string Call = std::string("\x8e\x00\x05", 3); // a call record, 3 bytes
  std::string Err;
  // Longer than what precedes it (the unit record's 6 bytes and the call's 3).
  records(handTrace(2, Call + std::string("\x10\x02\x0a", 3), 3), &Err);
  EXPECT_NE(Err.find("record 2 at offset 24: "), std::string::npos) << Err;
  EXPECT_NE(Err.find("repeat of 10 bytes, longer than the records before it (9 bytes)"),
            std::string::npos)
      << Err;
  // A count of 0.
  records(handTrace(2, Call + std::string("\x10\x00\x03", 3), 3), &Err);
  EXPECT_NE(Err.find("repeat count 0"), std::string::npos) << Err;
  // Nested: the inner repeat reaches before the region the outer one replays.
  const std::string Nested = Call + Call + std::string("\x10\x01\x03", 3) + // fine: 1 more
                             std::string("\x10\x01\x03", 3); // replays the inner repeat alone
  records(handTrace(2, Nested, 5), &Err);
  EXPECT_NE(Err.find("longer than the repeated region it is in (0 bytes)"), std::string::npos)
      << Err;
  EXPECT_NE(Err.find("replayed by the repeat record at offset"), std::string::npos) << Err;
  // Valid nesting expands: (call, call x2) x2 = 6 calls.
  const std::string Good =
      Call + Call + std::string("\x10\x01\x03", 3) + std::string("\x10\x01\x09", 3);
  EXPECT_EQ(records(handTrace(2, Good, 5)).size(), 6u);
}

// Issue 13 (ring): version 3's same-buffer flag on a Recv record's context byte round-trips
// through the writer; in a version 2 file the same byte is a corrupt context (old files
// never carry it), and a version 2 receive reads without the flag.
TEST(TraceFile, SameBufferFlagRoundTripsAndOldFilesReadWithout) {
  const std::string Dir = tempDir("same");
  {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(0, 2);
    W->recv(idA(30), 1, 7, 0, 16384, Context::User, true);
    W->recv(idA(31), 1, 7, 0, 16384, Context::Collective, true);
    W->recv(idA(32), 1, 7, 0, 16384, Context::User);
    W->finish();
  }
  Reading Rd;
  ASSERT_TRUE(Rd.Reader.openBuffer("rank0.trace", slurp(Dir + "/rank0.trace")));
  EXPECT_EQ(Rd.Reader.header().FormatVersion, trace::FormatVersion);
  std::vector<Record> Rs;
  Record R;
  while (Rd.Reader.next(R))
    Rs.push_back(R);
  ASSERT_TRUE(Rd.Reader.ok()) << Rd.Errors.str();
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_TRUE(Rs[0].SameBuffer);
  EXPECT_EQ(Rs[0].Ctx, Context::User);
  EXPECT_TRUE(Rs[1].SameBuffer);
  EXPECT_EQ(Rs[1].Ctx, Context::Collective);
  EXPECT_FALSE(Rs[2].SameBuffer);
  std::filesystem::remove_all(Dir);

  // Recv 00abc123:16 from 1, tag 7, comm 0, 8 bytes, context byte 0x80 / 0x00.
  const std::string Flagged = std::string("\x05\x00\x10\x02\x0e\x00\x08\x80", 8);
  const std::string Plain = std::string("\x05\x00\x10\x02\x0e\x00\x08\x00", 8);
  EXPECT_EQ(
      records(handTrace(3, Flagged, 2)),
      std::vector<std::string>{"recv 00abc123:16 peer=1 tag=7 comm=0 bytes=8 req=1 same-buffer"});
  EXPECT_EQ(records(handTrace(2, Plain, 2)),
            std::vector<std::string>{"recv 00abc123:16 peer=1 tag=7 comm=0 bytes=8 req=1"});
  std::string Errors;
  records(handTrace(2, Flagged, 2), &Errors);
  EXPECT_NE(Errors.find("corrupt trace: context 128"), std::string::npos) << Errors;
}

// Issue 13 (alltoallw-transpose): version 4's layout class in bits 4-6 of a Send's and a Recv's
// context byte round-trips through the writer beside the same-buffer flag and the context; in
// a version 3 file the same bits are a corrupt context (old files never carry them).
TEST(TraceFile, LayoutClassRoundTripsAndOldFilesReadWithout) {
  const std::string Dir = tempDir("layout");
  {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(0, 2);
    W->send(idA(30), 1, 7, 0, 16384, SendMode::Standard, Context::Collective, 6);
    W->recv(idA(31), 1, 7, 0, 16384, Context::Collective, true, trace::LayoutUnknown);
    W->recv(idA(32), 1, 7, 0, 16384, Context::User, false, 1);
    W->send(idA(33), 1, 7, 0, 16384, SendMode::Synchronous, Context::User);
    W->finish();
  }
  Reading Rd;
  ASSERT_TRUE(Rd.Reader.openBuffer("rank0.trace", slurp(Dir + "/rank0.trace")));
  std::vector<Record> Rs;
  Record R;
  while (Rd.Reader.next(R))
    Rs.push_back(R);
  ASSERT_TRUE(Rd.Reader.ok()) << Rd.Errors.str();
  ASSERT_EQ(Rs.size(), 4u);
  EXPECT_EQ(Rs[0].Layout, 6);
  EXPECT_EQ(Rs[0].Ctx, Context::Collective);
  EXPECT_EQ(Rs[1].Layout, trace::LayoutUnknown);
  EXPECT_TRUE(Rs[1].SameBuffer);
  EXPECT_EQ(Rs[1].Ctx, Context::Collective);
  EXPECT_EQ(Rs[2].Layout, 1);
  EXPECT_FALSE(Rs[2].SameBuffer);
  EXPECT_EQ(Rs[2].Ctx, Context::User);
  EXPECT_EQ(Rs[3].Layout, 0);
  EXPECT_EQ(Rs[3].Mode, SendMode::Synchronous);
  std::filesystem::remove_all(Dir);

  // Recv 00abc123:16 from 1, tag 7, comm 0, 8 bytes, context byte 0x31 (layout 3, collective).
  const std::string Packed = std::string("\x05\x00\x10\x02\x0e\x00\x08\x31", 8);
  EXPECT_EQ(
      records(handTrace(4, Packed, 2)),
      std::vector<std::string>{"recv 00abc123:16 peer=1 tag=7 comm=0 bytes=8 req=1 layout=3"});
  std::string Errors;
  records(handTrace(3, Packed, 2), &Errors);
  EXPECT_NE(Errors.find("corrupt trace: context 49"), std::string::npos) << Errors;
}
