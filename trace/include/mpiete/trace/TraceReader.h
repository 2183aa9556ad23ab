// Reads a per-rank binary trace (program base data, mpiete/TraceFormat.h) as a stream of
// records: open(), header(), then next() until it returns false. Memory stays constant however
// long the trace; every malformation (truncation included) is reported through the
// DiagnosticSink with the file, the record number and its byte offset.
#ifndef MPIETE_TRACE_TRACEREADER_H
#define MPIETE_TRACE_TRACEREADER_H

#include "mpiete/TraceFormat.h"
#include "mpiete/support/Diagnostics.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
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
};
const char *recordKindName(RecordKind K);
const char *waitOpName(WaitOp Op);
const char *sendModeName(SendMode M);
const char *contextName(Context C);

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
  uint64_t Offset = 0; ///< byte offset of its tag

  uint64_t Trips = 0;   ///< Loop
  int32_t Peer = 0;     ///< Send: destination; Recv, Probe: posted source (world rank,
                        ///< AnySource or ProcNull)
  int32_t Tag = 0;      ///< Send: tag; Recv, Probe: posted tag (or AnyTag)
  uint64_t Comm = 0;    ///< Send, Recv, Probe, CommFree: communicator id
  uint64_t Bytes = 0;   ///< Send: bytes sent; Recv: bytes posted
  uint64_t Request = 0; ///< Send, Recv, RequestFree
  SendMode Mode = SendMode::Standard;
  Context Ctx = Context::User;

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

  /// The next record. False at the end marker (then ok() is true) or on an error (reported).
  bool next(Record &R);

  bool ok() const { return !Failed; }
  /// After next() returned false with ok(): the trace was complete.
  bool atEnd() const { return Ended; }
  const std::string &name() const { return Name; }
  /// Records read so far, unit definitions included (at the end: the end marker's count).
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

  DiagnosticSink &Diags;
  std::string Name;
  std::FILE *File = nullptr;
  std::vector<unsigned char> Buf;
  size_t Pos = 0, Len = 0;
  uint64_t Offset = 0; // file offset of Buf[Pos]
  bool Eof = false;

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
