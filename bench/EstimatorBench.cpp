// Replay speed of the estimator on synthetic traces generated on the fly. Replay: per iteration
// each rank computes, runs a loop, exchanges with its ring neighbours and does a
// recursive-doubling allreduce in the collective context (23 events per rank and iteration).
// AllToAll: per iteration each rank computes and exchanges a message with every other rank
// (nonblocking, one waitall), with and without link contention: many concurrent flows.
#include "mpiete/estimator/Engine.h"
#include "mpiete/farm/FarmScan.h"

#include <benchmark/benchmark.h>

#include <memory>

using namespace mpiete::estimator;

namespace {

constexpr BlockId ComputeBlock = 0x100000001, LoopBlock = 0x100000002, RingBlock = 0x100000010,
                  ReduceBlock = 0x100000020;

/// The fields every synthetic event shares: world communicator, user context, standard mode.
void plainEvent(Event &E) {
  E.Context = 0;
  E.Comm = 0;
  E.Mode = SendMode::Standard;
}

class SyntheticSource : public EventSource {
public:
  SyntheticSource(int Rank, int Ranks, uint64_t Iterations)
      : Rank(Rank), Ranks(Ranks), Iterations(Iterations) {
    for (int M = 1; M < Ranks; M <<= 1)
      ++Steps;
  }

  bool next(Event &E) override {
    if (Iter == Iterations)
      return false;
    plainEvent(E);
    int Left = (Rank + Ranks - 1) % Ranks, Right = (Rank + 1) % Ranks;
    // Every eighth iteration the ring exchange is large enough for the rendezvous protocol.
    uint64_t RingBytes = Iter % 8 == 7 ? 65536 : 1024;
    switch (Phase) {
    case 0:
      E.Kind = EventKind::Compute;
      E.Block = ComputeBlock + BlockId(Rank % 4);
      break;
    case 1:
      E.Kind = EventKind::Loop;
      E.Block = LoopBlock;
      E.Count = 100 + uint64_t(Rank % 7);
      break;
    case 2:
      set(E, EventKind::RecvStart, RingBlock, Left, 0, RingBytes, NextReq);
      break;
    case 3:
      set(E, EventKind::SendStart, RingBlock + 1, Right, 0, RingBytes, NextReq + 1);
      break;
    case 4:
      complete(E, RingBlock + 2, Left, 0);
      NextReq += 2;
      break;
    default: {
      int Step = (Phase - 5) / 3, Part = (Phase - 5) % 3;
      int Peer = Rank ^ (1 << Step);
      E.Context = 1;
      if (Part == 0) {
        set(E, EventKind::SendStart, ReduceBlock, Peer, -Step, 8, NextReq + 1);
      } else if (Part == 1) {
        set(E, EventKind::RecvStart, ReduceBlock, Peer, -Step, 8, NextReq);
      } else {
        complete(E, ReduceBlock, Peer, -Step);
        NextReq += 2;
      }
      E.Context = 1;
      break;
    }
    }
    if (++Phase == 5 + 3 * Steps) {
      Phase = 0;
      ++Iter;
    }
    return true;
  }

  std::string name() const override { return "synthetic rank " + std::to_string(Rank); }

private:
  static void set(Event &E, EventKind K, BlockId B, int Peer, int Tag, uint64_t Bytes,
                  uint64_t Req) {
    E.Kind = K;
    E.Block = B;
    E.Peer = Peer;
    E.Tag = Tag;
    E.Count = Bytes;
    E.Request = Req;
  }
  void complete(Event &E, BlockId B, int Source, int Tag) {
    E.Kind = EventKind::Completion;
    E.Block = B;
    E.Completed.clear();
    E.Completed.push_back({NextReq, Source, Tag});
    E.Completed.push_back({NextReq + 1, NoStatus, NoStatus});
  }

  int Rank, Ranks, Steps = 0;
  uint64_t Iterations, Iter = 0, NextReq = 0;
  int Phase = 0;
};

/// Per iteration: compute, then an Irecv and an Isend with every other rank, then one waitall.
class AllToAllSource : public EventSource {
public:
  AllToAllSource(int Rank, int Ranks, uint64_t Iterations)
      : Rank(Rank), Ranks(Ranks), Iterations(Iterations) {}

  bool next(Event &E) override {
    if (Iter == Iterations)
      return false;
    plainEvent(E);
    int Last = 2 * (Ranks - 1) + 1;
    if (Phase == 0) {
      E.Kind = EventKind::Compute;
      E.Block = ComputeBlock + BlockId(Rank % 4);
    } else if (Phase < Last) {
      // Peers in a rotated order, so that not every rank talks to rank 0 first.
      int Step = (Phase - 1) / 2 + 1;
      bool Recv = (Phase - 1) % 2 == 0;
      int Peer = Recv ? (Rank + Ranks - Step) % Ranks : (Rank + Step) % Ranks;
      E.Kind = Recv ? EventKind::RecvStart : EventKind::SendStart;
      E.Block = RingBlock + (Recv ? 0 : 1);
      E.Peer = Peer;
      E.Tag = 0;
      // Eager (16 KiB) and rendezvous (128 KiB) rounds in turn.
      E.Count = Iter % 2 ? 131072 : 16384;
      E.Request = NextReq + uint64_t(Phase);
    } else {
      E.Kind = EventKind::Completion;
      E.Block = RingBlock + 2;
      E.Completed.clear();
      for (int P = 1; P < Last; ++P) {
        int Step = (P - 1) / 2 + 1;
        bool Recv = (P - 1) % 2 == 0;
        E.Completed.push_back({NextReq + uint64_t(P),
                               Recv ? (Rank + Ranks - Step) % Ranks : NoStatus,
                               Recv ? 0 : NoStatus});
      }
    }
    if (++Phase > Last) {
      Phase = 0;
      NextReq += uint64_t(Last) + 1;
      ++Iter;
    }
    return true;
  }

