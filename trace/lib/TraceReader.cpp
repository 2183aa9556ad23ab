// Streaming reader of the per-rank binary trace, with located diagnostics for malformed files.
#include "mpiete/trace/TraceReader.h"

#include "mpiete/BlockId.h"

#include <cerrno>
#include <cstring>
#include <limits>

namespace mpiete::trace {

namespace {
constexpr size_t ChunkBytes = 1 << 16;
/// History kept behind the live position: the longest repeated region and its Repeat record.
constexpr size_t History = MaxRepeatBytes + 64;
/// Nested repeats being replayed at once (a loop nest's depth; far more is corruption).
constexpr size_t MaxReplayDepth = 256;
constexpr uint64_t MaxListLength = 1u << 30; // sanity bound on counts read from the file
// Loop trips and message bytes beyond this are corrupt (2^48: 78 hours of 1 ns iterations, a
// 256 TiB message), and their products with times would overflow the engine's nanoseconds.
constexpr uint64_t MaxPlausible = uint64_t(1) << 48;
} // namespace

const char *recordKindName(RecordKind K) {
  switch (K) {
  case RecordKind::Block:
    return "block";
  case RecordKind::Loop:
    return "loop";
  case RecordKind::Send:
    return "send";
  case RecordKind::Recv:
    return "recv";
  case RecordKind::Wait:
    return "wait";
  case RecordKind::Probe:
    return "probe";
  case RecordKind::Init:
    return "init";
  case RecordKind::Finalize:
    return "finalize";
  case RecordKind::CommCreate:
    return "comm-create";
  case RecordKind::CommFree:
    return "comm-free";
  case RecordKind::RequestFree:
    return "request-free";
  case RecordKind::Collective:
    return "collective";
  case RecordKind::Call:
    return "call";
  case RecordKind::Repeat:
    return "repeat";
  }
  return "?";
}

const char *waitOpName(WaitOp Op) {
  static const char *const Names[] = {"wait", "waitall", "waitany", "waitsome",
                                      "test", "testall", "testany", "testsome"};
  const auto I = static_cast<unsigned>(Op);
  return I <= LastWaitOp ? Names[I] : "?";
}

const char *sendModeName(SendMode M) {
  switch (M) {
  case SendMode::Standard:
    return "standard";
  case SendMode::Synchronous:
    return "synchronous";
  case SendMode::Ready:
    return "ready";
  case SendMode::Buffered:
    return "buffered";
  }
  return "?";
}

const char *contextName(Context C) {
  return C == Context::User ? "user" : C == Context::Collective ? "collective" : "?";
}

const char *collKindName(CollKind K) {
  const auto I = static_cast<unsigned>(K);
  return I <= LastCollKind ? CollKindNames[I] : "?";
}

TraceReader::TraceReader(DiagnosticSink &Diags) : Diags(Diags) {}

TraceReader::~TraceReader() {
  if (File != nullptr)
    std::fclose(File);
}

bool TraceReader::fail(const std::string &Message) {
  if (Failed)
    return false;
  Failed = true;
  std::string Where;
  if (!InHeader) {
    Where = "record " + std::to_string(Records) + " at offset " + std::to_string(RecordOffset);
    if (!Replays.empty())
      Where += " (replayed by the repeat record at offset " +
               std::to_string(Replays.back().RepeatOffset) + ")";
    Where += ": ";
  } else {
    Where = "header at offset " + std::to_string(Offset) + ": ";
  }
  Diags.error(DiagLoc{Name, 0, 0},
              Where +
                  (RegionCut ? "corrupt trace: a repeated region ends inside a record" : Message),
              "trace");
  return false;
}

bool TraceReader::open(const std::string &Path) {
  Name = Path;
  File = std::fopen(Path.c_str(), "rb");
  if (File == nullptr) {
    Failed = true;
    Diags.error(DiagLoc{Name, 0, 0}, std::string("cannot open the trace: ") + std::strerror(errno),
                "trace");
    return false;
  }
  Buf.resize(2 * History + ChunkBytes);
  return readHeader();
}

bool TraceReader::openBuffer(const std::string &BufferName, std::string Data) {
  Name = BufferName;
  Buf.assign(Data.begin(), Data.end());
  Len = Buf.size();
  Eof = true;
  return readHeader();
}

bool TraceReader::refill() {
  if (Eof || File == nullptr)
    return false;
  // Keep the history Repeat records may replay, then read as much as fits.
  const size_t Keep = Pos < History ? Pos : History;
  std::memmove(Buf.data(), Buf.data() + Pos - Keep, Keep);
  Pos = Len = Keep;
  const size_t N = std::fread(Buf.data() + Len, 1, Buf.size() - Len, File);
  if (N == 0) {
    Eof = true;
    return false;
  }
  Len += N;
  return true;
}

int TraceReader::getByte() {
  if (!Replays.empty()) {
    Replay &F = Replays.back();
    if (F.Cur == F.End) {
      RegionCut = true;
      return -1;
    }
    return Buf[Pos - (Offset - F.Cur++)];
  }
  if (Pos == Len && !refill())
    return -1;
  ++Offset;
  return Buf[Pos++];
}

bool TraceReader::u(uint64_t &V, const char *What) {
  V = 0;
  for (unsigned Shift = 0;; Shift += 7) {
    const int B = getByte();
    if (B < 0)
      return fail(std::string("truncated trace: ") + What + " cut short (no end marker)");
    if (Shift == 63 && B > 1)
      return fail(std::string("corrupt trace: ") + What + " overflows 64 bits");
    V |= static_cast<uint64_t>(B & 0x7f) << Shift;
    if ((B & 0x80) == 0)
      return true;
    if (Shift == 63)
      return fail(std::string("corrupt trace: ") + What + " overflows 64 bits");
  }
}

bool TraceReader::s32(int32_t &V, const char *What) {
  uint64_t Raw;
  if (!u(Raw, What))
    return false;
  const int64_t X = unzigzag(Raw);
  if (X < std::numeric_limits<int32_t>::min() || X > std::numeric_limits<int32_t>::max())
    return fail(std::string("corrupt trace: ") + What + " out of range");
  V = static_cast<int32_t>(X);
  return true;
}

bool TraceReader::u32(int32_t &V, const char *What) {
  uint64_t Raw;
  if (!u(Raw, What))
    return false;
  if (Raw > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return fail(std::string("corrupt trace: ") + What + " out of range");
  V = static_cast<int32_t>(Raw);
  return true;
}

bool TraceReader::byte(uint8_t &V, const char *What) {
  const int B = getByte();
  if (B < 0)
    return fail(std::string("truncated trace: ") + What + " cut short (no end marker)");
  V = static_cast<uint8_t>(B);
  return true;
}

bool TraceReader::str(std::string &S, const char *What) {
  uint64_t N;
  if (!u(N, What))
    return false;
  if (N > 4096)
    return fail(std::string("corrupt trace: ") + What + " is " + std::to_string(N) + " bytes long");
  S.clear();
  for (uint64_t I = 0; I < N; ++I) {
    const int B = getByte();
    if (B < 0)
      return fail(std::string("truncated trace: ") + What + " cut short");
    S.push_back(static_cast<char>(B));
  }
  return true;
}

bool TraceReader::block(uint64_t &Id) {
  uint64_t Unit, Index;
  if (!u(Unit, "block unit") || !u(Index, "block index"))
    return false;
  if (Unit >= Units.size() || !UnitSet[Unit])
    return fail("corrupt trace: unit index " + std::to_string(Unit) +
                " used before its definition");
  if (Index > 0xffffffffULL)
    return fail("corrupt trace: block index " + std::to_string(Index) + " exceeds 32 bits");
  Id = makeBlockId(Units[Unit], static_cast<uint32_t>(Index));
  return true;
}

bool TraceReader::readHeader() {
  InHeader = true;
  for (unsigned char M : Magic) {
    const int B = getByte();
    if (B < 0 || static_cast<unsigned char>(B) != M) {
      Offset = 0;
      return fail(B < 0 && Offset <= 1 ? "empty file, not an mpiete trace"
                                       : "not an mpiete trace (bad magic)");
    }
  }
  uint64_t Rank, Size;
  if (!u(Hdr.FormatVersion, "format version"))
    return false;
  if (Hdr.FormatVersion < MinFormatVersion || Hdr.FormatVersion > FormatVersion)
    return fail("unsupported trace format version " + std::to_string(Hdr.FormatVersion) +
                " (this reader knows " + std::to_string(MinFormatVersion) + " to " +
                std::to_string(FormatVersion) + ")");
  if (!u(Rank, "rank") || !u(Size, "world size") || !str(Hdr.Fingerprint, "fingerprint") ||
      !str(Hdr.Host, "host name") || !str(Hdr.Date, "date") ||
      !str(Hdr.ToolVersion, "tool version"))
    return false;
  if (Size == 0 || Rank >= Size || Size > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    return fail("corrupt trace: rank " + std::to_string(Rank) + " of world size " +
                std::to_string(Size));
  Hdr.Rank = static_cast<int>(Rank);
  Hdr.WorldSize = static_cast<int>(Size);
  InHeader = false;
  FirstRecord = Offset;
  return true;
}

bool TraceReader::request(uint64_t &Id, const char *What) {
  uint64_t V;
  if (!u(V, What))
    return false;
  Id = V;
  return Hdr.FormatVersion < 2 || !ExpandRepeats || fromDistance(Id, What);
}

bool TraceReader::fromDistance(uint64_t &Id, const char *What) {
  if (Id > Starts)
    return fail("corrupt trace: " + std::string(What) + " " + std::to_string(Id) +
                " starts back, only " + std::to_string(Starts) + " requests were started");
  Id = Id == 0 ? UnknownRequest : Starts + 1 - Id;
  return true;
}

bool TraceReader::repeat(Record &R) {
  uint64_t Count, Length;
  if (!u(Count, "repeat count") || !u(Length, "repeat length"))
    return false;
  if (Count == 0)
    return fail("corrupt trace: repeat count 0");
  if (Length == 0)
    return fail("corrupt trace: repeat of 0 bytes");
  if (Length > MaxRepeatBytes)
    return fail("corrupt trace: repeat of " + std::to_string(Length) +
                " bytes, longer than any writer's buffer (" + std::to_string(MaxRepeatBytes) + ")");
  const uint64_t Floor = Replays.empty() ? FirstRecord : Replays.back().Start;
  if (Length > RecordOffset - Floor)
    return fail("corrupt trace: repeat of " + std::to_string(Length) + " bytes, longer than " +
                (Replays.empty() ? "the records before it (" : "the repeated region it is in (") +
                std::to_string(RecordOffset - Floor) + " bytes)");
  if (!ExpandRepeats) {
    R.Kind = RecordKind::Repeat;
    R.RepeatCount = Count;
    R.RepeatLength = Length;
    return true;
  }
  if (Replays.size() == MaxReplayDepth)
    return fail("corrupt trace: repeats nested more than " + std::to_string(MaxReplayDepth) +
                " deep");
  const uint64_t Start = RecordOffset - Length;
  Replays.push_back(Replay{Start, RecordOffset, Start, Count, RecordOffset});
  return true;
}

bool TraceReader::next(Record &R) {
  if (Failed || Ended)
    return false;
  const bool V2 = Hdr.FormatVersion >= 2;
  // Version 4: a Send's or Recv's context byte carries the datatype's layout class in bits
  // 4-6 (after the same-buffer bit is taken off): returned, and taken off the context.
  auto layoutOf = [this](uint8_t &Ctx) -> uint8_t {
    if (Hdr.FormatVersion < 4)
      return 0;
    const uint8_t Layout = uint8_t((Ctx & LayoutMask) >> LayoutShift);
    Ctx &= ContextMaskV4;
    return Layout;
  };
  for (;;) {
    // A replayed region that ended starts over, or hands back to what it was replayed from.
    while (!Replays.empty() && Replays.back().Cur == Replays.back().End) {
      Replay &F = Replays.back();
      if (--F.Remaining > 0)
        F.Cur = F.Start;
      else
        Replays.pop_back();
    }
    const bool Live = Replays.empty();
    RecordOffset = Live ? Offset : Replays.back().Cur;
    const int TagByte = getByte();
    if (TagByte < 0)
      return fail("truncated trace: no end marker");
    R.Number = Logical;
    R.Offset = RecordOffset;
    R.CallStart = V2 && (TagByte & CallStartFlag) != 0;
    const int TagValue = V2 ? TagByte & TagMask : TagByte;
    const auto T = static_cast<Tag>(TagValue);
    if (R.CallStart && (T == Tag::Unit || T == Tag::End || T == Tag::Repeat))
      return fail("corrupt trace: call-start flag on a " +
                  std::string(T == Tag::Unit  ? "unit"
                              : T == Tag::End ? "end"
                                              : "repeat") +
                  " record");
    if (!V2 && (T == Tag::Collective || T == Tag::Call || T == Tag::Repeat)) {
      char Hex[16];
      std::snprintf(Hex, sizeof Hex, "0x%02x", TagByte);
      return fail(std::string("corrupt trace: record tag ") + Hex + " in a version 1 trace");
    }
    switch (T) {
    case Tag::Unit: {
      uint64_t Index, Unit;
      if (!u(Index, "unit index") || !u(Unit, "unit id"))
        return false;
      if (Unit > 0xffffffffULL)
        return fail("corrupt trace: unit id " + std::to_string(Unit) + " exceeds 32 bits");
      if (Index != Units.size())
        return fail("corrupt trace: unit index " + std::to_string(Index) + " defined out of order" +
                    " (expected " + std::to_string(Units.size()) + ")");
      Units.push_back(static_cast<uint32_t>(Unit));
      UnitSet.push_back(true);
      ++Records;
      ++Logical;
      continue; // the dictionary is the reader's business, not the caller's
    }
    case Tag::Repeat: {
      if (!repeat(R))
        return false;
      if (Live)
        ++Records;
      if (!ExpandRepeats)
        return true;
      continue;
    }
    case Tag::End: {
      if (!Live)
        return fail("corrupt trace: end marker inside a repeated region");
      uint64_t Count;
      if (!u(Count, "end marker"))
        return false;
      if (Count != Records)
        return fail("corrupt trace: end marker counts " + std::to_string(Count) +
                    " records, the file has " + std::to_string(Records));
      if (getByte() >= 0)
        return fail("corrupt trace: data after the end marker");
      Ended = true;
      return false;
    }
    case Tag::Block:
      R.Kind = RecordKind::Block;
      if (!block(R.Block))
        return false;
      break;
    case Tag::Loop:
      R.Kind = RecordKind::Loop;
      if (!block(R.Block) || !u(R.Trips, "loop trips"))
        return false;
      break;
    case Tag::Init:
      R.Kind = RecordKind::Init;
      if (!block(R.Block))
        return false;
      break;
    case Tag::Finalize:
      R.Kind = RecordKind::Finalize;
      if (!block(R.Block))
        return false;
      break;
    case Tag::Send: {
      R.Kind = RecordKind::Send;
      uint8_t Mode, Ctx;
      if (!block(R.Block) || !s32(R.Peer, "send peer") || !s32(R.Tag, "send tag") ||
          !u(R.Comm, "send communicator") || !u(R.Bytes, "send bytes") ||
          (!V2 && !u(R.Request, "send request")) || !byte(Mode, "send mode") ||
          !byte(Ctx, "send context"))
        return false;
      if (V2)
        R.Request = ExpandRepeats ? ++Starts : 0;
      if (Mode > static_cast<uint8_t>(SendMode::Buffered))
        return fail("corrupt trace: send mode " + std::to_string(Mode));
      R.Layout = layoutOf(Ctx);
      if (Ctx > static_cast<uint8_t>(Context::Collective))
        return fail("corrupt trace: context " + std::to_string(Ctx));
      R.Mode = static_cast<SendMode>(Mode);
      R.Ctx = static_cast<Context>(Ctx);
      break;
    }
    case Tag::Recv: {
      R.Kind = RecordKind::Recv;
      uint8_t Ctx;
      if (!block(R.Block) || !s32(R.Peer, "receive source") || !s32(R.Tag, "receive tag") ||
          !u(R.Comm, "receive communicator") || !u(R.Bytes, "receive bytes") ||
          (!V2 && !u(R.Request, "receive request")) || !byte(Ctx, "receive context"))
        return false;
      if (V2)
        R.Request = ExpandRepeats ? ++Starts : 0;
      R.SameBuffer = Hdr.FormatVersion >= 3 && (Ctx & SameBufferFlag) != 0;
      if (Hdr.FormatVersion >= 3)
        Ctx &= ContextMask;
      R.Layout = layoutOf(Ctx);
      if (Ctx > static_cast<uint8_t>(Context::Collective))
        return fail("corrupt trace: context " + std::to_string(Ctx));
      R.Ctx = static_cast<Context>(Ctx);
      break;
    }
    case Tag::Wait: {
      R.Kind = RecordKind::Wait;
      uint8_t Op;
      uint64_t N;
      if (!block(R.Block) || !byte(Op, "wait operation") || !u(N, "completion count"))
        return false;
      if (Op > LastWaitOp)
        return fail("corrupt trace: wait operation " + std::to_string(Op));
      if (N > MaxListLength)
        return fail("corrupt trace: " + std::to_string(N) + " completions");
      R.Op = static_cast<WaitOp>(Op);
      // Grown as the completions are read, not sized from the count: a corrupt count must
      // fail at the end of the data, not allocate gigabytes first (found by fuzzing).
      R.Completions.clear();
      for (uint64_t I = 0; I < N; ++I) {
        Completion &C = R.Completions.emplace_back();
        uint64_t Word;
        if (!u(Word, "completion"))
          return false;
        C.Request = Word >> 1;
        C.Recv = (Word & 1) != 0;
        if (V2 && ExpandRepeats && !fromDistance(C.Request, "completion"))
          return false;
        C.Source = C.Tag = 0;
        C.Bytes = 0;
        if (C.Recv && (!s32(C.Source, "matched source") || !s32(C.Tag, "matched tag") ||
                       !u(C.Bytes, "received bytes")))
          return false;
      }
      break;
    }
    case Tag::Probe: {
      R.Kind = RecordKind::Probe;
      uint8_t Flags;
      if (!block(R.Block) || !byte(Flags, "probe flags") || !s32(R.Peer, "probe source") ||
          !s32(R.Tag, "probe tag") || !u(R.Comm, "probe communicator"))
        return false;
      if (Flags > (ProbeBlocking | ProbeFound))
        return fail("corrupt trace: probe flags " + std::to_string(Flags));
      R.Blocking = (Flags & ProbeBlocking) != 0;
      R.Found = (Flags & ProbeFound) != 0;
      R.MatchedSource = R.MatchedTag = 0;
      R.MatchedBytes = 0;
      if (R.Found && (!s32(R.MatchedSource, "matched source") ||
                      !s32(R.MatchedTag, "matched tag") || !u(R.MatchedBytes, "probed bytes")))
        return false;
      break;
    }
    case Tag::CommCreate: {
      R.Kind = RecordKind::CommCreate;
      uint8_t HasNew;
      if (!block(R.Block) || !u(R.Parent, "parent communicator") ||
          !byte(HasNew, "membership flag"))
        return false;
      if (HasNew > 1)
        return fail("corrupt trace: membership flag " + std::to_string(HasNew));
      R.HasNew = HasNew != 0;
      R.NewComm = 0;
      R.Members.clear();
      if (R.HasNew) {
        uint64_t N;
        if (!u(R.NewComm, "new communicator") || !u(N, "member count"))
          return false;
        if (N == 0 || N > static_cast<uint64_t>(Hdr.WorldSize))
          return fail("corrupt trace: communicator of " + std::to_string(N) +
                      " members in a world of " + std::to_string(Hdr.WorldSize));
        for (uint64_t I = 0; I < N; ++I)
          if (!u32(R.Members.emplace_back(), "member rank"))
            return false;
      }
      break;
    }
    case Tag::CommFree:
      R.Kind = RecordKind::CommFree;
      if (!block(R.Block) || !u(R.Comm, "communicator"))
        return false;
      break;
    case Tag::RequestFree:
      R.Kind = RecordKind::RequestFree;
      if (!block(R.Block) || !request(R.Request, "request"))
        return false;
      break;
    case Tag::Collective: {
      R.Kind = RecordKind::Collective;
      uint8_t Kind;
      if (!block(R.Block) || !byte(Kind, "collective kind") ||
          !u(R.Comm, "collective communicator") || !s32(R.Root, "collective root") ||
          !u(R.Bytes, "collective bytes"))
        return false;
      if (Kind > LastCollKind)
        return fail("corrupt trace: collective kind " + std::to_string(Kind));
      if (R.Root < -1 || R.Root >= Hdr.WorldSize)
        return fail("corrupt trace: collective root " + std::to_string(R.Root) + " in a world of " +
                    std::to_string(Hdr.WorldSize));
      R.Coll = static_cast<CollKind>(Kind);
      break;
    }
    case Tag::Call:
      R.Kind = RecordKind::Call;
      if (!block(R.Block))
        return false;
      break;
    default: {
      char Hex[16];
      std::snprintf(Hex, sizeof Hex, "0x%02x", TagByte);
      return fail(std::string("corrupt trace: unknown record tag ") + Hex);
    }
    }
    if (CheckConsistency && ExpandRepeats && !consistent(R))
      return false;
    if (Live)
      ++Records;
    ++Logical;
    return true;
  }
}

// What one record promises, checked against the world and the records before it (issue 14):
// a corrupt trace must fail with its record number, never replay as a confident prediction.
bool TraceReader::consistent(const Record &R) {
  const int32_t World = Hdr.WorldSize;
  auto Rank = [World](int32_t P) { return P >= 0 && P < World; };
  auto Out = [&](const char *What, int32_t P) {
    return fail("corrupt trace: " + std::string(What) + " " + std::to_string(P) +
                " outside the world of " + std::to_string(World) + " ranks");
  };
  auto TooLarge = [&](const char *What, uint64_t V) {
    return fail("corrupt trace: " + std::string(What) + " " + std::to_string(V) +
                " (more than 2^48)");
  };
  switch (R.Kind) {
  case RecordKind::Loop:
    if (R.Trips > MaxPlausible)
      return TooLarge("loop trips", R.Trips);
    return true;
  case RecordKind::Send:
  case RecordKind::Recv: {
    const bool Recv = R.Kind == RecordKind::Recv;
    if (!Rank(R.Peer) && R.Peer != ProcNull && !(Recv && R.Peer == AnySource))
      return Out(Recv ? "receive source" : "send destination", R.Peer);
    if (R.Tag < (Recv ? AnyTag : 0))
      return fail("corrupt trace: " + std::string(Recv ? "receive" : "send") + " tag " +
                  std::to_string(R.Tag));
    if (R.Bytes > MaxPlausible)
      return TooLarge("message bytes", R.Bytes);
    if (R.Request != UnknownRequest &&
        !Pending.emplace(R.Request, PendingRequest{Recv, R.Peer, R.Tag, R.Bytes, Records}).second)
      return fail("corrupt trace: request " + std::to_string(R.Request) +
                  " started while it is still pending");
    return true;
  }
  case RecordKind::Wait:
    // MPI_Wait, MPI_Waitany, MPI_Test and MPI_Testany complete one request at most.
    if (R.Completions.size() > 1 && (R.Op == WaitOp::Wait || R.Op == WaitOp::Waitany ||
                                     R.Op == WaitOp::Test || R.Op == WaitOp::Testany))
      return fail("corrupt trace: a " + std::string(waitOpName(R.Op)) + " completing " +
                  std::to_string(R.Completions.size()) + " requests (at most one)");
    for (const Completion &C : R.Completions) {
      if (C.Recv && !Rank(C.Source) && C.Source != ProcNull)
        return Out("matched source", C.Source);
      if (C.Request == UnknownRequest)
        continue;
      auto It = Pending.find(C.Request);
      if (It == Pending.end())
        return fail("corrupt trace: completion of request " + std::to_string(C.Request) +
                    ", which was never started or is already complete");
      const PendingRequest P = It->second;
      Pending.erase(It);
      if (P.Recv != C.Recv)
        return fail("corrupt trace: request " + std::to_string(C.Request) + " started as a " +
                    (P.Recv ? "receive" : "send") + " completes as a " +
                    (C.Recv ? "receive" : "send"));
      if (!C.Recv)
        continue;
      // Only a receive from MPI_PROC_NULL completes with that source (and no data).
      if ((P.Peer == ProcNull) != (C.Source == ProcNull))
        return fail("corrupt trace: request " + std::to_string(C.Request) + " posted for " +
                    (P.Peer == ProcNull    ? std::string("MPI_PROC_NULL")
                     : P.Peer == AnySource ? std::string("any rank")
                                           : "rank " + std::to_string(P.Peer)) +
                    " matched " +
                    (C.Source == ProcNull ? std::string("MPI_PROC_NULL")
                                          : "rank " + std::to_string(C.Source)));
      if (P.Peer == ProcNull) {
        if (C.Bytes != 0)
          return fail("corrupt trace: request " + std::to_string(C.Request) + " received " +
                      std::to_string(C.Bytes) + " bytes from MPI_PROC_NULL");
        continue;
      }
      if (C.Bytes > P.Bytes)
        return fail("corrupt trace: request " + std::to_string(C.Request) + " received " +
                    std::to_string(C.Bytes) + " bytes into a receive of " +
                    std::to_string(P.Bytes));
      if (P.Peer != AnySource && C.Source != P.Peer)
        return fail("corrupt trace: request " + std::to_string(C.Request) + " posted for rank " +
                    std::to_string(P.Peer) + " matched rank " + std::to_string(C.Source));
      if (P.Tag != AnyTag && C.Tag != P.Tag)
        return fail("corrupt trace: request " + std::to_string(C.Request) + " posted for tag " +
                    std::to_string(P.Tag) + " matched tag " + std::to_string(C.Tag));
    }
    return true;
  case RecordKind::RequestFree:
    Pending.erase(R.Request);
    return true;
  case RecordKind::Finalize:
    return nonePending();
  case RecordKind::Probe:
    if (!Rank(R.Peer) && R.Peer != ProcNull && R.Peer != AnySource)
      return Out("probe source", R.Peer);
    if (R.Found && !Rank(R.MatchedSource) && R.MatchedSource != ProcNull)
      return Out("probed source", R.MatchedSource);
    return true;
  case RecordKind::CommCreate:
    for (int32_t M : R.Members)
      if (!Rank(M))
        return Out("communicator member", M);
    return true;
  case RecordKind::Collective:
    if (R.Bytes > MaxPlausible)
      return TooLarge("collective bytes", R.Bytes);
    return true;
  default:
    return true;
  }
}

// MPI requires every request complete (or freed) before MPI_Finalize. A request still pending
// there is erroneous in a real program and, in a trace, usually a completion corrupted into
// the unknown request 0 (the hostile matrix's one silent changed prediction): its receive
// would never be waited for. Sends are held to the same rule: the runtime records a freed
// request (MPI_Request_free), so a valid trace has none left.
bool TraceReader::nonePending() {
  if (Pending.empty())
    return true;
  auto First = Pending.begin();
  for (auto It = Pending.begin(); It != Pending.end(); ++It)
    if (It->first < First->first)
      First = It;
  const PendingRequest &P = First->second;
  std::string Peer = P.Peer == AnySource  ? std::string("any rank")
                     : P.Peer == ProcNull ? std::string("MPI_PROC_NULL")
                                          : "rank " + std::to_string(P.Peer);
  std::string Tag = P.Tag == AnyTag ? std::string("any tag") : "tag " + std::to_string(P.Tag);
  return fail("invalid trace: request " + std::to_string(First->first) + " (a " +
              (P.Recv ? "receive from " : "send to ") + Peer + ", " + Tag + ", record " +
              std::to_string(P.Record) + ") is still pending at MPI_Finalize, never completed " +
              "or freed" +
              (Pending.size() > 1 ? " (" + std::to_string(Pending.size() - 1) + " more)" : "") +
              "; MPI requires it: a program that does leave it pending must wait for it or "
              "free it before MPI_Finalize");
}

} // namespace mpiete::trace
