// The per-task compute costs of a task farm, tasks.yaml (format mpiete-tasks, version 1),
// written beside machine.yaml by probe-compute: every task's parameters (compactly, as a grid
// when they form one) and the time of each task the timing probe ran; types, writer, readers.
#ifndef MPIETE_BASEDATA_TASKCOSTS_H
#define MPIETE_BASEDATA_TASKCOSTS_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

/// One axis of the task set: First, First + Step, ..., Last.
struct TaskAxis {
  int64_t First = 0, Last = 0, Step = 1;
  bool operator==(const TaskAxis &) const = default;
  /// Whether V is one of the axis's values.
  bool holds(int64_t V) const { return V >= First && V <= Last && (V - First) % Step == 0; }
};

struct TaskCosts {
  static constexpr int FormatVersion = 1;
  std::string Tool, Command, Host;
  int Dims = 0;
  int64_t Stride = 1; ///< the timing probe ran the tasks whose parameters are multiples of it
  /// Every task the farm had, in increasing parameter order (the farm's queue order, as loops
  /// over the parameters produce it): the product of Axes when Grid, else List (Dims each).
  bool Grid = false;
  std::vector<TaskAxis> Axes;
  std::vector<int64_t> List;
  /// The tasks the timing probe ran: parameters (Dims each) and seconds, in parameter order.
  std::vector<int64_t> MeasuredParams;
  std::vector<double> MeasuredSeconds;

  uint64_t taskCount() const;
  /// Every task's parameters, flattened, in parameter order.
  std::vector<int64_t> allTasks() const;
  size_t measuredCount() const { return MeasuredSeconds.size(); }
};

/// One line of a rank's rank<N>.tasks (runtime/lib/TaskHooks.cpp): Seconds < 0 when skipped.
struct TaskRecord {
  std::vector<int64_t> Params;
  double Seconds = -1;
};

/// Reads a rank<N>.tasks file; appends to Out. False (reported at the line) on error.
bool parseTaskRecords(const std::string &Name, const std::string &Text,
                      std::vector<TaskRecord> &Out, int64_t &Stride, DiagnosticSink &Diags);

/// The tasks of all ranks as one table: a task seen more than once (the same parameters) keeps
/// the mean of its measured times. False (reported against Name) when the tasks' parameter
/// counts differ.
bool buildTaskCosts(const std::string &Name, std::vector<TaskRecord> Records, TaskCosts &Out,
                    DiagnosticSink &Diags);

/// The timing probe's Dir/rank<R>.tasks for R < Ranks merged into Out; Found says whether any
/// rank ran a task. False (reported) on a bad file.
bool readTaskDirectory(const std::string &Dir, int Ranks, TaskCosts &Out, bool &Found,
                       DiagnosticSink &Diags);

/// Where the task costs of the compute base data MachinePath live: machine.yaml ->
/// machine.tasks.yaml (probe-compute writes it, estimate reads it).
std::string taskCostsPathOf(const std::string &MachinePath);

void writeTaskCosts(std::ostream &OS, const TaskCosts &File);
bool parseTaskCosts(const std::string &Name, const std::string &Text, TaskCosts &Out,
                    DiagnosticSink &Diags);
bool loadTaskCosts(const std::string &Path, TaskCosts &Out, DiagnosticSink &Diags);

} // namespace mpiete

#endif
