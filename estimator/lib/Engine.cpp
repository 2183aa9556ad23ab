// The replay engine's event loop, MPI matching engine and accounting.
#include "EngineImpl.h"
#include "RoundNs.h"
#include "mpiete/TraceFormat.h"

#include <algorithm>
#include <cmath>

namespace mpiete::estimator {

namespace {

std::string peerName(int32_t Rank) {
  if (Rank == AnySource)
    return "any rank";
  return "rank " + std::to_string(Rank);
}

std::string tagName(int32_t Tag) {
  return Tag == AnyTag ? "any tag" : "tag " + std::to_string(Tag);
}

/// How many end-of-run problems are spelled out; the rest are counted.
constexpr size_t MaxStuckReports = 50;

} // namespace

std::vector<BlockResult> EstimateResult::topBlocks(size_t N) const {
  std::vector<BlockResult> Sorted = Blocks;
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const BlockResult &A, const BlockResult &B) {
    return A.total() != B.total() ? A.total() > B.total() : A.Block < B.Block;
  });
  if (Sorted.size() > N)
    Sorted.resize(N);
  return Sorted;
}

std::vector<SegmentResult> EstimateResult::topSegments(size_t N) const {
  std::vector<SegmentResult> Sorted = Segments;
  std::stable_sort(
      Sorted.begin(), Sorted.end(),
      [](const SegmentResult &A, const SegmentResult &B) { return A.Compute > B.Compute; });
  if (Sorted.size() > N)
    Sorted.resize(N);
  return Sorted;
}

ReplayAssumptions::~ReplayAssumptions() = default;
ReplayObserver::~ReplayObserver() = default;

Engine::Engine(const ComputeModel &Compute, const NetworkModel &Network, EngineOptions Options)
    : State(std::make_unique<Impl>(Compute, Network, std::move(Options))) {}

Engine::~Engine() = default;

EstimateResult Engine::run(std::span<EventSource *const> Sources) { return State->run(Sources); }

Engine::Impl::Impl(const ComputeModel &Compute, const NetworkModel &Network, EngineOptions Options)
    : ComputeM(Compute), Net(Network), Opt(std::move(Options)) {}

void Engine::Impl::push(TimeNs Time, QueueKind Kind, uint32_t Index) {
  Queue.push({Time, Seq++, uint32_t(Kind), Index});
}

EstimateResult Engine::Impl::run(std::span<EventSource *const> Sources) {
  SegmentMode = ComputeM.hasSegments();
  Ranks.resize(Sources.size());
  RecentSpaces.assign(Sources.size(), RecentSpace());
  for (uint32_t R = 0; R < Ranks.size(); ++R) {
    RankState &S = Ranks[R];
    S.Src = Sources[R];
    if (!Opt.RegionStart) {
      // Until an Init shows up, the region starts with the stream (equation 1: start = 0).
      openRegion(S);
    }
    push(0, QueueKind::Resume, R);
  }
  int Nodes = Net.nodeCount();
  double LinkCap = Net.linkCapacity(), EndpointCap = Net.endpointCapacity();
  NodeLinks = Nodes > 0 && LinkCap > 0;
  Endpoints = EndpointCap > 0 && Ranks.size() > 1;
  Contention = NodeLinks || Endpoints;
  if (NodeLinks) {
    NodeOf.resize(Ranks.size());
    for (uint32_t R = 0; R < Ranks.size(); ++R) {
      int N = Net.nodeOf(int(R));
      NodeOf[R] = N >= 0 && N < Nodes ? N : -1;
    }
    for (int N = 0; N < Nodes * 2; ++N)
      Sharing.addLink(LinkCap);
  }
  if (Endpoints) {
    EndpointBase = NodeLinks ? uint32_t(Nodes) * 2 : 0;
    for (uint32_t R = 0; R < Ranks.size(); ++R)
      Sharing.addLink(EndpointCap);
  }

  while (!Failed) {
    // Flows started or ended at DirtyTime: their rates are shared out again once everything
    // else happening at that time has happened.
    if (FlowsDirty && (Queue.empty() || Queue.front().Time > DirtyTime)) {
      reshare(DirtyTime);
      continue;
    }
    if (Queue.empty())
      break;
    const EventQueue::Entry Top = Queue.pop();
    prefetchAhead();
    switch (QueueKind(Top.Kind)) {
    case QueueKind::Resume:
      runRank(Top.Index);
      break;
    case QueueKind::Arrival:
      arrive(Top.Index, Top.Time);
      break;
    case QueueKind::FlowStart:
      startFlow(Top.Index, Top.Time);
      break;
    case QueueKind::FlowEnd:
      if (Top.Seq == FlowEndSeq) { // else rescheduled since
        FlowEndSeq = ~uint64_t(0);
        endFlows(Top.Time);
      }
      break;
    }
  }
  if (!Failed)
    reportStuck();
  if (!Failed && !SegmentMode && !ComputeM.empty()) {
    bool Segments = false, Blocks = false;
    for (const RankState &S : Ranks) {
      Segments |= S.SawSegment;
      Blocks |= S.SawBlock;
    }
    if (Segments && !Blocks)
      Result.Errors.push_back(
          {"", "the traces are of a segment-mode build (the computation between MPI calls, no "
               "compute block records) but the compute base data has only compute blocks "
               "(partition: blocks, from a --mpiete-seed-blocks build or a version-1 machine "
               "file): collect both probes from the same build"});
  }
  if (Opt.Timeline)
    Opt.Timeline->finish();

  finishRegions();
  Result.Blocks = BlockTotals;
  std::sort(Result.Blocks.begin(), Result.Blocks.end(),
            [](const BlockResult &A, const BlockResult &B) { return A.Block < B.Block; });
  Result.Segments = SegmentTotals;
  std::sort(Result.Segments.begin(), Result.Segments.end(),
            [](const SegmentResult &A, const SegmentResult &B) {
              return A.From != B.From ? A.From < B.From : A.To < B.To;
            });
  Result.Ok = Result.Errors.empty();
  return std::move(Result);
}

