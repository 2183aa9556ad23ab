// tasks.yaml: the merge of the probe's task lines, written, read back and compared field by
// field (grid and list forms); the readers' located errors.
#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace mpiete;

namespace {

TaskCosts merged(const std::string &Lines) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::vector<TaskRecord> Records;
  int64_t Stride = 1;
  EXPECT_TRUE(parseTaskRecords("rank1.tasks", Lines, Records, Stride, Diags)) << Errors.str();
  TaskCosts Out;
  EXPECT_TRUE(buildTaskCosts("tasks", Records, Out, Diags)) << Errors.str();
  Out.Stride = Stride;
  return Out;
}

TaskCosts roundTrip(const TaskCosts &In) {
  std::ostringstream OS, Errors;
  writeTaskCosts(OS, In);
  DiagnosticSink Diags(Errors);
  TaskCosts Out;
  EXPECT_TRUE(parseTaskCosts("tasks.yaml", OS.str(), Out, Diags)) << Errors.str() << OS.str();
  return Out;
}

} // namespace

TEST(TaskCostsTest, GridOfTwoParametersMergesAndRoundTrips) {
  // A 2 x 3 grid (i in {0, 2}, j in {1, 2, 3}), out of order, task (0,1) measured twice.
  TaskCosts In = merged("# mpiete tasks rank 1 of 3 stride 2\n"
                        "2 2 3 -1\n2 0 1 1000\n2 0 2 -1\n2 0 3 5000\n2 2 1 2000\n2 2 2 -1\n"
                        "2 0 1 3000\n");
  EXPECT_EQ(In.Dims, 2);
  EXPECT_EQ(In.Stride, 2);
  ASSERT_TRUE(In.Grid);
  EXPECT_EQ(In.Axes, (std::vector<TaskAxis>{{0, 2, 2}, {1, 3, 1}}));
  EXPECT_EQ(In.taskCount(), 6u);
  EXPECT_EQ(In.allTasks(), (std::vector<int64_t>{0, 1, 0, 2, 0, 3, 2, 1, 2, 2, 2, 3}));
  EXPECT_EQ(In.MeasuredParams, (std::vector<int64_t>{0, 1, 0, 3, 2, 1}));
  ASSERT_EQ(In.MeasuredSeconds.size(), 3u);
  EXPECT_DOUBLE_EQ(In.MeasuredSeconds[0], 2e-6);
  EXPECT_DOUBLE_EQ(In.MeasuredSeconds[1], 5e-6);
  EXPECT_DOUBLE_EQ(In.MeasuredSeconds[2], 2e-6);
  In.Tool = "mpiete 0.1";
  In.Command = "mpiete probe-compute -o m.yaml";
  In.Host = "node1";
  TaskCosts Out = roundTrip(In);
  EXPECT_EQ(Out.Dims, 2);
  EXPECT_EQ(Out.Stride, 2);
  EXPECT_TRUE(Out.Grid);
  EXPECT_EQ(Out.Axes, In.Axes);
  EXPECT_EQ(Out.MeasuredParams, In.MeasuredParams);
  ASSERT_EQ(Out.MeasuredSeconds.size(), In.MeasuredSeconds.size());
  for (size_t I = 0; I < In.MeasuredSeconds.size(); ++I)
    EXPECT_DOUBLE_EQ(Out.MeasuredSeconds[I], In.MeasuredSeconds[I]);
  EXPECT_EQ(Out.Tool, In.Tool);
  EXPECT_EQ(Out.Command, In.Command);
  EXPECT_EQ(Out.Host, In.Host);
}

TEST(TaskCostsTest, ATaskSetThatIsNoGridIsListed) {
  TaskCosts In = merged("1 0 10\n1 1 20\n1 5 -1\n");
  EXPECT_FALSE(In.Grid);
  EXPECT_EQ(In.List, (std::vector<int64_t>{0, 1, 5}));
  TaskCosts Out = roundTrip(In);
  EXPECT_FALSE(Out.Grid);
  EXPECT_EQ(Out.List, In.List);
  EXPECT_EQ(Out.taskCount(), 3u);
  ASSERT_EQ(Out.MeasuredSeconds.size(), 2u);
  EXPECT_DOUBLE_EQ(Out.MeasuredSeconds[0], 1e-8);
  EXPECT_DOUBLE_EQ(Out.MeasuredSeconds[1], 2e-8);
}

TEST(TaskCostsTest, BadLinesAndFilesAreReportedWhereTheyAre) {
  std::ostringstream Errors;
  DiagnosticSink Diags(Errors);
  std::vector<TaskRecord> Records;
  int64_t Stride = 1;
  EXPECT_FALSE(parseTaskRecords("rank2.tasks", "1 4 100\n2 1\n", Records, Stride, Diags));
  EXPECT_NE(Errors.str().find("rank2.tasks:2:1: error:"), std::string::npos) << Errors.str();
  Records = {{{1}, 1.0}, {{1, 2}, 1.0}};
  TaskCosts Out;
  EXPECT_FALSE(buildTaskCosts("tasks", Records, Out, Diags));
  EXPECT_FALSE(parseTaskCosts("t.yaml",
                              "format: mpiete-tasks\nversion: 1\nparameters: 1\nstride: 1\n"
                              "tasks: 3\ngrid:\n  - [0, 1, 1]\nmeasured: []\n",
                              Out, Diags));
  EXPECT_NE(Errors.str().find("t.yaml:1:1: error: 'tasks' says 3 but the grid holds 2"),
            std::string::npos)
      << Errors.str();
}
