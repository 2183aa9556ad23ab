// The estimator at scale (issue 16): a halo exchange learnt by scaling/ from traces at 2, 4 and
// 8 ranks, replayed at 10^4-10^6 ranks from SyntheticEventSource streams (nothing
// materialised), printing events per second on one core and the memory per rank.
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ModelFile.h"
#include "mpiete/scaling/Surface.h"

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <string>

using namespace mpiete::scaling;
using namespace mpiete::estimator;

namespace {

constexpr BlockId SiteA = (BlockId(0x0aa758c0) << 32) | 3;
constexpr BlockId SiteB = (BlockId(0x0aa758c0) << 32) | 7;

/// Iterations of: compute, receive from both ring neighbours, send to both, wait for all four.
std::vector<Event> halo(int R, int P, int Iterations) {
  const int Next = (R + 1) % P, Prev = (R + P - 1) % P;
  std::vector<Event> Es;
  BlockId Last = mpiete::ProgramStart;
  uint64_t Req = 0;
  for (int It = 0; It < Iterations; ++It) {
    Es.push_back(Event::segment(Last, SiteA));
    Es.push_back(Event::recv(SiteA, Prev, 1, 4096, ++Req));
    Es.push_back(Event::recv(SiteA, Next, 2, 4096, ++Req));
    Es.push_back(Event::send(SiteA, Next, 1, 4096, ++Req));
    Es.push_back(Event::send(SiteA, Prev, 2, 4096, ++Req));
    Es.push_back(Event::segment(SiteA, SiteB));
    Es.push_back(
        Event::completion(SiteB, {{Req - 3, Prev, 1}, {Req - 2, Next, 2}, {Req - 1}, {Req}}));
    Last = SiteB;
  }
  return Es;
}

/// The largest resident set so far, bytes (Linux: ru_maxrss in KiB).
double maxRssBytes() {
  rusage U{};
  getrusage(RUSAGE_SELF, &U);
  return double(U.ru_maxrss) * 1024;
}

/// Resident bytes now (/proc/self/statm).
double rssBytes() {
  std::ifstream S("/proc/self/statm");
  double Pages = 0, Resident = 0;
  S >> Pages >> Resident;
  return Resident * 4096;
}

void BM_ScaledReplay(benchmark::State &State) {
  const int P = int(State.range(0)), Iterations = int(State.range(1));
  std::vector<MeasuredRun> Runs;
  for (int Small : {2, 4, 8}) {
    MeasuredRun Run{Small, 1, {}, {}};
    for (int R = 0; R < Small; ++R)
      Run.PerRank.push_back(halo(R, Small, Iterations));
    Runs.push_back(std::move(Run));
  }
  CommStructure S;
  Refusal Why;
  if (!learnStructure(Runs, S, Why)) {
    State.SkipWithError(("structure refused: " + Why.Message).c_str());
    return;
  }
  Runs.clear();
  ScalingModelFile File;
  SegmentModel Work, Post;
  Work.From = mpiete::ProgramStart;
  Work.To = SiteA;
  Work.M.Terms = {Term{}};
  Work.M.Coeffs = {2e-5};
  Post = Work;
  Post.From = SiteA;
  Post.To = SiteB;
  Post.M.Coeffs = {1e-6};
  SegmentModel Loop = Work;
  Loop.From = SiteB;
  File.Segments = {Work, Post, Loop};
  auto Link = std::make_shared<TableLinkModel>(
      std::vector<TableLinkModel::Point>{{0, 1e-6}, {1 << 20, 1e-4}}, 5e-7, 5e-7, 65536);
  ClusterNetworkModel Net(Link);
  ScaledComputeModel Compute(File, P, 1);
  uint64_t Events = 0;
  double Predicted = 0, Before = rssBytes(), Peak = 0;
  for (auto _ : State) {
    EstimateResult R = replayScaled(S, Compute, Net, P, 1);
    if (!R.Ok) {
      State.SkipWithError(R.Errors.empty() ? "replay failed" : R.Errors.front().Message.c_str());
      return;
    }
    Events += R.Events;
    Predicted = R.predictedSeconds();
    Peak = std::max(Peak, maxRssBytes());
  }
  State.counters["events/s"] = benchmark::Counter(double(Events), benchmark::Counter::kIsRate);
  State.counters["events/rank"] = double(Events) / double(State.iterations()) / P;
  // The replay's peak resident set above what was resident before it, per rank: an upper
  // bound (the peak may predate the benchmark when a smaller run came first).
  State.counters["bytes/rank"] = std::max(0.0, Peak - Before) / P;
  State.counters["predicted_s"] = Predicted;
}

} // namespace

// (ranks, iterations): 10^5 ranks at 10^2 and 10^3 events per rank (bytes per rank must not
// grow with the trace), and 10^6 ranks. Largest last so the peak memory is each run's own.
BENCHMARK(BM_ScaledReplay)
    ->Args({10000, 20})
    ->Args({100000, 15})
    ->Args({100000, 150})
    ->Args({1000000, 15})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

BENCHMARK_MAIN();