namespace {

/// Asks for the cache lines of [P, P + Bytes) (a hint: no effect on any result).
void prefetchBytes(const void *P, size_t Bytes) {
  const char *C = static_cast<const char *>(P);
  for (size_t I = 0; I < Bytes; I += 64)
    __builtin_prefetch(C + I, 1);
}

/// To = From for a receive or probe held back, which never lists completed requests: their
/// vector is left alone (swapping whole events was a tenth of runRank's instructions).
void copyHeld(Event &To, const Event &From) {
  static_assert(sizeof(Event) == 64 + sizeof(std::vector<CompletedRequest>),
                "copyHeld copies every field of Event but Completed: add the new one here");
  To.Kind = From.Kind;
  To.Mode = From.Mode;
  To.Context = From.Context;
  To.Found = From.Found;
  To.SameBuffer = From.SameBuffer;
  To.Layout = From.Layout;
  To.Block = From.Block;
  To.From = From.From;
  To.Peer = From.Peer;
  To.Tag = From.Tag;
  To.Comm = From.Comm;
  To.Count = From.Count;
  To.Request = From.Request;
  To.Index = From.Index;
  To.Completed.clear();
}

} // namespace

void Engine::Impl::prefetchHot(const RankState &S) {
  prefetchBytes(&S, size_t(reinterpret_cast<const char *>(&S.Instances) -
                           reinterpret_cast<const char *>(&S)));
}

void Engine::Impl::prefetchAhead() {
  // At 10^5 ranks and more a replay touches each rank's state, its matching spaces, requests
  // and envelopes once per round, long after they left the caches; the queue's next entries
  // say whose they are. Each hop of a chain (envelope -> space -> posted request and receiver)
  // is prefetched one stage after the hop it reads, so the reads here hit lines the stage
  // before asked for. Hints only: nothing here changes what the replay computes.
  constexpr size_t Far = 12, Mid = 8, Near = 4;
  if (const EventQueue::Entry *E = Queue.ahead(Far)) {
    if (QueueKind(E->Kind) == QueueKind::Resume) {
      prefetchHot(Ranks[E->Index]);
      __builtin_prefetch(&RecentSpaces[E->Index], 1);
    } else if (QueueKind(E->Kind) == QueueKind::Arrival) {
      prefetchBytes(&Envelopes[E->Index], sizeof(Envelope));
    }
  }
  if (const EventQueue::Entry *E = Queue.ahead(Mid)) {
    if (QueueKind(E->Kind) == QueueKind::Resume) {
      const RankState &S = Ranks[E->Index];
      prefetchBytes(S.Src, 128);
      if (!S.Segments.empty())
        prefetchBytes(S.Segments.data(), S.Segments.size() * sizeof(RankSegment));
      for (uint32_t I = 0; I < S.SpareRequests.Size; ++I)
        prefetchBytes(&Requests[S.SpareRequests.Slots[I]], sizeof(Request));
      for (uint32_t I = 0; I < S.SpareEnvelopes.Size; ++I)
        prefetchBytes(&Envelopes[S.SpareEnvelopes.Slots[I]], sizeof(Envelope));
      for (const RecentSend &T : S.Sends)
        if (T.Chan != NoIndex)
          __builtin_prefetch(&Channels[T.Chan], 1);
      if (uint32_t Own = RecentSpaces[E->Index].Idx[0]; Own != NoIndex)
        __builtin_prefetch(&Spaces[Own], 1);
    } else if (QueueKind(E->Kind) == QueueKind::Arrival) {
      __builtin_prefetch(&Spaces[Envelopes[E->Index].Space], 1);
    }
  }
  if (const EventQueue::Entry *E = Queue.ahead(Near)) {
    if (QueueKind(E->Kind) == QueueKind::Arrival) {
      const Space &P = Spaces[Envelopes[E->Index].Space];
      if (P.PostedHead != NoIndex)
        prefetchBytes(&Requests[P.PostedHead], sizeof(Request));
      prefetchHot(Ranks[uint32_t(P.Rank)]);
    } else if (QueueKind(E->Kind) == QueueKind::Resume) {
      if (uint32_t Own = RecentSpaces[E->Index].Idx[0]; Own != NoIndex)
        if (uint32_t V = Spaces[Own].UnexpHead; V != NoIndex)
          prefetchBytes(&Envelopes[V], sizeof(Envelope));
    }
  }
}

void Engine::Impl::runRank(uint32_t R) {
  RankState &S = Ranks[R];
  // The popped entry was the earliest, so the first event always runs. After that the rank
  // keeps going without touching the queue: compute, sends and waits whose requests are all
  // complete give the same result whenever they run, because they only read the rank's own
  // state. Receives and probes read the matching engine, which must first have seen every
  // envelope arriving before them, so one of those waits for global time to catch up.
  bool First = true;
  for (;;) {
    if (S.HasHeld) {
      copyHeld(Ev, S.Held);
      S.HasHeld = false;
    } else if (S.Src->next(Ev)) {
      ++S.Record;
      ++Result.Events;
      if (S.StartUpSegment != NoIndex) [[unlikely]]
        endStartUp(R, Ev.Kind == EventKind::Init);
    } else {
      if (S.Src->failed()) {
        fail(R, "the trace ends on a read error");
        return;
      }
      if (S.StartUpSegment != NoIndex)
        endStartUp(R, false);
      S.State = Status::Done;
      closeRegion(S);
      return;
    }
    bool ReadsMatching =
        (Ev.Kind == EventKind::RecvStart || (Ev.Kind == EventKind::Probe && Ev.Found)) &&
        Ev.Peer != ProcNull;
    bool Behind =
        (!Queue.empty() && S.Now >= Queue.front().Time) || (FlowsDirty && S.Now >= DirtyTime);
    if (!First && ReadsMatching && Behind) {
      copyHeld(S.Held, Ev);
      S.HasHeld = true;
      push(S.Now, QueueKind::Resume, R);
      return;
    }
    First = false;
    S.Index = Ev.Index;
    if (!dispatch(R, Ev))
      return;
  }
}

uint32_t Engine::Impl::blockIndexRecent(BlockId B) {
  if (RecentBlocks[1].Idx != NoIndex && RecentBlocks[1].Block == B) {
    std::swap(RecentBlocks[0], RecentBlocks[1]);
    return RecentBlocks[0].Idx;
  }
  uint32_t Idx = blockIndexSlow(B);
  RecentBlocks[1] = RecentBlocks[0];
  RecentBlocks[0] = {B, Idx};
  return Idx;
}

uint32_t Engine::Impl::blockIndexSlow(BlockId B) {
  bool Inserted = false;
  uint32_t &Idx = BlockIndex.getOrInsert(B, 0, &Inserted);
  if (Inserted) {
    Idx = uint32_t(BlockTotals.size());
    BlockTotals.push_back(BlockResult{B, 0, 0, 0, 0});
  }
  return Idx;
}