  std::string name() const override { return "all-to-all rank " + std::to_string(Rank); }

private:
  int Rank, Ranks;
  uint64_t Iterations, Iter = 0, NextReq = 0;
  int Phase = 0;
};

/// The timed loop of every replay benchmark: fresh sources of type SourceT for every rank, one
/// engine run per iteration; counts events per second and reports the predicted time.
/// With Scan, every event also passes an unmarked farm scan, as `mpiete estimate` does for a
/// program without task costs (farm/FarmScan.h): its cost is this run's against the other's.
template <typename SourceT>
void replay(benchmark::State &State, const ComputeModel &Compute, const NetworkModel &Net,
            int Ranks, uint64_t Iterations, bool Scan = false) {
  uint64_t Events = 0;
  for (auto _ : State) {
    std::vector<std::unique_ptr<SourceT>> Owned;
    std::vector<std::unique_ptr<EventSource>> Watched;
    std::vector<EventSource *> Sources;
    std::unique_ptr<mpiete::farm::FarmScan> Farm;
    EngineOptions Opt;
    if (Scan) {
      Farm = std::make_unique<mpiete::farm::FarmScan>(Ranks, nullptr, /*Unmarked=*/true);
      Opt.Timeline = Farm.get();
    }
    for (int R = 0; R < Ranks; ++R) {
      Owned.push_back(std::make_unique<SourceT>(R, Ranks, Iterations));
      Sources.push_back(Owned.back().get());
      if (Farm) {
        Watched.push_back(Farm->watch(R, *Owned.back()));
        Sources.back() = Watched.back().get();
      }
    }
    Engine E(Compute, Net, Opt);
    EstimateResult Result = E.run(Sources);
    if (!Result.Ok) {
      State.SkipWithError(Result.Errors.front().Message.c_str());
      return;
    }
    Events += Result.Events;
    State.counters["predicted_s"] = Result.predictedSeconds();
    State.counters["events"] = double(Result.Events);
  }
  State.counters["events_per_second"] =
      benchmark::Counter(double(Events), benchmark::Counter::kIsRate);
}

/// The machine and network of every replay benchmark: compute blocks of 10-13 us; 8 ranks per
/// node, shared memory inside a node, LogGPS between nodes.
struct SyntheticCluster {
  TableComputeModel Compute;
  unsigned Machine = Compute.addMachine();
  ClusterNetworkModel Net;

  explicit SyntheticCluster(int Ranks)
      : Net(nodesOfEight(Ranks),
            std::make_shared<LogGPSLinkModel>(mpiete::LogGpsParams{
                .L = 0.3e-6, .Os = 0.1e-6, .Or = 0.1e-6, .G = 0.1e-9, .S = 16384 + 1}),
            std::make_shared<LogGPSLinkModel>(mpiete::LogGpsParams{
                .L = 5e-6, .Os = 1e-6, .Or = 1e-6, .Gap = 0.1e-6, .G = 0.8e-9, .S = 65536})) {
    for (int I = 0; I < 4; ++I)
      Compute.setTime(Machine, ComputeBlock + BlockId(I), (10 + I) * 1e-6);
  }

  static std::vector<int> nodesOfEight(int Ranks) {
    std::vector<int> Node;
    for (int R = 0; R < Ranks; ++R)
      Node.push_back(R / 8);
    return Node;
  }
};

void AllToAll(benchmark::State &State) {
  int Ranks = int(State.range(0));
  uint64_t Iterations = uint64_t(State.range(1));
  bool Contention = State.range(2) != 0;

  SyntheticCluster C(Ranks);
  // Each node's link carries what two pairs stream at once.
  C.Net.setContention(Contention ? ContentionKind::Fair : ContentionKind::None, 2 / 0.8e-9);
  replay<AllToAllSource>(State, C.Compute, C.Net, Ranks, Iterations);
}

void Replay(benchmark::State &State) {
  int Ranks = int(State.range(0));
  uint64_t Iterations = uint64_t(State.range(1));

  SyntheticCluster C(Ranks);
  C.Compute.setTime(C.Machine, LoopBlock, 5e-9); // loop iterations of 5 ns
  replay<SyntheticSource>(State, C.Compute, C.Net, Ranks, Iterations, State.range(2) != 0);
}

} // namespace

// 64 ranks x 7000 iterations x 23 events = 10.3 million events per replay.
// The rate is per CPU second: the build machine is shared, so wall time says little.
// The third argument passes every event through the unmarked farm scan as well (it gives up
// past its cap of a million sends: a program of many messages is no farm).
BENCHMARK(Replay)
    ->Args({64, 7000, 0})
    ->Args({64, 7000, 1})
    ->Args({8, 1000, 0})
    ->Args({8, 1000, 1})
    ->Unit(benchmark::kMillisecond);
// 64 ranks on 8 nodes x 100 iterations x 128 events = 819,200 events, 403,200 messages; the
// third argument switches contention on.
BENCHMARK(AllToAll)->Args({64, 100, 0})->Args({64, 100, 1})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
