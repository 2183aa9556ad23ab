// The replay engine's internals: its queue, MPI matching engine, fluid flows and accounting.
// Private to the estimator library; users see mpiete/estimator/Engine.h.
#ifndef MPIETE_ESTIMATOR_LIB_ENGINEIMPL_H
#define MPIETE_ESTIMATOR_LIB_ENGINEIMPL_H

#include "EventQueue.h"
#include "LinkSharing.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/FlatMap.h"

#include <string>
#include <vector>

namespace mpiete::estimator {

class Engine::Impl {
public:
  Impl(const ComputeModel &Compute, const NetworkModel &Network, EngineOptions Options);
  EstimateResult run(std::span<EventSource *const> Sources);

private:
  enum class Status : uint8_t { Ready, Blocked, Probing, Done };
  enum class QueueKind : uint32_t { Resume, Arrival, FlowStart, FlowEnd };
  static constexpr uint32_t NoIndex = ~0U;

  /// A started send or receive, alive until it has been waited for and is complete: what the
  /// matching and the waits read, in one cache line (at 10^5 ranks every request is out of
  /// the caches when it is next touched).
  struct alignas(64) Request {
    TimeNs Start = 0; ///< send start or receive post
    TimeNs Done = 0;  ///< completion time, once Known
    BlockId Block = 0;
    uint64_t Bytes = 0;
    uint64_t Comm = 0;
    int32_t Owner = 0, Peer = 0, Tag = 0;
    uint32_t NextPosted = NoIndex;
    uint8_t Context = 0;
    bool IsRecv = false, Known = false, Waited = false, Detached = false;
    bool SameBuffer = false; ///< receives: Event::SameBuffer
    uint8_t Layout = 0;      ///< Event::Layout
    /// A receive with a wildcard source or tag: its predicted and recorded matches are kept
    /// (RequestExtra) for the nondeterminism check.
    bool wildcard() const { return IsRecv && (Peer == AnySource || Tag == AnyTag); }
  };
  /// What only wildcard receives and replay observers need, beside the request (same index),
  /// written only for them.
  struct RequestExtra {
    int32_t PredSource = NoStatus, PredTag = NoStatus; ///< predicted match (wildcard receives)
    int32_t RecSource = NoStatus, RecTag = NoStatus;   ///< recorded match (wildcard receives)
    int32_t PeerRank = -1; ///< whose event completes it: the sender (receives), receiver (sends)
    TimeNs PeerTime = 0;   ///< that event's time: the send's injection, the receive's post
    BlockId PeerBlock = 0; ///< that event's call site
  };
  RequestExtra &extra(uint32_t Slot) {
    if (Slot >= Extras.size()) [[unlikely]]
      Extras.resize(Requests.size());
    return Extras[Slot];
  }

  /// A message on its way to, or waiting in, the receiver's unexpected queue.
  struct Envelope {
    TimeNs Arrival = 0; ///< when the envelope reaches the receiver (data too, if eager)
    TimeNs Inject = 0;  ///< send start (delayed by the sender's gap)
    uint64_t Bytes = 0;
    BlockId Block = 0;
    uint32_t SendReq = NoIndex; ///< the send request still waiting for the match, if any
    uint32_t Space = 0;
    uint32_t Next = NoIndex;
    uint32_t Channel = 0;           ///< (receiver space, source)
    uint32_t ChannelNext = NoIndex; ///< in the channel's queue of envelopes not yet arrived
    int32_t Source = 0, Tag = 0;
    bool Rendezvous = false;
    bool InTransit = false; ///< its arrival waits for the end of its flow (contention)
    uint8_t Layout = 0;     ///< the send's Event::Layout
  };

  /// One direction of (source, receiver space): envelopes arrive in send order.
  struct Channel {
    TimeNs Last = 0;                         ///< arrival of the last envelope delivered
    uint32_t Head = NoIndex, Tail = NoIndex; ///< sent, not delivered (behind one in transit)
  };

  /// The streaming part of a transfer under contention (fluid model): between nodes it goes
  /// through the sender node's egress link and the receiver node's ingress link; within a
  /// node through the sender's and the receiver's endpoints.
  struct Flow {
    double Remaining = 0; ///< ns of streaming at the flow's own rate
    double Cap = 0;       ///< link bytes per ns at its own pace (1/G)
    LinkSharing::LinkId Links[2] = {0, 0};
    uint32_t Env = NoIndex;                  ///< eager: the envelope arriving at the end
    uint32_t Recv = NoIndex, Send = NoIndex; ///< rendezvous: the requests completed at the end
  };

