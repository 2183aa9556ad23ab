// The trace variant's writer of the per-rank binary trace (mpiete/TraceFormat.h): records are
// encoded into a fixed 1 MiB buffer and streamed out with write(2), so memory stays constant
// however long the run. Records made before MPI_Init (the rank, hence the file name, is not
// known yet) wait in the buffer, spilling to a temporary file if it fills.
//
// Repeat compression (format version 2): mpiete_iter / mpiete_loop_exit drive a stack of loop
// frames. At each iteration boundary of the innermost frame, the iteration just finished is
// compared with the previous one (adjacent in the buffer): equal bytes are dropped and counted,
// and a Repeat record goes right after the previous iteration once they stop repeating. Only
// byte-identical iterations are dropped, so a missing exit hook costs compression, never
// correctness. Bytes before the lowest frame's previous iteration are written out as before;
// a frame whose iterations do not fit in the buffer gives the rest of its iteration up
// (written plainly) and starts comparing again at its next iteration.
//
// Loops without hooks (their MPI calls are in procedures of other files) and iterations that
// repeat with a longer period are compressed by a detector in the writer itself (TraceRepeat.cpp):
// it hashes the bytes each MPI call wrote (a span), finds a period of up to MaxPeriod spans
// from the last repeated run of Gram span hashes, and once the last 2 x period spans repeat,
// keeps a frame of its own (below the hook frames) whose iterations are period spans long.
// A span ends where bytes become final: at the end of the call when no hook frame holds bytes,
// else where the lowest holding frame's previous iteration starts (it moves on when an
// iteration differs), so a hooked loop whose runs of equal steps are broken every few steps
// (a convergence test) is cut into spans too, below its hook frame.
//
// A second level sees what lies between two closes of the detector's frame (a block: the spans
// it left plain, its compressed copies and repeat record, and the iteration that broke them) as
// one unit: once the last blocks repeat with a period of up to MaxBlockPeriod blocks, a frame of
// its own below the detector's drops the copies, so that a time step whose period is broken by
// a report every few dozen steps costs its first few blocks only.
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

  /// After MPI_Init: opens rank<Rank>.trace.part, writes the header and what came before.
  void start(int Rank, int WorldSize);
  /// Writes the buffered records out (MPI_Finalize calls it, so a later crash loses little).
  void flush();
  /// Appends End, closes the file and renames it rank<Rank>.trace (at process exit); not
  /// Complete (an exit without MPI_Finalize): it keeps the .part name and says so.
  void finish(bool Complete = true);

  /// Turns writing on into directory Dir (what MPIETE_OUTDIR does; tests call it directly).
  void enable(const char *Dir);
  /// Which compression runs: the loop hooks' frames and the detector of repeated call
  /// sequences (both by default; MPIETE_TRACE_REPEATS=0 turns both off, =hooks the detector).
  void setRepeats(bool Hooks, bool Detect) {
    HooksOn = Hooks;
    DetectOn = Detect;
  }

  //===-- One function per record kind (docs/trace-format.md) --------------------------------===//
  void block(mpiete_site_t Block) { begin(trace::Tag::Block, Block, 0); }
  void loop(mpiete_site_t Block, uint64_t Trips) {
    begin(trace::Tag::Loop, Block, trace::MaxVarint);
    u(Trips);
  }
  void init(mpiete_site_t Block) { begin(trace::Tag::Init, Block, 0); }
  void finalize(mpiete_site_t Block) { begin(trace::Tag::Finalize, Block, 0); }
  /// A send start; returns its request id (implicit in the file: the rank's start counter).
  /// Layout: the datatype's layout class (trace::LayoutShift), 0 contiguous.
  uint64_t send(mpiete_site_t Block, int32_t Peer, int32_t Tag, uint64_t Comm, uint64_t Bytes,
                trace::SendMode Mode, trace::Context Ctx, uint8_t Layout = 0) {
    begin(trace::Tag::Send, Block, 4 * trace::MaxVarint + 2);
    s(Peer);
    s(Tag);
    u(Comm);
    u(Bytes);
    byte(static_cast<uint8_t>(Mode));
    byte(static_cast<uint8_t>(static_cast<uint8_t>(Ctx) | (Layout << trace::LayoutShift)));
    return ++Starts;
  }
  /// A receive start; returns its request id. SameBuffer: its buffer overlaps one the rank
  /// sent from since its previous receive (trace::SameBufferFlag); Layout as for send.
  uint64_t recv(mpiete_site_t Block, int32_t Source, int32_t Tag, uint64_t Comm, uint64_t Bytes,
                trace::Context Ctx, bool SameBuffer = false, uint8_t Layout = 0) {
    begin(trace::Tag::Recv, Block, 4 * trace::MaxVarint + 1);
    s(Source);
    s(Tag);
    u(Comm);
    u(Bytes);
    byte(static_cast<uint8_t>(static_cast<uint8_t>(Ctx) | (Layout << trace::LayoutShift) |
                              (SameBuffer ? trace::SameBufferFlag : 0)));
    return ++Starts;
  }
  /// A collective call's own record, before its lowered messages.
  void collective(mpiete_site_t Block, trace::CollKind Kind, uint64_t Comm, int32_t Root,
                  uint64_t Bytes) {
    begin(trace::Tag::Collective, Block, 3 * trace::MaxVarint + 1);
    byte(static_cast<uint8_t>(Kind));
    u(Comm);
    s(Root);
    u(Bytes);
  }
  /// An outermost MPI call starts: its first record gets the call-start flag.
  void callBegin() { CallFlag = trace::CallStartFlag; }
  /// An outermost MPI call (at Site) ends: a Call record if it wrote nothing.
  void callEnd(mpiete_site_t Site) {
    if (CallFlag != 0)
      begin(trace::Tag::Call, Site, 0);
    if (DetectOn)
      spanEnd();
  }
  /// The loop hooks (mpiete_iter, mpiete_loop_exit).
  void iter(mpiete_site_t Loop);
  void loopExit(mpiete_site_t Loop);
  /// A Wait record of N completions: exactly N sendCompleted / recvCompleted calls follow.
  void wait(mpiete_site_t Block, trace::WaitOp Op, uint64_t N) {
    begin(trace::Tag::Wait, Block, 1 + trace::MaxVarint);
    byte(static_cast<uint8_t>(Op));
    u(N);
  }
  void sendCompleted(uint64_t Request) {
    reserve(trace::MaxVarint);
    u(distance(Request) << 1);
  }
  void recvCompleted(uint64_t Request, int32_t Source, int32_t Tag, uint64_t Bytes) {
    reserve(4 * trace::MaxVarint);
    u(distance(Request) << 1 | 1);
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
    u(distance(Request));
  }