void Engine::Impl::finishRegions() {
  // The i-th instance is the i-th on every rank that reached it.
  size_t N = 0;
  for (RankState &S : Ranks) {
    closeRegion(S);
    N = std::max(N, S.Instances.size());
  }
  Result.Instances.assign(N, RegionInstanceResult());
  for (const RankState &S : Ranks)
    for (size_t I = 0; I < S.Instances.size(); ++I) {
      RegionInstanceResult &X = Result.Instances[I];
      const Instance &In = S.Instances[I];
      X.Start = X.Ranks ? std::min(X.Start, In.Start) : In.Start;
      X.End = X.Ranks ? std::max(X.End, In.End) : In.End;
      ++X.Ranks;
    }
  Result.InstancesTotal = 0;
  for (const RegionInstanceResult &X : Result.Instances)
    Result.InstancesTotal += X.predicted();
  Result.RegionInstance = Opt.RegionInstance;
  // Which instances the result means: [First, Last).
  size_t First = 0, Last = N;
  if (Opt.RegionInstance == -1 && N > 0)
    First = N - 1;
  else if (Opt.RegionInstance >= 1) {
    First = size_t(Opt.RegionInstance) - 1;
    Last = First + 1;
    if (First >= N && !Failed && N > 0)
      Result.Errors.push_back({"", "--region-instance " + std::to_string(Opt.RegionInstance) +
                                       ": the region has " + std::to_string(N) +
                                       (N == 1 ? " instance" : " instances")});
  }
  Result.Predicted = 0;
  if (Opt.RegionInstance == 0)
    Result.Predicted = Result.InstancesTotal;
  else if (First < N)
    Result.Predicted = Result.Instances[First].predicted();
  for (uint32_t R = 0; R < Ranks.size(); ++R) {
    const RankState &S = Ranks[R];
    RankResult RR;
    RR.Rank = int(R);
    RR.Events = S.Record;
    for (size_t I = First; I < std::min(Last, S.Instances.size()); ++I) {
      const Instance &In = S.Instances[I];
      if (!RR.Reached)
        RR.Start = In.Start;
      RR.Reached = true;
      RR.End = In.End;
      RR.Compute += In.Compute;
      RR.Comm += In.Comm;
      RR.Wait += In.Wait;
    }
    Result.Ranks.push_back(RR);
  }
  if (N == 0 && !Failed && Opt.RegionStart)
    Result.Errors.push_back(
        {"", "region start block '" + formatBlock(*Opt.RegionStart) + "' was never executed"});
}

void Engine::Impl::openRegion(RankState &S) {
  S.InRegion = S.RegionSeen = true;
  S.Cur = Instance{S.Now, S.Now, 0, 0, 0};
}

void Engine::Impl::beginEvent(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  if (E.Kind == EventKind::Segment) {
    // Segment mode: the call the region ends at ended where the next computation begins.
    if (S.EndPending) {
      S.EndPending = false;
      closeRegion(S);
    }
    return; // a segment's time is its own (SegmentTotals), not a block's
  }
  // The region starts at a call (or block) of its start site: the computation before it (the
  // Segment event naming that call as its end) is not in it.
  if (!S.InRegion && Opt.RegionStart && E.Block == *Opt.RegionStart)
    openRegion(S);
  if (E.Kind == EventKind::Finalize && (!Opt.RegionEnd || S.EndPending)) {
    S.EndPending = false;
    closeRegion(S);
  }
  S.CurBlock = blockIndex(E.Block);
  if (S.InRegion && E.Kind != EventKind::LocalCopy) // part of its collective's execution
    ++BlockTotals[S.CurBlock].Executions;
}

void Engine::Impl::endEvent(uint32_t R, BlockId B, EventKind K) {
  RankState &S = Ranks[R];
  if (K == EventKind::Init && !Opt.RegionStart && !S.InitSeen && S.InRegion) {
    // The default region starts after Init: whatever ran before it is not part of the run.
    S.InitSeen = true;
    S.Cur = Instance{S.Now, S.Now, 0, 0, 0};
  }
  if (Opt.RegionEnd && B == *Opt.RegionEnd && K != EventKind::Segment && S.InRegion) {
    // A call writes several records (a collective its lowered messages, a send its wait):
    // with segments the call's end is known (the next segment begins), so the region ends
    // there; seed-mode traces end it with the end block's record, as always.
    if (S.SawSegment && SegmentMode)
      S.EndPending = true;
    else
      closeRegion(S);
  }
}

void Engine::Impl::closeRegion(RankState &S) {
  if (!S.InRegion)
    return;
  S.InRegion = false;
  S.RegionClosed = true;
  S.EndPending = false;
  S.Cur.End = S.Now;
  S.Instances.push_back(S.Cur);
}

void Engine::Impl::chargeHooks(uint32_t R, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) {
  const RankState &S = Ranks[R];
  if (Opt.Timeline && Opt.Timeline->wantsEvents())
    Opt.Timeline->span(int(R), Kind, Block, Begin, End);
  if (Opt.Observer)
    Opt.Observer->interval(int(R), Kind == SpanKind::Wait ? S.WaitRecord : S.Index, Kind, 0, Block,
                           Begin, End);
}

bool Engine::Impl::dispatch(uint32_t R, const Event &E) {
  beginEvent(R, E);
  switch (E.Kind) {
  case EventKind::Compute:
    if (!doCompute(R, E, 1))
      return false;
    break;
  case EventKind::Loop:
    if (!doCompute(R, E, E.Count))
      return false;
    break;
  case EventKind::Segment:
    if (!doSegment(R, E))
      return false;
    break;
  case EventKind::SendStart:
  case EventKind::RecvStart:
    if (E.Peer != ProcNull && E.Peer != AnySource &&
        (E.Peer < 0 || size_t(E.Peer) >= Ranks.size())) {
      fail(R, "peer rank " + std::to_string(E.Peer) + " in block '" + formatBlock(E.Block) +
                  "' is outside the " + std::to_string(Ranks.size()) + " traced ranks");
      return false;
    }
    if (E.Kind == EventKind::SendStart) {
      if (E.Peer == AnySource) {
        fail(R, "send in block '" + formatBlock(E.Block) + "' has no destination");
        return false;
      }
      doSend(R, E);
    } else {
      doRecv(R, E);
    }
    break;
  case EventKind::Completion:
    return doCompletion(R, E);
  case EventKind::Probe:
    return doProbe(R, E);
  case EventKind::RequestFree:
    doRequestFree(R, E);
    break;
  case EventKind::LocalCopy: {
    // The rank's CPU copies its own block: its time, like a send's overhead (piece by piece
    // when its datatype has gaps).
    const TimeNs Copy = Net.link(int(R), int(R)).localCopy(E.Count, E.Layout);
    if (Copy > 0) {
      const TimeNs Start = Ranks[R].Now;
      Ranks[R].Now += Copy;
      charge(R, SpanKind::Comm, Ranks[R].CurBlock, Start, Ranks[R].Now);
    }
    break;
  }
  case EventKind::Init:
  case EventKind::Finalize:
    break;
  }
  endEvent(R, E.Block, E.Kind);
  return true;
}

