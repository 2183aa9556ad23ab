// The estimator's input: one pull stream of program-base-data events per rank. Readers of the
// on-disk trace format, in-memory lists (tests) and generators (benchmarks) all implement
// EventSource, so the engine never sees how the events were stored.
#ifndef MPIETE_ESTIMATOR_EVENT_H
#define MPIETE_ESTIMATOR_EVENT_H

#include "mpiete/BlockId.h"
#include "mpiete/SendMode.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpiete::estimator {

/// Time is integer nanoseconds everywhere in the engine.
using TimeNs = int64_t;
/// A block id as the instrumenter assigns it: (unit << 32) | index.
using BlockId = uint64_t;

constexpr int32_t AnySource = -1;
constexpr int32_t AnyTag = -1;
constexpr int32_t ProcNull = -2;
/// A completed request without a recorded status (sends, or STATUS_IGNORE).
constexpr int32_t NoStatus = -3;

enum class EventKind : uint8_t {
  Compute,     ///< one execution of a compute block
  Segment,     ///< the computation between two MPI calls: From -> Block (the call it ends at)
  Loop,        ///< Count executions (trips) of a compute block timed as one loop
  SendStart,   ///< a send is started (blocking sends are a start plus a Completion)
  RecvStart,   ///< a receive is posted
  Completion,  ///< a wait or a test that completed the listed requests
  Probe,       ///< a probe; Found says whether it returned a message
  Init,        ///< MPI_Init: the default prediction region starts after it
  Finalize,    ///< MPI_Finalize: the default prediction region ends before it
  RequestFree, ///< MPI_Request_free: Request will never be waited for
  LocalCopy,   ///< a collective's copy of Count bytes of the rank's own block (no message)
};

/// The ground floor's send mode, as the runtime records it (mpiete/SendMode.h).
using mpiete::SendMode;

/// A request a Completion record completed, with the status the real run returned for it
/// (world rank and tag of the matched message; NoStatus for sends).
struct CompletedRequest {
  uint64_t Request = 0;
  int32_t Source = NoStatus;
  int32_t Tag = NoStatus;
};

/// One record. Sources fill the caller's Event in place so the Completed vector's capacity is
/// reused and reading allocates nothing after warm-up.
struct Event {
  EventKind Kind = EventKind::Compute;
  SendMode Mode = SendMode::Standard;
  uint8_t Context = 0; ///< 0 user, 1 the private space of lowered collectives
  bool Found = true;   ///< Probe: the probe found a message (blocking probes always do)
  /// RecvStart: the receive buffer overlaps one the rank sent from since its previous receive
  /// (the trace's same-buffer flag): a rendezvous message into it costs the link's
  /// sameBufferExtra on top of its transfer.
  bool SameBuffer = false;
  /// SendStart, RecvStart: the layout class of the message's datatype (the trace's, 0
  /// contiguous): a message either side packs costs the link's packedExtra on top. LocalCopy:
  /// the own block's, costed by the link's localCopy(Count, Layout).
  uint8_t Layout = 0;
  BlockId Block = 0;
  BlockId From = 0; ///< Segment: the call site the computation started after
  int32_t Peer = 0; ///< destination (send) or source (receive, probe) world rank, or ANY/PROC_NULL
  int32_t Tag = 0;
  uint64_t Comm = 0;  ///< communicator id (matching happens per receiver, Comm and Context)
  uint64_t Count = 0; ///< bytes (send, receive, LocalCopy) or trips (Loop)
  uint64_t Request = 0;
  uint64_t Index = 0; ///< the record's number in its stream, for diagnostics
  std::vector<CompletedRequest> Completed;

  static Event compute(BlockId B);
  static Event segment(BlockId From, BlockId To);
  static Event loop(BlockId B, uint64_t Trips);
  static Event send(BlockId B, int32_t Dest, int32_t Tag, uint64_t Bytes, uint64_t Request,
                    uint64_t Comm = 0, uint8_t Context = 0, SendMode Mode = SendMode::Standard);
  static Event recv(BlockId B, int32_t Source, int32_t Tag, uint64_t Bytes, uint64_t Request,
                    uint64_t Comm = 0, uint8_t Context = 0);
  static Event completion(BlockId B, std::vector<CompletedRequest> Done);
  static Event probe(BlockId B, int32_t Source, int32_t Tag, uint64_t Comm = 0, bool Found = true);
  static Event requestFree(BlockId B, uint64_t Request);
  static Event localCopy(BlockId B, uint64_t Bytes);
  static Event init(BlockId B);
  static Event finalize(BlockId B);
};

/// The readable form of a block id used in every file and dump: `0aa758c0:11`
/// (mpiete/BlockId.h).
inline std::string formatBlock(BlockId B) { return formatBlockId(B); }

class EventSource {
public:
  virtual ~EventSource();
  /// Fills E with the next record; false at the end of the stream.
  virtual bool next(Event &E) = 0;
  /// What diagnostics call the stream (the trace file's path).
  virtual std::string name() const = 0;
  /// After next() returned false: the stream ended on an error (already reported by the
  /// source), not at its end.
  virtual bool failed() const { return false; }
};

/// Events held in memory (tests, small generated traces); Index counts from 0.
class VectorEventSource : public EventSource {
public:
  VectorEventSource(std::string Name, std::vector<Event> Events)
      : Name(std::move(Name)), Events(std::move(Events)) {}
  bool next(Event &E) override {
    if (Pos == Events.size())
      return false;
    E = Events[Pos];
    E.Index = Pos++;
    return true;
  }
  std::string name() const override { return Name; }

private:
  std::string Name;
  std::vector<Event> Events;
  size_t Pos = 0;
};

} // namespace mpiete::estimator

#endif
