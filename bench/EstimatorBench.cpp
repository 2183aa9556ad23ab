// Replay speed of the estimator on a synthetic trace generated on the fly: per iteration each
// rank computes, runs a loop, exchanges with its ring neighbours and does a recursive-doubling
// allreduce in the collective context (23 events per rank and iteration).
#include "mpiete/estimator/Engine.h"

#include <benchmark/benchmark.h>

#include <memory>

using namespace mpiete::estimator;

namespace {

constexpr BlockId ComputeBlock = 0x100000001, LoopBlock = 0x100000002, RingBlock = 0x100000010,
                  ReduceBlock = 0x100000020;

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
    E.Context = 0;
    E.Comm = 0;
    E.Mode = SendMode::Standard;
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

void Replay(benchmark::State &State) {
  int Ranks = int(State.range(0));
  uint64_t Iterations = uint64_t(State.range(1));

  TableComputeModel Compute;
  unsigned M = Compute.addMachine();
  for (int I = 0; I < 4; ++I)
    Compute.setTime(M, ComputeBlock + BlockId(I), (10 + I) * 1e-6);
  Compute.setTime(M, LoopBlock, 5e-9);
  LogGPSParams Intra{0.3e-6, 0.1e-6, 0.1e-6, 0, 0.1e-9, 16384};
  LogGPSParams Inter{5e-6, 1e-6, 1e-6, 0.1e-6, 0.8e-9, 65536 - 1};
  std::vector<int> Node;
  for (int R = 0; R < Ranks; ++R)
    Node.push_back(R / 8);
  ClusterNetworkModel Net(Node, std::make_shared<LogGPSLinkModel>(Intra),
                          std::make_shared<LogGPSLinkModel>(Inter));

  uint64_t Events = 0;
  for (auto _ : State) {
    std::vector<std::unique_ptr<SyntheticSource>> Owned;
    std::vector<EventSource *> Sources;
    for (int R = 0; R < Ranks; ++R) {
      Owned.push_back(std::make_unique<SyntheticSource>(R, Ranks, Iterations));
      Sources.push_back(Owned.back().get());
    }
    Engine E(Compute, Net);
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

} // namespace

// 64 ranks x 7000 iterations x 23 events = 10.3 million events per replay.
// The rate is per CPU second: the build machine is shared, so wall time says little.
BENCHMARK(Replay)->Args({64, 7000})->Args({8, 1000})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