bool Engine::Impl::doCompute(uint32_t R, const Event &E, uint64_t Trips) {
  RankState &S = Ranks[R];
  S.SawBlock = true;
  int64_t *Ps = S.ComputeCache.find(E.Block);
  if (!Ps) {
    std::optional<double> Sec = ComputeM.secondsPerExecution(int(R), E.Block);
    int64_t V = Sec ? std::max<int64_t>(0, std::llround(*Sec * 1e12)) : -1;
    Ps = &S.ComputeCache.getOrInsert(E.Block, V);
  }
  if (*Ps < 0 && !ComputeM.hasBlocks()) {
    fail(R, "the trace has compute block records (block '" + formatBlock(E.Block) +
                "': a --mpiete-seed-blocks build) but the compute base data has only segments "
                "(partition: segments): collect both probes from the same build");
    return false;
  }
  if (*Ps < 0) {
    fail(R, "no compute time for block '" + formatBlock(E.Block) + "' on rank " +
                std::to_string(R) + " in the compute base data");
    return false;
  }
  // Picoseconds with a carried remainder, so many sub-nanosecond blocks still add up.
  TimeNs Ns = takeWholeNs((unsigned __int128)uint64_t(*Ps) * Trips + S.CarryPs, S.CarryPs);
  if (Opt.Assume)
    Ns = Opt.Assume->compute(int(R), S.Index, 0, E.Block, Ns);
  charge(R, SpanKind::Compute, S.CurBlock, S.Now, S.Now + Ns);
  S.Now += Ns;
  return true;
}

Engine::Impl::RankSegment &Engine::Impl::rankSegment(uint32_t R, BlockId From, BlockId To) {
  RankState &S = Ranks[R];
  for (uint64_t Key = segmentKey(From, To);; Key = segmentKeyNext(Key)) {
    bool Inserted = false;
    uint32_t &Slot = S.SegmentSlots.getOrInsert(Key, 0, &Inserted);
    if (!Inserted) {
      RankSegment &G = S.Segments[Slot];
      if (G.From == From && G.To == To)
        return G;
      continue; // another segment holds this key
    }
    Slot = uint32_t(S.Segments.size());
    RankSegment G;
    G.From = From;
    G.To = To;
    G.Times = ComputeM.segment(int(R), From, To);
    for (uint64_t TKey = segmentKey(From, To);; TKey = segmentKeyNext(TKey)) {
      bool New = false;
      uint32_t &T = SegmentIndex.getOrInsert(TKey, 0, &New);
      if (New) {
        T = uint32_t(SegmentTotals.size());
        SegmentTotals.push_back(SegmentResult{From, To, 0, 0, 0, 0});
      } else if (SegmentTotals[T].From != From || SegmentTotals[T].To != To) {
        continue;
      }
      G.Total = T;
      break;
    }
    S.Segments.push_back(G);
    return S.Segments.back();
  }
}

bool Engine::Impl::doSegment(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  S.SawSegment = true;
  if (!SegmentMode) {
    // Compute base data of blocks: the trace's call boundaries carry no time of their own
    // (seed-mode traces have compute block records); not counted as replayed.
    --Result.Events;
    --S.Record;
    return true;
  }
  // One lookup per (rank, segment) ever; after that the segment that followed the last one
  // (a loop's segments recur in order), else a flat-map probe.
  RankSegment *Hint = nullptr;
  if (S.LastSegment != NoIndex) {
    uint32_t H = S.Segments[S.LastSegment].NextHint;
    if (H != NoIndex && S.Segments[H].From == E.From && S.Segments[H].To == E.Block)
      Hint = &S.Segments[H];
  }
  RankSegment &G = Hint ? *Hint : rankSegment(R, E.From, E.Block);
  const uint32_t GIdx = uint32_t(&G - S.Segments.data());
  if (!Hint && S.LastSegment != NoIndex)
    S.Segments[S.LastSegment].NextHint = GIdx;
  S.LastSegment = GIdx;
  if (!G.Times) {
    fail(R, "no compute time for segment '" + formatBlock(E.From) + " -> " + formatBlock(E.Block) +
                "' on rank " + std::to_string(R) + " in the compute base data");
    return false;
  }
  const uint64_t K = G.Occurrences++;
  const double Sec = G.Times->seconds(K);
  const int64_t Ps = std::max<int64_t>(0, roundNs(Sec * 1e12));
  TimeNs Ns = takeWholeNs((unsigned __int128)uint64_t(Ps) + S.CarryPs, S.CarryPs);
  if (Opt.Assume)
    Ns = Opt.Assume->compute(int(R), S.Index, E.From, E.Block, Ns);
  if (E.From == mpiete::ProgramStart) [[unlikely]] {
    // Held until the next event: a segment that ends at MPI_Init is not replayed
    // (endStartUp).
    S.StartUpSegment = GIdx;
    S.StartUpOccurrence = K;
    S.StartUpNs = Ns;
    return true;
  }
  chargeSegment(R, GIdx, K, Ns);
  return true;
}

void Engine::Impl::chargeSegment(uint32_t R, uint32_t Segment, uint64_t K, TimeNs Ns) {
  RankState &S = Ranks[R];
  const RankSegment &G = S.Segments[Segment];
  const TimeNs Begin = S.Now;
  S.Now += Ns;
  if (!S.InRegion)
    return;
  SegmentResult &T = SegmentTotals[G.Total];
  ++T.Executions;
  T.Compute += Ns;
  if (K >= G.Times->Executions) [[unlikely]] {
    ++T.Unmeasured;
    T.UnmeasuredCompute += Ns;
  }
  S.Cur.Compute += Ns;
  if (Opt.Timeline && Ns > 0 && Opt.Timeline->wantsEvents())
    Opt.Timeline->span(int(R), SpanKind::Compute, G.To, Begin, S.Now);
  if (Opt.Observer && Ns > 0)
    Opt.Observer->interval(int(R), S.Index, SpanKind::Compute, G.From, G.To, Begin, S.Now);
}

