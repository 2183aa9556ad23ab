// The runtime's TraceWriter against the TraceReader: every record kind round-trips, records
// made before MPI_Init (spilled past the buffer) come out in order, and every truncation or
// corruption of a valid file is reported, never silently accepted.
#include "TraceWriter.h"
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
  W->send(idA(12), 2, 7, 0, 4096, 1, SendMode::Synchronous, Context::User);
  W->send(idA(14), ProcNull, 0, 0, 0, 2, SendMode::Standard, Context::User);
  W->recv(idA(16), AnySource, AnyTag, 0x123456789abcdefULL, 800, 3, Context::Collective);
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
  W->requestFree(idA(24), 9);
  W->send(idA(25), 1, -3, 0, 1, 10, SendMode::Buffered, Context::User); // negative: zigzag
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
  EXPECT_EQ(Rs[I++].Request, 9u);
  EXPECT_EQ(Rs[I].Kind, RecordKind::Send);
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
  for ([[maybe_unused]] auto &E : std::filesystem::directory_iterator(Dir))
    ++Files;
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
