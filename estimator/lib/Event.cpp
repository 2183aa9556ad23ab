// Event constructors for hand-written traces.
#include "mpiete/estimator/Event.h"

namespace mpiete::estimator {

EventSource::~EventSource() = default;

Event Event::compute(BlockId B) {
  Event E;
  E.Kind = EventKind::Compute;
  E.Block = B;
  return E;
}

Event Event::segment(BlockId From, BlockId To) {
  Event E;
  E.Kind = EventKind::Segment;
  E.From = From;
  E.Block = To;
  return E;
}

Event Event::loop(BlockId B, uint64_t Trips) {
  Event E;
  E.Kind = EventKind::Loop;
  E.Block = B;
  E.Count = Trips;
  return E;
}

Event Event::send(BlockId B, int32_t Dest, int32_t Tag, uint64_t Bytes, uint64_t Request,
                  uint64_t Comm, uint8_t Context, SendMode Mode) {
  Event E;
  E.Kind = EventKind::SendStart;
  E.Block = B;
  E.Peer = Dest;
  E.Tag = Tag;
  E.Count = Bytes;
  E.Request = Request;
  E.Comm = Comm;
  E.Context = Context;
  E.Mode = Mode;
  return E;
}

Event Event::recv(BlockId B, int32_t Source, int32_t Tag, uint64_t Bytes, uint64_t Request,
                  uint64_t Comm, uint8_t Context) {
  Event E;
  E.Kind = EventKind::RecvStart;
  E.Block = B;
  E.Peer = Source;
  E.Tag = Tag;
  E.Count = Bytes;
  E.Request = Request;
  E.Comm = Comm;
  E.Context = Context;
  return E;
}

Event Event::completion(BlockId B, std::vector<CompletedRequest> Done) {
  Event E;
  E.Kind = EventKind::Completion;
  E.Block = B;
  E.Completed = std::move(Done);
  return E;
}

Event Event::probe(BlockId B, int32_t Source, int32_t Tag, uint64_t Comm, bool Found) {
  Event E;
  E.Kind = EventKind::Probe;
  E.Block = B;
  E.Peer = Source;
  E.Tag = Tag;
  E.Comm = Comm;
  E.Found = Found;
  return E;
}

Event Event::requestFree(BlockId B, uint64_t Request) {
  Event E;
  E.Kind = EventKind::RequestFree;
  E.Block = B;
  E.Request = Request;
  return E;
}

Event Event::localCopy(BlockId B, uint64_t Bytes) {
  Event E;
  E.Kind = EventKind::LocalCopy;
  E.Block = B;
  E.Context = 1;
  E.Count = Bytes;
  return E;
}

Event Event::init(BlockId B) {
  Event E;
  E.Kind = EventKind::Init;
  E.Block = B;
  return E;
}

Event Event::finalize(BlockId B) {
  Event E;
  E.Kind = EventKind::Finalize;
  E.Block = B;
  return E;
}

} // namespace mpiete::estimator