void Engine::Impl::endStartUp(uint32_t R, bool AtInit) {
  RankState &S = Ranks[R];
  const uint32_t G = S.StartUpSegment;
  S.StartUpSegment = NoIndex;
  // The computation from the program's start to MPI_Init is not replayed: MPI_Init exchanges
  // the processes' addresses (a fence in Open MPI and MPICH), so the ranks leave it together
  // however late each reached it, and nothing before it is in any region. Replayed, a
  // start-up slowed on one rank (64 processes launched on two processors) delayed every rank
  // at the first collective (docs/estimator.md, "MPI_Init"). A first segment that ends at
  // another call (a trace without MPI_Init) is charged as any other.
  if (!AtInit)
    chargeSegment(R, G, S.StartUpOccurrence, S.StartUpNs);
}

uint32_t Engine::Impl::newRequest(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  uint32_t Slot = S.SpareRequests.Size > 0 ? S.SpareRequests.Slots[--S.SpareRequests.Size]
                                           : takeSlot(Requests, FreeRequests);
  // Every field written once (assigning Request() first cost as much again: a zeroed
  // temporary copied over the line).
  static_assert(sizeof(Request) == 64, "newRequest writes every field: add the new one here");
  Request &Q = Requests[Slot];
  Q.Start = S.Now;
  Q.Done = 0;
  Q.Block = E.Block;
  Q.Bytes = E.Count;
  Q.Comm = E.Comm;
  Q.Owner = int32_t(R);
  Q.Peer = E.Peer;
  Q.Tag = E.Tag;
  Q.NextPosted = NoIndex;
  Q.Context = E.Context;
  Q.IsRecv = Q.Known = Q.Waited = Q.Detached = false;
  Q.SameBuffer = E.SameBuffer;
  Q.Layout = E.Layout;
  if (Opt.Observer) // the only reader of the partner fields
    extra(Slot) = RequestExtra();
  bool Inserted = false;
  uint32_t &Mapped = S.Requests.getOrInsert(E.Request, Slot, &Inserted);
  if (!Inserted) {
    // The id is reused while the old request was never waited for (MPI_Request_free): the
    // old one lives on unnamed until its message is matched.
    uint32_t Old = Mapped;
    Mapped = Slot;
    Requests[Old].Detached = true;
    if (Requests[Old].Known)
      releaseRequest(Old, R);
  }
  return Slot;
}

void Engine::Impl::releaseRequest(uint32_t Slot, uint32_t Owner) {
  // Back to its owner first, whose next start reuses it (prefetched with the owner's state);
  // the slot itself is not touched (it is cold by the time a wait ends).
  if (!Ranks[Owner].SpareRequests.push(Slot))
    FreeRequests.push_back(Slot);
}

uint32_t Engine::Impl::newEnvelope(RankState &S) {
  if (S.SpareEnvelopes.Size > 0)
    return S.SpareEnvelopes.Slots[--S.SpareEnvelopes.Size];
  return takeSlot(Envelopes, FreeEnvelopes);
}

uint32_t Engine::Impl::spaceOf(int32_t Rank, uint64_t Comm, uint8_t Context) {
  // Nearly every message of a rank uses one communicator: its spaces are kept by rank, which
  // saves two hash look-ups (cache misses at 10^5 ranks) per send and receive.
  if (uint32_t(Rank) < RecentSpaces.size()) {
    RecentSpace &C = RecentSpaces[uint32_t(Rank)];
    uint32_t &Idx = C.Idx[Context & 1];
    if (Idx != NoIndex && C.Comm == Comm)
      return Idx;
    uint32_t Found = spaceOfSlow(Rank, Comm, Context);
    if (C.Comm != Comm) {
      C.Comm = Comm;
      C.Idx[0] = C.Idx[1] = NoIndex;
    }
    Idx = Found;
    return Found;
  }
  return spaceOfSlow(Rank, Comm, Context);
}

uint32_t Engine::Impl::spaceOfSlow(int32_t Rank, uint64_t Comm, uint8_t Context) {
  // Communicator ids are 64-bit hashes: numbered densely first so a key fits 64 bits.
  uint32_t &Dense = CommIndex.getOrInsert(Comm, uint32_t(CommIndex.size()));
  uint64_t Key = (uint64_t(uint32_t(Rank)) << 33) | (uint64_t(Dense) << 1) | (Context & 1);
  bool Inserted = false;
  uint32_t &Idx = SpaceIndex.getOrInsert(Key, 0, &Inserted);
  if (Inserted) {
    Idx = uint32_t(Spaces.size());
    Space P;
    P.Rank = Rank;
    P.Comm = Comm;
    P.Context = Context;
    Spaces.push_back(P);
  }
  return Idx;
}

void Engine::Impl::doSend(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  uint32_t Slot = newRequest(R, E);
  if (E.Peer == ProcNull) {
    complete(Slot, S.Now);
    return;
  }
  const RecentSend &T = sendTarget(S, int32_t(R), E);
  const LinkModel &L = *T.Link;
  const LinkCosts &C = linkCosts(L, E.Count);
  const TimeNs Overhead = C.SendOverhead;
  TimeNs Start = S.Now;
  TimeNs Inject = S.Injected ? std::max(Start, S.LastInject + C.Gap) : Start;
  S.LastInject = Inject;
  S.Injected = true;

  bool Rendezvous = E.Count > C.EagerLimit || E.Mode == SendMode::Synchronous;
  bool SendWaits = Rendezvous && E.Mode != SendMode::Buffered;
  // A rendezvous message announces itself with an empty control message; the data follows
  // once the receive is matched.
  const TimeNs Transfer = Rendezvous ? linkCosts(L, 0).Transfer : C.Transfer;
  uint32_t Env = newEnvelope(S);
  Envelope &V = Envelopes[Env];
  V.Space = T.Space;
  V.Source = int32_t(R);
  V.Tag = E.Tag;
  V.Bytes = E.Count;
  V.Block = E.Block;
  V.Inject = Inject;
  V.Rendezvous = Rendezvous;
  V.Layout = E.Layout;
  V.Next = NoIndex;
  V.SendReq = SendWaits ? Slot : NoIndex;
  V.Arrival = Inject + std::max<TimeNs>(0, Transfer);
  V.Channel = T.Chan;
  V.InTransit = false;
  if (!Rendezvous) {
    // Under contention the data of an eager message streams as a flow: it arrives when the
    // flow ends.
    uint32_t F = newFlow(int32_t(R), E.Peer, L, E.Count, V.Arrival, S.Now);
    if (F != NoIndex) {
      Flows[F].Env = Env;
      Envelopes[Env].InTransit = true;
    }
  }
  ++Result.Messages;

  S.Now += Overhead;
  charge(R, SpanKind::Comm, S.CurBlock, Start, S.Now);
  if (!SendWaits)
    complete(Slot, Start);
  dispatchEnvelope(Env);
}