private:
  /// Starts a record: resolves Block's unit (maybe emitting a Unit record first), makes room
  /// for Room more bytes, writes the tag and the block.
  void begin(trace::Tag T, mpiete_site_t Block, size_t Room) {
    const uint32_t U = unitIndex(blockUnit(Block));
    reserve(Room + 1 + 2 * trace::MaxVarint);
    Buf[Len++] = static_cast<unsigned char>(static_cast<uint8_t>(T) | CallFlag);
    CallFlag = 0;
    Len += trace::putVarint(Buf + Len, U);
    Len += trace::putVarint(Buf + Len, blockIndex(Block));
    ++Records;
  }
  /// Makes room for N more bytes of the current record.
  void reserve(size_t N) {
    if (Len + N > Capacity) [[unlikely]]
      drain(N);
  }
  /// A request id as written: its distance back from the next start (0: not ours).
  uint64_t distance(uint64_t Request) const {
    return Request == trace::UnknownRequest || Request > Starts ? 0 : Starts + 1 - Request;
  }
  void u(uint64_t V) { Len += trace::putVarint(Buf + Len, V); }
  void s(int64_t V) { Len += trace::putVarint(Buf + Len, trace::zigzag(V)); }
  void byte(uint8_t V) { Buf[Len++] = V; }

  enum StateKind : uint8_t { Unknown, Off, Open, Closed };
  static constexpr size_t Capacity = trace::MaxRepeatBytes;
  /// Loop frames deeper than this are not compressed (their hooks are ignored).
  static constexpr size_t MaxFrames = 64;
  /// The longest Repeat record; every hook call and every drain inserts at most MaxFrames of
  /// them, which the buffer's slack past Capacity holds.
  static constexpr size_t RepeatRoom = 1 + 2 * trace::MaxVarint;
  static constexpr size_t Slack = 2 * MaxFrames * RepeatRoom;

  /// A loop being compressed: offsets into Buf of its previous and current iteration.
  struct LoopFrame {
    mpiete_site_t Loop;
    size_t Prev;         // start of the previous iteration (valid if HasPrev)
    size_t Cur;          // start of the current iteration (valid if Claim)
    uint64_t CurRecords; // Records when the current iteration started
    uint64_t Count;      // iterations dropped as copies of the previous one
    bool HasPrev;
    bool Claim;     // its bytes are held in the buffer (false: given up until its next iteration)
    bool Dormant;   // gave up after MaxMisses different iterations in a row (the detector's turn)
    uint8_t Misses; // iterations in a row that differed from the previous one
    uint64_t PrevRecords = 0; // Records when the previous iteration started (valid if HasPrev)
  };
  /// A hook frame whose iterations differ this many times in a row stops holding bytes, so that
  /// the detector can look for a longer period across its iterations.
  static constexpr uint8_t MaxMisses = 4;
  void endIteration(LoopFrame &F);
  void closeFrame(LoopFrame &F);
  void insertRepeat(LoopFrame &F);
  void release(LoopFrame &F);
  size_t keep() const;
  void shiftFrames(size_t Pos, size_t N, size_t First = 0);

  //===-- The detector of repeated call sequences (TraceRepeat.cpp) ----------------------===//
  /// Spans of history kept (a power of two); a period is at most MaxPeriod spans.
  static constexpr size_t HistSize = 8192;
  static constexpr uint64_t MaxPeriod = 4000;
  static_assert(2 * MaxPeriod + 1 < HistSize);
  /// A period is proposed by the last earlier occurrence of the last Gram span hashes.
  static constexpr uint64_t Gram = 4;
  static constexpr size_t GramSlots = 8192;
  /// A detector frame opens once this many spans in a row equal those a period before.
  static constexpr uint64_t MinRun = 32;
  /// Where span N ended: its bytes' hash, the absolute stream position and the record count.
  struct SpanEnd {
    uint64_t Hash;
    uint64_t Pos;
    uint64_t Records;
  };
  struct GramSlot {
    uint64_t Key;
    uint64_t Span;
  };
  void spanEnd();
  void noteSpan(uint64_t Hash, uint64_t End, uint64_t EndRecords);
  uint64_t gramKey(uint64_t Span) const;
  void restartHistory();
  void closeAuto();
  uint64_t oldestKept() const;
  size_t finalEnd(uint64_t &EndRecords) const;
  void dropHeld(size_t From, size_t To, uint64_t Dropped);
  void shiftSpans(size_t Pos, size_t N);

  bool HooksOn = true;
  bool DetectOn = true;
  uint64_t Drained = 0; // bytes written out of Buf so far: Buf[0]'s absolute position
  SpanEnd Hist[HistSize] = {};
  GramSlot Grams[GramSlots] = {};
  uint64_t Spans = 0;     // spans ended so far; Hist[Spans % HistSize] is the last boundary
  uint64_t HistFirst = 1; // the first span of the valid history (Hist[HistFirst - 1]: its start)
  bool HistLost = false;  // drain() wrote the history out: restart at the next span's end
  uint64_t Period = 0;    // the candidate period (0: none)
  uint64_t Run = 0;       // spans in a row equal to the one Period spans before
  LoopFrame Auto = {};    // the detector's frame (valid if AutoOpen); Loop is unused
  bool AutoOpen = false;
  uint64_t AutoPeriod = 0; // its iterations' length in spans
  uint64_t AutoSpans = 0;  // spans in its current iteration so far
  uint64_t CutAt = 0;      // absolute position of the last span's end (the detector's frame)

  //===-- Its second level: blocks between closes of the detector's frame ----------------===//
  /// Blocks of history kept (a power of two); a period is at most MaxBlockPeriod blocks, and
  /// its frame opens once BlockMinRun blocks in a row (and at least a period) equal those a
  /// period before: few, as a block is itself at least MinRun spans.
  static constexpr size_t BlockHistSize = 64;
  static constexpr uint64_t MaxBlockPeriod = 16;
  static constexpr uint64_t BlockMinRun = 4;
  static_assert(2 * MaxBlockPeriod + 1 < BlockHistSize);
  void blockEnd();
  void restartBlocks();
  void closeBlockAuto();
  uint64_t oldestBlockKept() const;
  SpanEnd BlockHist[BlockHistSize] = {};
  uint64_t Blocks = 0;                        // blocks ended so far, as Spans
  uint64_t BlockFirst = 1;                    // as HistFirst
  bool BlocksLost = true;                     // no history: restarted at the next block's end
  uint64_t BlockRun[MaxBlockPeriod + 1] = {}; // per period: blocks in a row equal to that before
  LoopFrame BlockAuto = {};                   // the second level's frame (valid if BlockAutoOpen)
  bool BlockAutoOpen = false;
  uint64_t BlockPeriod = 0; // its iterations' length in blocks
  uint64_t BlocksIn = 0;    // blocks in its current iteration so far
  void makeHookRoom() {
    if (Len + MaxFrames * RepeatRoom > Capacity) [[unlikely]]
      drain(MaxFrames * RepeatRoom);
  }
  static constexpr size_t UnitSlots = 1 << 14;

  void decide();
  uint32_t unitIndex(uint32_t Unit) {
    if (Unit == LastUnit && HaveLast) [[likely]]
      return LastIndex;
    return lookupUnit(Unit);
  }
  uint32_t lookupUnit(uint32_t Unit);
  void drain(size_t Need);
  void writeAll(int Fd, const unsigned char *P, size_t N, const char *What);

  unsigned char Buf[Capacity + Slack] = {};
  size_t Len = 0;
  uint64_t Records = 0; // physical records in the file so far (Repeat records included)
  uint64_t Starts = 0;  // sends and receives started: the last request id
  uint8_t CallFlag = 0; // CallStartFlag while the current outermost call wrote nothing
  LoopFrame Frames[MaxFrames] = {};
  size_t Depth = 0;
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