  /// The progress of one LinkSharing group: flows with the same links and Cap. They always
  /// stream at the same rate, so each flow ends when the group's progress passes the mark it
  /// joined at plus its streaming time.
  struct FlowClass {
    double Work = 0;     ///< ns of own-rate streaming each member has done since the class filled
    double Fraction = 0; ///< current rate / Cap; exactly 1 at the own rate
    TimeNs Updated = 0;  ///< Work is as of this time
    TimeNs End = 0;      ///< when the first member ends at the current rate
    std::vector<std::pair<double, uint32_t>> Members; ///< min-heap of (Work at its end, flow)
  };

  /// MPI's matching engine for one (receiver, communicator, context).
  struct Space {
    int32_t Rank = 0;
    uint64_t Comm = 0;
    uint8_t Context = 0;
    uint32_t PostedHead = NoIndex, PostedTail = NoIndex;
    uint32_t UnexpHead = NoIndex, UnexpTail = NoIndex;
  };

  /// One instance of the prediction region on one rank.
  struct Instance {
    TimeNs Start = 0, End = 0;
    TimeNs Compute = 0, Comm = 0, Wait = 0;
  };

  /// One segment (From -> To) of one rank: its times and how often it ran so far.
  struct RankSegment {
    BlockId From = 0, To = 0;
    const SegmentTimes *Times = nullptr; ///< null: no data (reported when it runs)
    uint64_t Occurrences = 0;            ///< executions replayed so far (the next one's k)
    uint32_t Total = 0;                  ///< SegmentTotals index
    uint32_t NextHint = NoIndex;         ///< the rank's segment that followed this one last time
  };

  /// A rank's live requests by id: the few of a typical rank inline (in the rank's own cache
  /// lines), the rest in a hash map.
  class RequestMap {
  public:
    uint32_t *find(uint64_t Id) {
      for (uint32_t I = 0; I < NumInline; ++I)
        if (Ids[I] == Id)
          return &Slots[I];
      return More.find(Id);
    }
    /// As FlatMap::getOrInsert.
    uint32_t &getOrInsert(uint64_t Id, uint32_t Slot, bool *Inserted) {
      if (uint32_t *Found = find(Id)) {
        *Inserted = false;
        return *Found;
      }
      *Inserted = true;
      if (NumInline < Inline) {
        Ids[NumInline] = Id;
        Slots[NumInline] = Slot;
        return Slots[NumInline++];
      }
      return More.getOrInsert(Id, Slot);
    }
    void erase(uint64_t Id) {
      for (uint32_t I = 0; I < NumInline; ++I)
        if (Ids[I] == Id) {
          --NumInline;
          Ids[I] = Ids[NumInline];
          Slots[I] = Slots[NumInline];
          return;
        }
      More.erase(Id);
    }

  private:
    static constexpr uint32_t Inline = 6;
    uint32_t NumInline = 0;
    uint32_t Slots[Inline];
    uint64_t Ids[Inline];
    FlatMap<uint32_t> More; // (cold: a find reads it only after missing inline)
  };

  /// A few slot indices kept in place (a rank's spare requests and envelopes).
  struct SlotStack {
    static constexpr uint32_t Capacity = 6;
    uint32_t Size = 0;
    uint32_t Slots[Capacity];
    bool push(uint32_t Slot) {
      if (Size == Capacity)
        return false;
      Slots[Size++] = Slot;
      return true;
    }
  };

  /// The requests a wait or test is waiting for: the few of a typical wait in place.
  class WaitSlots {
  public:
    const uint32_t *begin() const { return Heap.empty() ? Inline : Heap.data(); }
    const uint32_t *end() const { return begin() + Size; }
    uint32_t *begin() { return Heap.empty() ? Inline : Heap.data(); }
    uint32_t *end() { return begin() + Size; }
    void clear() {
      Size = 0;
      Heap.clear();
    }
    void push_back(uint32_t Slot) {
      if (Heap.empty() && Size < Capacity) {
        Inline[Size++] = Slot;
        return;
      }
      if (Heap.empty())
        Heap.assign(Inline, Inline + Size);
      Heap.push_back(Slot);
      ++Size;
    }
    /// Drops the slots Pred holds for, keeping the others' order.
    template <typename F> void eraseIf(F Pred) {
      uint32_t *Out = begin();
      for (uint32_t *I = begin(); I != end(); ++I)
        if (!Pred(*I))
          *Out++ = *I;
      Size = uint32_t(Out - begin());
      if (!Heap.empty())
        Heap.resize(Size);
    }

