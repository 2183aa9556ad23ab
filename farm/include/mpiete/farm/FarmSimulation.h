// Seed 000's master/slave simulation (section 3.3): the farm's tasks leave the master's queue
// in program order, each to the worker whose result the master receives first, with the
// estimator's network model for work and result messages and a speed ratio per worker.
#ifndef MPIETE_FARM_FARMSIMULATION_H
#define MPIETE_FARM_FARMSIMULATION_H

#include "mpiete/estimator/Models.h"

#include <vector>

namespace mpiete::farm {

using estimator::TimeNs;

struct FarmSetup {
  int Master = 0;
  /// The workers' ranks, in the order the master's first round serves them.
  std::vector<int> Workers;
  /// r_s of each worker (same index): its task time over the time on the machine the task
  /// costs were measured on (2: half as fast).
  std::vector<double> TimeFactor;
  /// Every task's compute time on the measuring machine, in queue order.
  std::vector<TimeNs> Costs;
  uint64_t WorkBytes = 0, ResultBytes = 0;
  TimeNs Start = 0; ///< the master's time when it sends the first task
};

struct FarmOutcome {
  std::vector<int> WorkerOfTask; ///< index into FarmSetup::Workers
  std::vector<TimeNs> ResultAt;  ///< when the master had each task's result
  std::vector<uint64_t> TasksOfWorker;
  TimeNs End = 0; ///< the master's time after the last result
};

/// The master starts at Start with the first round, one task per worker in Workers order,
/// each send costing it the link's send overhead. A worker receives its task transfer(work)
/// after the send began, computes Cost x r_s, and its result reaches the master
/// transfer(result) later. The master takes results in arrival order (ties: the worker
/// listed first): it posts the receive (recvOverhead), waits for the arrival if it is still
/// to come, and sends that worker the next task from the queue. Deterministic; O(T log W).
FarmOutcome simulateFarm(const FarmSetup &Setup, const estimator::NetworkModel &Net);

} // namespace mpiete::farm

#endif