uint32_t Engine::Impl::channelOf(uint32_t Space, int32_t Source) {
  bool Inserted = false;
  uint32_t &Ch = ChannelIndex.getOrInsert((uint64_t(Space) << 32) | uint32_t(Source), 0, &Inserted);
  if (Inserted) {
    Ch = uint32_t(Channels.size());
    Channels.emplace_back();
  }
  return Ch;
}

const Engine::Impl::RecentSend &Engine::Impl::sendTarget(RankState &S, int32_t Source,
                                                         const Event &E) {
  auto Same = [&](const RecentSend &T) {
    return T.Space != NoIndex && T.Peer == E.Peer && T.Comm == E.Comm && T.Context == E.Context;
  };
  if (Same(S.Sends[0]))
    return S.Sends[0];
  if (Same(S.Sends[1])) {
    std::swap(S.Sends[0], S.Sends[1]);
    return S.Sends[0];
  }
  RecentSend T;
  T.Peer = E.Peer;
  T.Comm = E.Comm;
  T.Context = E.Context;
  T.Space = spaceOf(E.Peer, E.Comm, E.Context);
  T.Chan = channelOf(T.Space, Source);
  T.Link = &Net.link(Source, E.Peer);
  S.Sends[1] = S.Sends[0];
  S.Sends[0] = T;
  return S.Sends[0];
}

void Engine::Impl::dispatchEnvelope(uint32_t Env) {
  Envelope &V = Envelopes[Env];
  Channel &C = Channels[V.Channel];
  if (C.Head == NoIndex && !V.InTransit) {
    // Nothing ahead of it on its channel (no contention, or every earlier one delivered):
    // what drainChannel would do, without queueing it first.
    V.Arrival = std::max(V.Arrival, C.Last);
    C.Last = V.Arrival;
    push(V.Arrival, QueueKind::Arrival, Env);
    return;
  }
  V.ChannelNext = NoIndex;
  if (C.Tail == NoIndex)
    C.Head = Env;
  else
    Envelopes[C.Tail].ChannelNext = Env;
  C.Tail = Env;
  drainChannel(V.Channel);
}

void Engine::Impl::drainChannel(uint32_t Ch) {
  Channel &C = Channels[Ch];
  // Non-overtaking: along one channel envelopes never arrive before an earlier one, so one
  // still in transit holds back those sent after it.
  while (C.Head != NoIndex && !Envelopes[C.Head].InTransit) {
    uint32_t Env = C.Head;
    Envelope &V = Envelopes[Env];
    C.Head = V.ChannelNext;
    if (C.Head == NoIndex)
      C.Tail = NoIndex;
    V.Arrival = std::max(V.Arrival, C.Last);
    C.Last = V.Arrival;
    push(V.Arrival, QueueKind::Arrival, Env);
  }
}

void Engine::Impl::doRecv(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  uint32_t Slot = newRequest(R, E);
  Requests[Slot].IsRecv = true;
  if (Requests[Slot].wildcard())
    ++Result.WildcardReceives;
  if (E.Peer == ProcNull) {
    if (Requests[Slot].wildcard()) {
      extra(Slot).PredSource = ProcNull;
      extra(Slot).PredTag = AnyTag;
    }
    complete(Slot, S.Now);
    return;
  }
  TimeNs Post = S.Now;
  uint32_t Sp = spaceOf(int32_t(R), E.Comm, E.Context);
  Space &P = Spaces[Sp];
  uint32_t Prev = NoIndex;
  bool Matched = false;
  for (uint32_t V = P.UnexpHead; V != NoIndex; Prev = V, V = Envelopes[V].Next) {
    if (!matches(E.Peer, E.Tag, Envelopes[V].Source, Envelopes[V].Tag))
      continue;
    uint32_t Next = Envelopes[V].Next;
    if (Prev == NoIndex)
      P.UnexpHead = Next;
    else
      Envelopes[Prev].Next = Next;
    if (P.UnexpTail == V)
      P.UnexpTail = Prev;
    match(V, Slot, Post);
    Matched = true;
    break;
  }
  if (!Matched) {
    if (P.PostedTail == NoIndex)
      P.PostedHead = Slot;
    else
      Requests[P.PostedTail].NextPosted = Slot;
    P.PostedTail = Slot;
  }
  // A wildcard receive does not know its sender yet: it pays the overhead of the rank's own
  // node.
  const LinkModel &L = Net.link(E.Peer == AnySource ? int(R) : E.Peer, int(R));
  S.Now += linkCosts(L, E.Count).RecvOverhead;
  charge(R, SpanKind::Comm, S.CurBlock, Post, S.Now);
}

void Engine::Impl::arrive(uint32_t Env, TimeNs Now) {
  Envelope &V = Envelopes[Env];
  Space &P = Spaces[V.Space];
  uint32_t Prev = NoIndex;
  for (uint32_t Q = P.PostedHead; Q != NoIndex; Prev = Q, Q = Requests[Q].NextPosted) {
    if (!matches(Requests[Q].Peer, Requests[Q].Tag, V.Source, V.Tag))
      continue;
    uint32_t Next = Requests[Q].NextPosted;
    if (Prev == NoIndex)
      P.PostedHead = Next;
    else
      Requests[Prev].NextPosted = Next;
    if (P.PostedTail == Q)
      P.PostedTail = Prev;
    match(Env, Q, Now);
    return;
  }
  V.Next = NoIndex;
  if (P.UnexpTail == NoIndex)
    P.UnexpHead = Env;
  else
    Envelopes[P.UnexpTail].Next = Env;
  P.UnexpTail = Env;

  RankState &S = Ranks[uint32_t(P.Rank)];
  if (S.State == Status::Probing && S.ProbeSpace == V.Space &&
      matches(S.ProbeSource, S.ProbeTag, V.Source, V.Tag)) {
    endWait(uint32_t(P.Rank), std::max(S.WaitStart, Now));
    push(S.Now, QueueKind::Resume, uint32_t(P.Rank));
  }
}