  private:
    static constexpr uint32_t Capacity = 6;
    uint32_t Size = 0;
    uint32_t Inline[Capacity];
    std::vector<uint32_t> Heap; ///< all of them, once more than Capacity
  };

  /// A destination sent to recently: its matching space, channel and link without the
  /// look-ups.
  struct RecentSend {
    uint64_t Comm = 0;
    int32_t Peer = -1;
    uint8_t Context = 0;
    uint32_t Space = NoIndex, Chan = NoIndex;
    const LinkModel *Link = nullptr;
  };

  /// The network model's answers for one (link, message size). A replay sends few sizes over
  /// few links, and the virtual calls and the table interpolation behind them were a tenth of
  /// a message's instructions; the models' answers depend only on their arguments
  /// (LinkModel), so a direct-mapped table of them changes no result.
  struct LinkCosts {
    const LinkModel *Link = nullptr;
    uint64_t Bytes = 0;
    TimeNs Transfer = 0, SendOverhead = 0, RecvOverhead = 0, Gap = 0;
    uint64_t EagerLimit = 0;
  };
  const LinkCosts &linkCosts(const LinkModel &L, uint64_t Bytes) {
    const uint64_t H = (reinterpret_cast<uintptr_t>(&L) >> 4) * 0x9e3779b97f4a7c15ULL ^
                       Bytes * 0xbf58476d1ce4e5b9ULL;
    LinkCosts &C = CostTable[(H >> 32) & (NumCosts - 1)];
    if (C.Link != &L || C.Bytes != Bytes) [[unlikely]]
      C = {&L,      Bytes,         L.transfer(Bytes), L.sendOverhead(Bytes), L.recvOverhead(Bytes),
           L.gap(), L.eagerLimit()};
    return C;
  }

  /// Hot fields first: at 10^5 ranks each rank's state has left the caches by the time it runs
  /// again, so an event should touch few of its lines, and the engine prefetches those
  /// (HotBytes) a few queue entries ahead. The rest is read at region boundaries, in
  /// diagnostics, or in seed-mode replays.
  struct alignas(64) RankState {
    EventSource *Src = nullptr;
    TimeNs Now = 0;
    uint64_t Record = 0;  ///< events read
    uint64_t Index = 0;   ///< stream index of the event being replayed
    uint64_t CarryPs = 0; ///< sub-nanosecond compute time carried to the next block
    TimeNs LastInject = 0;
    // The wait or probe the rank is blocked in.
    TimeNs WaitStart = 0, WaitMax = 0;
    BlockId WaitBlock = 0;
    uint64_t WaitRecord = 0;
    uint32_t Pending = 0;
    uint32_t CurBlock = 0; ///< BlockTotals index of the event being replayed
    uint32_t WaitBlockIdx = 0;
    uint32_t LastSegment = NoIndex; ///< Segments index of the last segment replayed
    /// The segment from the program's start, held until the next event says whether it ended
    /// at MPI_Init (then it is dropped: docs/estimator.md, "MPI_Init"); its k and time.
    uint32_t StartUpSegment = NoIndex;
    uint64_t StartUpOccurrence = 0;
    TimeNs StartUpNs = 0;
    Status State = Status::Ready;
    bool InRegion = false, RegionSeen = false, RegionClosed = false;
    bool EndPending = false; ///< segment mode: the end call ran; the region ends with it
    bool Injected = false;
    bool SawSegment = false, SawBlock = false;
    bool InitSeen = false;
    bool HasHeld = false;
    bool WaitWildcard = false; ///< the wait includes a wildcard receive (endWait checks it)
    Instance Cur;              ///< the open region instance (InRegion)
    WaitSlots WaitList;
    RequestMap Requests; ///< request id -> slot
    /// Slots this rank freed (requests) or received (envelopes), reused by its next starts and
    /// sends: their lines are known before the rank runs, so they are prefetched with it.
    SlotStack SpareRequests, SpareEnvelopes;
    /// The destinations this rank sent to last, latest first: a halo exchange alternates
    /// between two, and the tables behind spaceOf and channelOf are out of the caches at 10^5
    /// ranks.
    RecentSend Sends[2];
    std::vector<RankSegment> Segments;
    // Cold (the stream's name is asked for only in diagnostics: a string per rank was an
    // allocation and a cache line per rank at 10^5 ranks).
    std::vector<Instance> Instances; ///< closed instances
    uint32_t ProbeSpace = 0;
    int32_t ProbeSource = 0, ProbeTag = 0;
    FlatMap<int64_t> ComputeCache;  ///< block -> picoseconds per execution, -1 if unknown
    FlatMap<uint32_t> SegmentSlots; ///< segmentKey (probed on) -> Segments index
    Event Held; ///< a receive or probe read ahead of global time, replayed on resume
  };
  /// Asks for the cache lines of a rank's state an event touches (the fields before Instances).
  static void prefetchHot(const RankState &S);

