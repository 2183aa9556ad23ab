// The re-simulated farm on hand-built farms whose assignment and finish times are worked out
// by hand below.
#include "mpiete/farm/FarmSimulation.h"
#include "mpiete/farm/FarmPrediction.h"

#include <gtest/gtest.h>

using namespace mpiete;
using namespace mpiete::farm;
using mpiete::estimator::TimeNs;

namespace {

/// o_s 5 ns, o_r 3 ns, transfer 100 ns + 1 ns per byte.
class FixedLink : public estimator::LinkModel {
public:
  TimeNs sendOverhead(uint64_t) const override { return 5; }
  TimeNs recvOverhead(uint64_t) const override { return 3; }
  TimeNs transfer(uint64_t Bytes) const override { return 100 + TimeNs(Bytes); }
  uint64_t eagerLimit() const override { return 1 << 20; }
};

class OneLink : public estimator::NetworkModel {
public:
  const estimator::LinkModel &link(int, int) const override { return Link; }
  FixedLink Link;
};

} // namespace

TEST(FarmSimulationTest, TwoWorkersOfDifferentSpeeds) {
  OneLink Net;
  FarmSetup S;
  S.Master = 0;
  S.Workers = {1, 2};
  S.TimeFactor = {1.0, 2.0};
  S.Costs = {1000, 500, 300, 200, 100};
  S.WorkBytes = 20;   // transfer 120
  S.ResultBytes = 50; // transfer 150
  S.Start = 10000;
  // t0 -> rank 1 sent at 10000 (master 10005): done 10000 + 120 + 1000 = 11120, back 11270.
  // t1 -> rank 2 sent at 10005 (master 10010): done 10005 + 120 + 2 x 500 = 11125, back 11275.
  // 11270: master max(10013, 11270) = 11270, t2 -> rank 1 (master 11275): back 11270 + 120 +
  //   300 + 150 = 11840.
  // 11275: master max(11278, 11275) = 11278, t3 -> rank 2 (master 11283): back 11278 + 120 +
  //   400 + 150 = 11948.
  // 11840: master 11840, t4 -> rank 1 (master 11845): back 11840 + 120 + 100 + 150 = 12210.
  // 11948: master 11948. 12210: master 12210, the end.
  const FarmOutcome O = simulateFarm(S, Net);
  EXPECT_EQ(O.WorkerOfTask, (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(O.ResultAt, (std::vector<TimeNs>{11270, 11278, 11840, 11948, 12210}));
  EXPECT_EQ(O.TasksOfWorker, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(O.End, 12210);
}

TEST(FarmSimulationTest, ASlowWorkerGetsFewerTasksButWhateverIsQueuedWhenItAsks) {
  OneLink Net;
  FarmSetup S;
  S.Workers = {3, 1};
  S.TimeFactor = {4.0, 1.0};
  S.Costs = std::vector<TimeNs>(6, 1000); // empty messages: transfers of 100
  // t0 -> rank 3 sent at 0 (master 5): back 0 + 100 + 4000 + 100 = 4200.
  // t1 -> rank 1 sent at 5 (master 10): back 1205. Rank 1 then takes t2 at 1205 (back 2405),
  // t3 at 2405 (back 3605), t4 at 3605 (back 4805). At 4200 rank 3's result is first in the
  // event queue, so t5 goes to rank 3 at 4200 although rank 1 would have finished it sooner:
  // back 4200 + 100 + 4000 + 100 = 8400, the end (seed 000 assigns greedily, as the program).
  const FarmOutcome O = simulateFarm(S, Net);
  EXPECT_EQ(O.WorkerOfTask, (std::vector<int>{0, 1, 1, 1, 1, 0}));
  EXPECT_EQ(O.TasksOfWorker, (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(O.ResultAt, (std::vector<TimeNs>{4200, 1205, 2405, 3605, 4805, 8400}));
  EXPECT_EQ(O.End, 8400);
}

TEST(FarmSimulationTest, AnUnmarkedFarmsTasksCostTheirReplayedTimesOverTheTracedWorkersSpeed) {
  OneLink Net;
  RecognizedFarm F;
  F.Master = 0;
  F.Workers = {1, 2};
  F.TracedWorkerOfTask = {1, 2, 2, 1, 1};
  F.WorkBytes = 20;
  F.ResultBytes = 50;
  F.ReplayStart = 10000;
  F.ReplayEnd = 13000;
  // Rank 2 is twice as slow: its replayed times are twice the tasks' costs on the reference.
  const std::vector<double> Factors = {1.0, 1.0, 2.0};
  const std::vector<TimeNs> Replayed = {1000, 1000, 600, 200, 100};
  std::string WhyNot;
  const std::optional<FarmPrediction> P = predictUnmarkedFarm(F, Replayed, Factors, Net, WhyNot);
  ASSERT_TRUE(P) << WhyNot;
  EXPECT_TRUE(P->Unmarked);
  // The costs of TwoWorkersOfDifferentSpeeds, so its assignment and end.
  EXPECT_EQ(P->Setup.Costs, (std::vector<TimeNs>{1000, 500, 300, 200, 100}));
  EXPECT_EQ(P->Setup.TimeFactor, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(P->Outcome.WorkerOfTask, (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(P->Outcome.End, 12210);
  EXPECT_EQ(P->TracedTasksOfWorker, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(P->Moved, 2u); // tasks 2 and 3 change workers
  EXPECT_EQ(P->Delta, 12210 - 13000);

  // A task without its replayed time: not re-simulated, and said why.
  EXPECT_FALSE(predictUnmarkedFarm(F, {1000, 1000}, Factors, Net, WhyNot));
  EXPECT_NE(WhyNot.find("result"), std::string::npos);
}