void Engine::Impl::match(uint32_t Env, uint32_t Recv, TimeNs Now) {
  const Envelope V = Envelopes[Env];
  Request &Q = Requests[Recv];
  // The receiver's next send reuses the slot (prefetched with the receiver's state).
  if (!Ranks[uint32_t(Q.Owner)].SpareEnvelopes.push(Env))
    FreeEnvelopes.push_back(Env);
  if (V.Bytes > Q.Bytes && !Opt.AllowLargerMessages) [[unlikely]]
    // MPI would end the real run with MPI_ERR_TRUNCATE: the traces contradict each other.
    fail(uint32_t(Q.Owner), "a message of " + std::to_string(V.Bytes) + " bytes from rank " +
                                std::to_string(V.Source) + " (sent in block '" +
                                formatBlock(V.Block) + "') matched a receive posted for " +
                                std::to_string(Q.Bytes) + " bytes in block '" +
                                formatBlock(Q.Block) +
                                "': the traces contradict each other (a real run would end "
                                "with MPI_ERR_TRUNCATE)");
  if (Q.wildcard()) { // only the nondeterminism check reads the prediction
    RequestExtra &X = extra(Recv);
    X.PredSource = V.Source;
    X.PredTag = V.Tag;
  }
  if (Opt.Observer) { // only the observer's dependencies read the partner
    RequestExtra &X = extra(Recv);
    X.PeerRank = V.Source;
    X.PeerTime = V.Inject;
    X.PeerBlock = V.Block;
    if (V.SendReq != NoIndex) {
      RequestExtra &Y = extra(V.SendReq);
      Y.PeerRank = Q.Owner;
      Y.PeerTime = Q.Start;
      Y.PeerBlock = Q.Block;
    }
  }
  TimeNs Done;
  // A datatype with gaps on either side: the sender packs the message piece by piece, the
  // receiver unpacks it, and on shared memory it cannot be handed over in one copy
  // (docs/estimator.md, "Packed messages").
  const bool Packed = (V.Layout | Q.Layout) != 0;
  if (!V.Rendezvous) {
    // An eager message that arrived before the receive was posted waits in the unexpected
    // queue; the receive completes when posted.
    Done = std::max(V.Arrival, Q.Start);
    if (Packed) [[unlikely]] // the (un)packing; a faster packed path is a rendezvous' own
      Done +=
          std::max<TimeNs>(0, Net.link(V.Source, Q.Owner).layoutExtra(V.Layout, Q.Layout, V.Bytes));
  } else {
    // The transfer starts once the send has started and the receive is posted.
    const LinkModel &L = Net.link(V.Source, Q.Owner);
    TimeNs Begin = std::max(V.Inject, Q.Start);
    TimeNs End = Begin + std::max<TimeNs>(0, linkCosts(L, V.Bytes).Transfer);
    // Received into the buffer the rank has just sent from: the receiver's copy first takes
    // the buffer's lines back from the peer that read them (docs/estimator.md).
    if (Q.SameBuffer) [[unlikely]]
      End += L.sameBufferExtra(V.Bytes);
    // Negative where the packed path is faster: large messages that shared memory would
    // hand over in one copy of the whole buffer, slower than the pipeline of packed pieces.
    if (Packed) [[unlikely]]
      End = std::max(Begin, End + L.layoutExtra(V.Layout, Q.Layout, V.Bytes));
    uint32_t F = newFlow(V.Source, Q.Owner, L, V.Bytes, End, Now, Packed, Begin);
    if (F != NoIndex) {
      // Under contention the data streams as a flow; both requests complete at its end.
      Flows[F].Recv = Recv;
      Flows[F].Send = V.SendReq;
      return;
    }
    Done = std::max(End, Now);
  }
  if (Opt.Timeline && Opt.Timeline->wantsEvents())
    Opt.Timeline->message({V.Source, Q.Owner, V.Inject, Done, V.Bytes, V.Tag, V.Block, Q.Block});
  complete(Recv, Done);
  if (V.SendReq != NoIndex)
    complete(V.SendReq, Done);
}

void Engine::Impl::complete(uint32_t Slot, TimeNs Done) {
  Request &Q = Requests[Slot];
  Q.Known = true;
  Q.Done = Done;
  if (Q.Waited) {
    uint32_t R = uint32_t(Q.Owner);
    RankState &S = Ranks[R];
    S.WaitMax = std::max(S.WaitMax, Done);
    if (--S.Pending == 0) {
      endWait(R, S.WaitMax);
      push(S.Now, QueueKind::Resume, R);
    }
  } else if (Q.Detached) {
    releaseRequest(Slot, uint32_t(Q.Owner));
  }
}

bool Engine::Impl::doCompletion(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  if (E.Completed.empty()) {
    // A test that completed nothing costs nothing.
    endEvent(R, E.Block, E.Kind);
    return true;
  }
  S.WaitList.clear();
  S.Pending = 0;
  S.WaitWildcard = false;
  S.WaitStart = S.WaitMax = S.Now;
  S.WaitBlock = E.Block;
  S.WaitBlockIdx = S.CurBlock;
  S.WaitRecord = S.Index;
  for (const CompletedRequest &C : E.Completed) {
    uint32_t *Mapped = S.Requests.find(C.Request);
    if (!Mapped) {
      fail(R, "block '" + formatBlock(E.Block) + "' completes request " +
                  std::to_string(C.Request) + " which was never started");
      return false;
    }
    uint32_t Slot = *Mapped;
    S.Requests.erase(C.Request);
    Request &Q = Requests[Slot];
    Q.Waited = true;
    if (Q.wildcard()) {
      S.WaitWildcard = true;
      RequestExtra &X = extra(Slot);
      X.RecSource = C.Source;
      X.RecTag = C.Tag;
    }
    S.WaitList.push_back(Slot);
    if (Q.Known)
      S.WaitMax = std::max(S.WaitMax, Q.Done);
    else
      ++S.Pending;
  }
  if (Opt.Assume && (S.Pending > 0 || S.WaitMax > S.Now) &&
      Opt.Assume->zeroWait(int(R), S.Index, E.Block)) {
    // What-if: the partners started early enough. Requests still incomplete go on unwaited
    // (as after MPI_Request_free) and are released when their messages complete them.
    S.WaitList.eraseIf([&](uint32_t Slot) {
      Request &Q = Requests[Slot];
      if (Q.Known)
        return false;
      Q.Waited = false;
      Q.Detached = true;
      return true;
    });
    S.Pending = 0;
    S.WaitMax = S.Now;
  }
  if (S.Pending == 0) {
    endWait(R, S.WaitMax);
    return true;
  }
  S.State = Status::Blocked;
  return false;
}

void Engine::Impl::doRequestFree(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  uint32_t *Mapped = S.Requests.find(E.Request);
  if (!Mapped)
    return; // freed after completing, or never started by the runtime
  uint32_t Slot = *Mapped;
  S.Requests.erase(E.Request);
  // The message still has to be matched; the request just goes once it is complete.
  Requests[Slot].Detached = true;
  if (Requests[Slot].Known)
    releaseRequest(Slot, R);
}