  void push(TimeNs Time, QueueKind Kind, uint32_t Index);
  void prefetchAhead();
  void runRank(uint32_t R);
  bool dispatch(uint32_t R, const Event &E);
  bool doCompute(uint32_t R, const Event &E, uint64_t Trips);
  bool doSegment(uint32_t R, const Event &E);
  void chargeSegment(uint32_t R, uint32_t Segment, uint64_t K, TimeNs Ns);
  void endStartUp(uint32_t R, bool AtInit);
  RankSegment &rankSegment(uint32_t R, BlockId From, BlockId To);
  void openRegion(RankState &S);
  void finishRegions();
  void doSend(uint32_t R, const Event &E);
  void doRecv(uint32_t R, const Event &E);
  bool doCompletion(uint32_t R, const Event &E);
  bool doProbe(uint32_t R, const Event &E);
  void arrive(uint32_t Env, TimeNs Now);
  uint32_t channelOf(uint32_t Space, int32_t Source);
  const RecentSend &sendTarget(RankState &S, int32_t Source, const Event &E);
  void dispatchEnvelope(uint32_t Env);
  void drainChannel(uint32_t Ch);
  // Contention (EngineFlows.cpp).
  /// Packed: a rendezvous whose sender packs (Begin its start): within a node all of it but
  /// the contiguous transfer's fixed part streams, at L.packedFlowRate().
  uint32_t newFlow(int32_t Src, int32_t Dst, const LinkModel &L, uint64_t Bytes, TimeNs End,
                   TimeNs Now, bool Packed = false, TimeNs Begin = 0);
  void startFlow(uint32_t F, TimeNs Now);
  void endFlows(TimeNs Now);
  void finishFlow(uint32_t F, TimeNs Now);
  void reshare(TimeNs Now);
  // Matching and completion.
  void match(uint32_t Env, uint32_t Recv, TimeNs Now);
  void complete(uint32_t Slot, TimeNs Done);
  void endWait(uint32_t R, TimeNs End);
  void beginEvent(uint32_t R, const Event &E);
  void endEvent(uint32_t R, BlockId B, EventKind K);
  void closeRegion(RankState &S);
  /// Adds [Begin, End) to the rank's open instance and the block's totals (inline: three or
  /// four charges per message).
  void charge(uint32_t R, SpanKind Kind, uint32_t BlockIdx, TimeNs Begin, TimeNs End) {
    RankState &S = Ranks[R];
    if (!S.InRegion || End <= Begin)
      return;
    const TimeNs D = End - Begin;
    BlockResult &B = BlockTotals[BlockIdx];
    Instance &In = S.Cur;
    switch (Kind) {
    case SpanKind::Compute:
      In.Compute += D;
      B.Compute += D;
      break;
    case SpanKind::Comm:
      In.Comm += D;
      B.Comm += D;
      break;
    case SpanKind::Wait:
      In.Wait += D;
      B.Wait += D;
      break;
    }
    if (Opt.Timeline || Opt.Observer) [[unlikely]]
      chargeHooks(R, Kind, B.Block, Begin, End);
  }
  void chargeHooks(uint32_t R, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End);
  /// Replays cycle through few blocks: the two met last answer most look-ups without hashing
  /// (the last one inline).
  uint32_t blockIndex(BlockId B) {
    if (RecentBlocks[0].Idx != NoIndex && RecentBlocks[0].Block == B)
      return RecentBlocks[0].Idx;
    return blockIndexRecent(B);
  }
  uint32_t blockIndexRecent(BlockId B);
  uint32_t blockIndexSlow(BlockId B);
  uint32_t newRequest(uint32_t R, const Event &E);
  void releaseRequest(uint32_t Slot, uint32_t Owner);
  uint32_t newEnvelope(RankState &S);
  /// A slot of Pool: a freed one if there is one, else a new one at its end.
  template <typename T>
  static uint32_t takeSlot(std::vector<T> &Pool, std::vector<uint32_t> &Free) {
    if (!Free.empty()) {
      uint32_t I = Free.back();
      Free.pop_back();
      return I;
    }
    Pool.emplace_back();
    return uint32_t(Pool.size() - 1);
  }
  uint32_t spaceOf(int32_t Rank, uint64_t Comm, uint8_t Context);
  uint32_t spaceOfSlow(int32_t Rank, uint64_t Comm, uint8_t Context);
  void doRequestFree(uint32_t R, const Event &E);
  static bool matches(int32_t WantSource, int32_t WantTag, int32_t Source, int32_t Tag) {
    return (WantSource == AnySource || WantSource == Source) &&
           (WantTag == AnyTag || WantTag == Tag);
  }
  void fail(uint32_t R, std::string Message);
  void reportStuck();
  std::string describe(const Request &Q) const;

