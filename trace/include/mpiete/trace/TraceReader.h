// Reads a per-rank binary trace (program base data, mpiete/TraceFormat.h, versions 1 and 2) as a
// stream of records: open(), header(), then next() until it returns false. Repeat records are
// expanded transparently (nested ones included), so a consumer sees the full record sequence;
// setExpandRepeats(false) shows them as they are stored. Memory stays constant however long
// the trace (a window of the last MaxRepeatBytes bytes read); every malformation (truncation
// included) is reported through the DiagnosticSink with the file, the physical record number
// and its byte offset.
#ifndef MPIETE_TRACE_TRACEREADER_H
#define MPIETE_TRACE_TRACEREADER_H

#include "mpiete/TraceFormat.h"
#include "mpiete/support/Diagnostics.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mpiete::trace {

struct Header {
  uint64_t FormatVersion = 0;
  int Rank = 0;
  int WorldSize = 0;
  std::string Fingerprint; ///< hex digits (MPIETE_FINGERPRINT), or empty
  std::string Host;
  std::string Date; ///< ISO 8601, UTC
  std::string ToolVersion;
};

enum class RecordKind : uint8_t {
  Block,
  Loop,
  Send,
  Recv,
  Wait,
  Probe,
  Init,
  Finalize,
  CommCreate,
  CommFree,
  RequestFree,
  Collective, ///< version 2: a collective call, before its lowered messages
  Call,       ///< version 2: an MPI call that wrote no other record
  Repeat,     ///< only with setExpandRepeats(false)
};
const char *recordKindName(RecordKind K);
const char *waitOpName(WaitOp Op);
const char *sendModeName(SendMode M);
const char *contextName(Context C);
const char *collKindName(CollKind K);

/// One request a Wait record completed.
struct Completion {
  uint64_t Request = 0; ///< per-rank request id, or UnknownRequest
  bool Recv = false;
  int32_t Source = 0; ///< receives: matched source (world rank, or ProcNull)
  int32_t Tag = 0;    ///< receives: matched tag
  uint64_t Bytes = 0; ///< receives: bytes received
};

/// A decoded record; which fields are meaningful depends on Kind (docs/trace-format.md).
struct Record {
  RecordKind Kind = RecordKind::Block;
  uint64_t Block = 0;  ///< site id: unit << 32 | index
  uint64_t Number = 0; ///< position in the file, counting every record from 0
  uint64_t Offset = 0; ///< byte offset of its tag (a replayed record: of the bytes it repeats)
  /// Version 2: the first record of an MPI call (the tag byte's call-start flag).
  bool CallStart = false;

  uint64_t Trips = 0;   ///< Loop
  int32_t Peer = 0;     ///< Send: destination; Recv, Probe: posted source (world rank,
                        ///< AnySource or ProcNull)
  int32_t Tag = 0;      ///< Send: tag; Recv, Probe: posted tag (or AnyTag)
  uint64_t Comm = 0;    ///< Send, Recv, Probe, CommFree, Collective: communicator id
  uint64_t Bytes = 0;   ///< Send: bytes sent; Recv: bytes posted; Collective: contributed
  uint64_t Request = 0; ///< Send, Recv, RequestFree (unexpanded version 2: as stored)
  SendMode Mode = SendMode::Standard;
  Context Ctx = Context::User;
  /// Recv (version 3): the receive buffer overlaps a buffer the rank sent from since its
  /// previous receive (trace::SameBufferFlag); false in older files.
  bool SameBuffer = false;
  /// Send, Recv (v4): the layout class of the message's datatype (trace::LayoutShift): 0
  /// contiguous (and in older files), otherwise packed with pieces of the class's length.
  uint8_t Layout = 0;

  WaitOp Op = WaitOp::Wait;            ///< Wait
  std::vector<Completion> Completions; ///< Wait

  bool Blocking = false; ///< Probe: MPI_Probe (else MPI_Iprobe)
  bool Found = false;    ///< Probe: a message matched (then the Matched* fields)
  int32_t MatchedSource = 0;
  int32_t MatchedTag = 0;
  uint64_t MatchedBytes = 0;

  uint64_t Parent = 0;          ///< CommCreate
  bool HasNew = false;          ///< CommCreate: this rank is a member of the new one
  uint64_t NewComm = 0;         ///< CommCreate
  std::vector<int32_t> Members; ///< CommCreate: world ranks, in the new communicator's order

  CollKind Coll = CollKind::Barrier; ///< Collective
  int32_t Root = -1;                 ///< Collective: world rank of the root, or -1