bool Engine::Impl::doProbe(uint32_t R, const Event &E) {
  RankState &S = Ranks[R];
  if (!E.Found || E.Peer == ProcNull) {
    endEvent(R, E.Block, E.Kind);
    return true;
  }
  uint32_t Sp = spaceOf(int32_t(R), E.Comm, E.Context);
  for (uint32_t V = Spaces[Sp].UnexpHead; V != NoIndex; V = Envelopes[V].Next)
    if (matches(E.Peer, E.Tag, Envelopes[V].Source, Envelopes[V].Tag)) {
      endEvent(R, E.Block, E.Kind);
      return true;
    }
  S.WaitList.clear();
  S.Pending = 0;
  S.WaitStart = S.WaitMax = S.Now;
  S.WaitBlock = E.Block;
  S.WaitBlockIdx = S.CurBlock;
  S.WaitRecord = S.Index;
  S.ProbeSpace = Sp;
  S.ProbeSource = E.Peer;
  S.ProbeTag = E.Tag;
  S.State = Status::Probing;
  return false;
}

void Engine::Impl::endWait(uint32_t R, TimeNs End) {
  RankState &S = Ranks[R];
  bool Probe = S.State == Status::Probing;
  charge(R, SpanKind::Wait, S.WaitBlockIdx, S.WaitStart, End);
  if (Opt.Observer && End > S.WaitStart && S.InRegion && !Probe)
    for (uint32_t Slot : S.WaitList) {
      const Request &Q = Requests[Slot];
      const RequestExtra &X = extra(Slot);
      if (Q.Done == End && X.PeerRank >= 0) {
        Opt.Observer->dependency(int(R), S.WaitRecord, S.WaitStart, End, X.PeerRank, X.PeerTime,
                                 X.PeerBlock);
        break;
      }
    }
  S.Now = End;
  for (uint32_t Slot : S.WaitList) {
    if (!S.WaitWildcard) {
      releaseRequest(Slot, R);
      continue;
    }
    const Request &Q = Requests[Slot];
    if (!Q.wildcard()) {
      releaseRequest(Slot, R);
      continue;
    }
    const RequestExtra &X = extra(Slot);
    if (X.RecSource != NoStatus) {
      bool Differs = (Q.Peer == AnySource && X.RecSource != X.PredSource) ||
                     (Q.Tag == AnyTag && X.RecTag != NoStatus && X.RecTag != X.PredTag);
      if (Differs) {
        ++Result.NondeterministicReceives;
        if (Result.NondeterminismNotes.size() < Opt.MaxNotes)
          Result.NondeterminismNotes.push_back(
              S.Src->name() + ": rank " + std::to_string(R) + ": record " +
              std::to_string(S.WaitRecord) + ": the receive started in block '" +
              formatBlock(Q.Block) + "' was recorded matching rank " + std::to_string(X.RecSource) +
              " tag " + std::to_string(X.RecTag) + " but is predicted to match rank " +
              std::to_string(X.PredSource) + " tag " + std::to_string(X.PredTag));
      }
    }
    releaseRequest(Slot, R);
  }
  S.WaitList.clear();
  S.State = Status::Ready;
  endEvent(R, S.WaitBlock, Probe ? EventKind::Probe : EventKind::Completion);
}

void Engine::Impl::fail(uint32_t R, std::string Message) {
  Failed = true;
  Result.Errors.push_back({Ranks[R].Src->name(), "rank " + std::to_string(R) + ": record " +
                                                     std::to_string(Ranks[R].Index) + ": " +
                                                     std::move(Message)});
}

std::string Engine::Impl::describe(const Request &Q) const {
  std::string Where = " (communicator " + std::to_string(Q.Comm) +
                      (Q.Context ? ", collective traffic" : "") + ") started in block '" +
                      formatBlock(Q.Block) + "'";
  if (Q.IsRecv)
    return "a receive from " + peerName(Q.Peer) + " with " + tagName(Q.Tag) + Where;
  return "a send of " + std::to_string(Q.Bytes) + " bytes to rank " + std::to_string(Q.Peer) +
         " with tag " + std::to_string(Q.Tag) + Where + " that no receive matched";
}

void Engine::Impl::reportStuck() {
  std::vector<EngineError> Stuck;
  size_t Blocked = 0;
  for (uint32_t R = 0; R < Ranks.size(); ++R) {
    RankState &S = Ranks[R];
    if (S.State != Status::Blocked && S.State != Status::Probing)
      continue;
    ++Blocked;
    std::string Head = "rank " + std::to_string(R) + ": record " + std::to_string(S.WaitRecord) +
                       ": blocked from " + std::to_string(S.WaitStart) + " ns in block '" +
                       formatBlock(S.WaitBlock) + "' waiting for ";
    if (S.State == Status::Probing) {
      Stuck.push_back({S.Src->name(), Head + "a probe of a message from " +
                                          peerName(S.ProbeSource) + " with " +
                                          tagName(S.ProbeTag)});
      continue;
    }
    for (uint32_t Slot : S.WaitList)
      if (!Requests[Slot].Known)
        Stuck.push_back({S.Src->name(), Head + describe(Requests[Slot])});
  }
  for (const Space &P : Spaces) {
    for (uint32_t V = P.UnexpHead; V != NoIndex; V = Envelopes[V].Next) {
      const Envelope &M = Envelopes[V];
      Stuck.push_back({Ranks[uint32_t(M.Source)].Src->name(),
                       "rank " + std::to_string(M.Source) + ": the message of " +
                           std::to_string(M.Bytes) + " bytes to rank " + std::to_string(P.Rank) +
                           " with tag " + std::to_string(M.Tag) + " (communicator " +
                           std::to_string(P.Comm) + ") sent in block '" + formatBlock(M.Block) +
                           "' was never received"});
    }
    for (uint32_t Q = P.PostedHead; Q != NoIndex; Q = Requests[Q].NextPosted)
      if (!Requests[Q].Waited)
        Stuck.push_back({Ranks[uint32_t(P.Rank)].Src->name(), "rank " + std::to_string(P.Rank) +
                                                                  ": " + describe(Requests[Q]) +
                                                                  " was never matched"});
  }
  if (Stuck.empty())
    return;
  Result.Stuck = true;
  if (Blocked)
    Result.Errors.push_back({"", "deadlock: " + std::to_string(Blocked) + " of " +
                                     std::to_string(Ranks.size()) + " ranks cannot progress"});
  else
    Result.Errors.push_back({"", "the traces leave messages unmatched"});
  size_t Shown = std::min(Stuck.size(), MaxStuckReports);
  Result.Errors.insert(Result.Errors.end(), Stuck.begin(), Stuck.begin() + Shown);
  if (Stuck.size() > Shown)
    Result.Errors.push_back({"", std::to_string(Stuck.size() - Shown) + " more not shown"});
}

} // namespace mpiete::estimator
