// The trace variant's writer of the per-rank binary trace (mpiete/TraceFormat.h): records are
// encoded into a fixed 1 MiB buffer and streamed out with write(2), so memory stays constant
// however long the run. Records made before MPI_Init (the rank, hence the file name, is not
// known yet) wait in the buffer, spilling to a temporary file if it fills.
//
// Writing is on only when MPIETE_OUTDIR is set. Not thread-safe, like the rest of the runtime.
#ifndef MPIETE_RUNTIME_TRACEWRITER_H
#define MPIETE_RUNTIME_TRACEWRITER_H

#include "mpiete/BlockId.h"
#include "mpiete/TraceFormat.h"
#include "mpiete/instrument.h"

#include <cstddef>
#include <cstdint>

namespace mpiete {

class TraceWriter {
public:
  static TraceWriter &get();
  constexpr TraceWriter() = default;

  /// Whether records are kept (MPIETE_OUTDIR set, End not yet written).
  bool on() {
    if (State == Unknown) [[unlikely]]
      decide();
    return State == Open;
  }

  /// After MPI_Init: names the file rank<Rank>.trace, writes the header and what came before.
  void start(int Rank, int WorldSize);
  /// Writes the buffered records out (MPI_Finalize calls it, so a later crash loses little).
  void flush();
  /// Appends End and closes the file (at process exit).
  void finish();

  /// Turns writing on into directory Dir (what MPIETE_OUTDIR does; tests call it directly).
  void enable(const char *Dir);

  //===-- One function per record kind (docs/trace-format.md) --------------------------------===//
  void block(mpiete_site_t Block) { begin(trace::Tag::Block, Block, 0); }
  void loop(mpiete_site_t Block, uint64_t Trips) {
    begin(trace::Tag::Loop, Block, trace::MaxVarint);
    u(Trips);
  }
  void init(mpiete_site_t Block) { begin(trace::Tag::Init, Block, 0); }
  void finalize(mpiete_site_t Block) { begin(trace::Tag::Finalize, Block, 0); }
  void send(mpiete_site_t Block, int32_t Peer, int32_t Tag, uint64_t Comm, uint64_t Bytes,
            uint64_t Request, trace::SendMode Mode, trace::Context Ctx) {
    begin(trace::Tag::Send, Block, 5 * trace::MaxVarint + 2);
    s(Peer);
    s(Tag);
    u(Comm);
    u(Bytes);
    u(Request);
    byte(static_cast<uint8_t>(Mode));
    byte(static_cast<uint8_t>(Ctx));
  }
  void recv(mpiete_site_t Block, int32_t Source, int32_t Tag, uint64_t Comm, uint64_t Bytes,
            uint64_t Request, trace::Context Ctx) {
    begin(trace::Tag::Recv, Block, 5 * trace::MaxVarint + 1);
    s(Source);
    s(Tag);
    u(Comm);
    u(Bytes);
    u(Request);
    byte(static_cast<uint8_t>(Ctx));
  }
  /// A Wait record of N completions: exactly N sendCompleted / recvCompleted calls follow.
  void wait(mpiete_site_t Block, trace::WaitOp Op, uint64_t N) {
    begin(trace::Tag::Wait, Block, 1 + trace::MaxVarint);
    byte(static_cast<uint8_t>(Op));
    u(N);
  }
  void sendCompleted(uint64_t Request) {
    reserve(trace::MaxVarint);
    u(Request << 1);
  }
  void recvCompleted(uint64_t Request, int32_t Source, int32_t Tag, uint64_t Bytes) {
    reserve(4 * trace::MaxVarint);
    u(Request << 1 | 1);
    s(Source);
    s(Tag);
    u(Bytes);
  }
  void probe(mpiete_site_t Block, bool Blocking, int32_t Source, int32_t Tag, uint64_t Comm,
             bool Found, int32_t MatchedSource, int32_t MatchedTag, uint64_t MatchedBytes) {
    begin(trace::Tag::Probe, Block, 6 * trace::MaxVarint + 1);
    byte(static_cast<uint8_t>((Blocking ? trace::ProbeBlocking : 0) |
                              (Found ? trace::ProbeFound : 0)));
    s(Source);
    s(Tag);
    u(Comm);
    if (Found) {
      s(MatchedSource);
      s(MatchedTag);
      u(MatchedBytes);
    }
  }
  /// Members: the new communicator's world ranks (nullptr and 0 when this rank got none).
  void commCreate(mpiete_site_t Block, uint64_t Parent, bool HasNew, uint64_t NewComm, int N,
                  const int *Members) {
    begin(trace::Tag::CommCreate, Block, 3 * trace::MaxVarint + 1);
    u(Parent);
    byte(HasNew ? 1 : 0);
    if (!HasNew)
      return;
    u(NewComm);
    u(static_cast<uint64_t>(N));
    for (int R = 0; R < N; ++R) {
      reserve(trace::MaxVarint);
      u(static_cast<uint64_t>(Members[R]));
    }
  }
  void commFree(mpiete_site_t Block, uint64_t Comm) {
    begin(trace::Tag::CommFree, Block, trace::MaxVarint);
    u(Comm);
  }
  void requestFree(mpiete_site_t Block, uint64_t Request) {
    begin(trace::Tag::RequestFree, Block, trace::MaxVarint);
    u(Request);
  }

private:
  /// Starts a record: resolves Block's unit (maybe emitting a Unit record first), makes room
  /// for Room more bytes, writes the tag and the block.
  void begin(trace::Tag T, mpiete_site_t Block, size_t Room) {
    const uint32_t U = unitIndex(blockUnit(Block));
    reserve(Room + 1 + 2 * trace::MaxVarint);
    Buf[Len++] = static_cast<unsigned char>(T);
    Len += trace::putVarint(Buf + Len, U);
    Len += trace::putVarint(Buf + Len, blockIndex(Block));
    ++Records;
  }
  /// Makes room for N more bytes of the current record.
  void reserve(size_t N) {
    if (Len + N > Capacity) [[unlikely]]
      drain();
  }
  void u(uint64_t V) { Len += trace::putVarint(Buf + Len, V); }
  void s(int64_t V) { Len += trace::putVarint(Buf + Len, trace::zigzag(V)); }
  void byte(uint8_t V) { Buf[Len++] = V; }

  enum StateKind : uint8_t { Unknown, Off, Open, Closed };
  static constexpr size_t Capacity = 1 << 20;
  static constexpr size_t UnitSlots = 1 << 14;

  void decide();
  uint32_t unitIndex(uint32_t Unit) {
    if (Unit == LastUnit && HaveLast) [[likely]]
      return LastIndex;
    return lookupUnit(Unit);
  }
  uint32_t lookupUnit(uint32_t Unit);
  void drain();
  void writeAll(int Fd, const unsigned char *P, size_t N, const char *What);

  unsigned char Buf[Capacity] = {};
  size_t Len = 0;
  uint64_t Records = 0;
  StateKind State = Unknown;
  int Fd = -1; // the trace file once started, else the spill file (or -1)
  bool Started = false;
  char Path[4200] = {};
  char SpillPath[4200] = {};
  // Unit dictionary: open addressing over unit ids (ids + 1, so 0 marks a free slot).
  uint64_t UnitKeys[UnitSlots] = {};
  uint32_t UnitIndex[UnitSlots] = {};
  uint32_t Units = 0;
  uint32_t LastUnit = 0;
  uint32_t LastIndex = 0;
  bool HaveLast = false;
};

} // namespace mpiete

#endif // MPIETE_RUNTIME_TRACEWRITER_H