  uint64_t RepeatCount = 0;  ///< Repeat (unexpanded): further occurrences
  uint64_t RepeatLength = 0; ///< Repeat (unexpanded): bytes of the repeated region
};

class TraceReader {
public:
  explicit TraceReader(DiagnosticSink &Diags);
  ~TraceReader();
  TraceReader(const TraceReader &) = delete;
  TraceReader &operator=(const TraceReader &) = delete;

  /// Opens Path and reads its header; false (reported) if it cannot.
  bool open(const std::string &Path);
  /// The same, on a trace held in memory (Name is used in diagnostics).
  bool openBuffer(const std::string &Name, std::string Data);

  const Header &header() const { return Hdr; }

  /// Whether Repeat records are expanded (the default) or returned as records. Unexpanded,
  /// version 2 request ids are returned as stored (distances; starts carry none).
  void setExpandRepeats(bool Expand) { ExpandRepeats = Expand; }

  /// Whether each expanded record is also checked against the world and the records before
  /// it (issue 14): peers and members inside the world, plausible trips and byte counts, every
  /// completion of a started, pending request of its kind, a receive's completion within its
  /// posted bytes, source and tag. Off by default (tests of the writer hand-build records);
  /// the estimator's event sources turn it on.
  void setCheckConsistency(bool On) { CheckConsistency = On; }

  /// The next record. False at the end marker (then ok() is true) or on an error (reported).
  bool next(Record &R);

  bool ok() const { return !Failed; }
  /// A check of the caller's on the last record failed (a contradiction with another file):
  /// reported like the reader's own errors, naming the file and the record; the reader stops.
  bool reject(const std::string &Message) { return fail(Message); }
  /// After next() returned false with ok(): the trace was complete.
  bool atEnd() const { return Ended; }
  const std::string &name() const { return Name; }
  /// Physical records read so far, unit definitions and repeats included (at the end: the end
  /// marker's count).
  uint64_t recordCount() const { return Records; }
  /// Unit dictionary entries read so far: index -> 32-bit unit id.
  const std::vector<uint32_t> &units() const { return Units; }

private:
  int getByte();
  bool refill();
  bool u(uint64_t &V, const char *What);
  bool s32(int32_t &V, const char *What);
  bool u32(int32_t &V, const char *What);
  bool byte(uint8_t &V, const char *What);
  bool str(std::string &S, const char *What);
  bool block(uint64_t &Id);
  bool readHeader();
  bool fail(const std::string &Message);
  bool request(uint64_t &Id, const char *What);
  /// A v2 request id (how many starts back; 0 unknown) to the absolute id.
  bool fromDistance(uint64_t &Id, const char *What);
  bool repeat(Record &R);
  bool consistent(const Record &R);
  bool nonePending();

  DiagnosticSink &Diags;
  std::string Name;
  std::FILE *File = nullptr;
  // Buf holds the file's bytes [Offset - Pos, Offset - Pos + Len): the live position and at
  // least MaxRepeatBytes of history behind it, which Repeat records replay.
  std::vector<unsigned char> Buf;
  size_t Pos = 0, Len = 0;
  uint64_t Offset = 0; // file offset of Buf[Pos]
  bool Eof = false;

  /// A repeated region being replayed: bytes [Start, End) of the file, Remaining more times.
  struct Replay {
    uint64_t Start, End, Cur, Remaining, RepeatOffset;
  };
  std::vector<Replay> Replays;
  bool ExpandRepeats = true;
  bool CheckConsistency = false;
  bool RegionCut = false;   // a replayed region ended inside a record
  uint64_t FirstRecord = 0; // file offset of the first record
  uint64_t Starts = 0;      // version 2: sends and receives so far (the implicit ids)
  uint64_t Logical = 0;     // records handed out or skipped (Unit), in expanded order

  /// A started request not yet completed or freed: what its start promised, which its
  /// completion must keep (expanded reading only).
  struct PendingRequest {
    bool Recv;
    int32_t Peer, Tag;
    uint64_t Bytes;
    uint64_t Record; // the stored record that started it (for the error at MPI_Finalize)
  };
  std::unordered_map<uint64_t, PendingRequest> Pending;

  Header Hdr;
  std::vector<uint32_t> Units; // unit dictionary: index -> unit id
  std::vector<bool> UnitSet;
  uint64_t Records = 0; // records read so far
  uint64_t RecordOffset = 0;
  bool InHeader = true;
  bool Failed = false;
  bool Ended = false;
};

} // namespace mpiete::trace

#endif // MPIETE_TRACE_TRACEREADER_H