  const ComputeModel &ComputeM;
  const NetworkModel &Net;
  EngineOptions Opt;
  bool Failed = false;
  uint64_t Seq = 0;
  EventQueue Queue; ///< Index: rank (Resume), envelope (Arrival) or flow (FlowStart)
  std::vector<RankState> Ranks;
  std::vector<Request> Requests;
  std::vector<RequestExtra> Extras; ///< by request slot, grown on first use
  std::vector<uint32_t> FreeRequests;
  std::vector<Envelope> Envelopes;
  std::vector<uint32_t> FreeEnvelopes;
  std::vector<Space> Spaces;
  FlatMap<uint32_t> CommIndex;    ///< communicator id -> dense index
  FlatMap<uint32_t> SpaceIndex;   ///< (rank, dense comm, context) -> space
  FlatMap<uint32_t> ChannelIndex; ///< (space, source) -> channel
  std::vector<Channel> Channels;
  /// A rank's spaces (by context & 1) in the communicator it used last: spaceOf's fast path.
  struct RecentSpace {
    uint64_t Comm = 0;
    uint32_t Idx[2] = {NoIndex, NoIndex};
  };
  std::vector<RecentSpace> RecentSpaces;
  // Contention (fluid flows through node links, and through ranks' endpoints within a node);
  // off unless the network model has nodes or endpoint sharing.
  bool Contention = false;
  bool NodeLinks = false;      ///< transfers between nodes share node links
  bool Endpoints = false;      ///< transfers within a node share their ranks' endpoints
  uint32_t EndpointBase = 0;   ///< the link of rank r's endpoint: EndpointBase + r
  std::vector<int32_t> NodeOf; ///< rank -> node (with NodeLinks)
  std::vector<Flow> Flows;
  std::vector<uint32_t> FreeFlows;
  LinkSharing Sharing; ///< node links 2n (egress) and 2n + 1 (ingress) of node n, endpoints
  std::vector<FlowClass> Classes;     ///< by LinkSharing group
  uint64_t FlowEndSeq = ~uint64_t(0); ///< sequence of the valid FlowEnd entry; others are stale
  TimeNs FlowEndAt = 0;               ///< its time
  bool FlowsDirty = false;            ///< a flow started or ended at DirtyTime: reshare
  TimeNs DirtyTime = 0;
  FlatMap<uint32_t> BlockIndex; ///< block -> BlockTotals index
  std::vector<BlockResult> BlockTotals;
  struct RecentBlock {
    BlockId Block = 0;
    uint32_t Idx = NoIndex;
  };
  RecentBlock RecentBlocks[2];    ///< blockIndex's last two answers, latest first
  FlatMap<uint32_t> SegmentIndex; ///< segmentKey (probed on) -> SegmentTotals index
  std::vector<SegmentResult> SegmentTotals;
  bool SegmentMode = false; ///< the compute model has segments: Segment events are charged
  static constexpr size_t NumCosts = 128;
  LinkCosts CostTable[NumCosts];
  Event Ev;
  EstimateResult Result;
};

} // namespace mpiete::estimator

#endif
