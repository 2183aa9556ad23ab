// The master/slave simulation of seed 000, section 3.3: a task queue and an event queue of
// result arrivals at the master, apart from the engine's replay.
#include "mpiete/farm/FarmSimulation.h"

#include <cmath>
#include <queue>
#include <tuple>

namespace mpiete::farm {

FarmOutcome simulateFarm(const FarmSetup &Setup, const estimator::NetworkModel &Net) {
  FarmOutcome Out;
  const size_t Tasks = Setup.Costs.size();
  Out.WorkerOfTask.assign(Tasks, -1);
  Out.ResultAt.assign(Tasks, 0);
  Out.TasksOfWorker.assign(Setup.Workers.size(), 0);
  TimeNs Now = Setup.Start; // the master's virtual time
  size_t Next = 0;          // the head of the task queue Q_T
  // Q_E: (arrival at the master, worker index, task).
  using Arrival = std::tuple<TimeNs, size_t, size_t>;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> Events;
  auto Dispatch = [&](size_t W) {
    const int Rank = Setup.Workers[W];
    const estimator::LinkModel &ToWorker = Net.link(Setup.Master, Rank);
    const estimator::LinkModel &ToMaster = Net.link(Rank, Setup.Master);
    const size_t T = Next++;
    const TimeNs SentAt = Now;
    Now += ToWorker.sendOverhead(Setup.WorkBytes);
    const double Factor = W < Setup.TimeFactor.size() ? Setup.TimeFactor[W] : 1.0;
    const TimeNs Done = SentAt + ToWorker.transfer(Setup.WorkBytes) +
                        TimeNs(std::llround(double(Setup.Costs[T]) * Factor));
    Events.emplace(Done + ToMaster.transfer(Setup.ResultBytes), W, T);
    Out.WorkerOfTask[T] = int(W);
    ++Out.TasksOfWorker[W];
  };
  for (size_t W = 0; W < Setup.Workers.size() && Next < Tasks; ++W)
    Dispatch(W);
  while (!Events.empty()) {
    const auto [At, W, T] = Events.top();
    Events.pop();
    Now += Net.link(Setup.Workers[W], Setup.Master).recvOverhead(Setup.ResultBytes);
    Now = std::max(Now, At);
    Out.ResultAt[T] = Now;
    if (Next < Tasks)
      Dispatch(W);
  }
  Out.End = Now;
  return Out;
}

} // namespace mpiete::farm
