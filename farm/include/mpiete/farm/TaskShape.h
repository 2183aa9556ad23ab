// Where to measure a farm's tasks: each parameter's measured values placed by the shape of the
// task-cost surface the trace probe saw (docs/taskfarm.md, "Placing the subset by the shape").
#ifndef MPIETE_FARM_TASKSHAPE_H
#define MPIETE_FARM_TASKSHAPE_H

#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/farm/TaskCostTable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpiete::farm {

/// The shape's errors below this share of its mean task time are taken for noise: one body's
/// CPU time in the trace probe still varies by a few percent with what its caches hold
/// (probe-compute --tasks-grid uses it).
inline constexpr double ShapeTolerance = 0.05;

/// The values of every parameter the timing probe measures with --tasks-subset Stride: as many
/// as seed 000's rule takes (max(2, ceil(n / Stride)) of the axis's n values, at most n), both
/// ends among them, the rest chosen one at a time along each axis. Shape holds the task set (a
/// grid) and the times the trace probe measured for some of its tasks (any machine: only their
/// ratios count). The next value is the shape's measured value where linear interpolation
/// through the values chosen so far errs most, over every line of the shape along that axis
/// (the other parameters fixed; a chosen value the line did not measure takes its nearest
/// measured value), as long as that error exceeds Tolerance times the shape's mean task time;
/// otherwise the middle of the widest gap between chosen values. With no shape times the result
/// is seed 000's even spread (mpiete_task_axis_pick). Each list is sorted.
std::vector<std::vector<int64_t>> chooseTaskValues(const TaskCosts &Shape, int64_t Stride,
                                                   double Tolerance);

/// The target's measured tasks joined by the shape's (docs/taskfarm.md, "The shape as data"):
/// every task the shape measured and Target did not joins Target's measured rows with the
/// shape's time times Scale, Scale = the sum of Target's times over the sum of the shape's over
/// the tasks both measured (one speed ratio between the trace machine and the target, as r_s
/// between two targets). Nothing joins (Scale 0) when they share no task with a positive time
/// or their parameter counts differ, and when the tasks in common hold less than MinShare of the
/// shape's measured time (a scale taken from tasks of a few microseconds, the clocks' own
/// cost, says nothing of the speed ratio). The interpolation then sees both samples.
struct ShapeJoin {
  TaskCosts Costs;   ///< Target with the shape's other tasks added, scaled
  double Scale = 0;  ///< the target's time per unit of the shape's
  size_t Joined = 0; ///< rows added from the shape
};
ShapeJoin joinShape(const TaskCosts &Target, const TaskCosts &Shape,
                    double MinShare = ShapeTolerance);

/// Of the reference machine's values (Values, one sorted list per parameter), those a machine
/// probed only for its speed ratio r_s runs (probe-compute --tasks-every Every): each axis's
/// costliest value by the shape (its tasks over the lattice of the other axes' values, the
/// times the shape measured summed; a task it did not measure counts 0, as an interpolation
/// flat past the shape's last value can call a cheap end costly), then more values one at a time,
/// each on the axis whose next costliest adds most, until the chosen lattice's shape time reaches
/// the reference's over Every^D (what every Every-th value gives on a flat surface). Every Every-th
/// value of a surface whose costs span five orders of magnitude (farm-2d's tiles: 5 us outside
/// the set, 0.23 s inside) can leave the ratio resting on tasks of a few microseconds, the
/// clocks' own cost. Ties keep the lower value. Without shape times for these tasks (or Every
/// 1): every Every-th value, as the runtime picks them. Each list sorted.
std::vector<std::vector<int64_t>> costliestValues(const TaskCosts &Shape,
                                                  const std::vector<std::vector<int64_t>> &Values,
                                                  int64_t Every);

/// The tasks the timing probe measures with --tasks-subset Stride as points, not a lattice of
/// values (docs/taskfarm.md, "Points placed by the shape"), for 2 or more parameters: as many as
/// the lattice would hold (the product over the axes of max(2, ceil(n / Stride)), at most n),
/// made of the box's corners the shape did not measure (when they are at most half of them),
/// the shape's costliest tasks until they hold 2 MinShare of its measured time (at most a
/// quarter of them: the scale between the trace machine and the target rests on them), and the
/// centroids of the shape's Delaunay simplices, the simplex whose times spread most times its
/// volume first (a simplex chosen is split at its centroid, each part scored a (D + 1)-th),
/// rounded to the grid. A lattice of values cannot follow a surface whose costs change along a
/// curve (farm-2d's Mandelbrot set); points can. Empty (the caller places values) for one
/// parameter, without the task grid, with fewer than D + 1 shape times on the grid or when they
/// lie in one hyperplane. Sorted.
std::vector<std::vector<int64_t>> chooseTaskPoints(const TaskCosts &Shape, int64_t Stride,
                                                   double MinShare = ShapeTolerance);

/// The shape's estimate of a task's time: its measured time, else the interpolation over the
/// tasks it timed (TaskCostTable: over their simplices, the nearest outside their hull).
class ShapeEstimate {
public:
  explicit ShapeEstimate(const TaskCosts &Shape);
  double seconds(const std::vector<int64_t> &Params) const;
  /// Summed over the lattice of Values (one sorted list per parameter).
  double latticeSeconds(const std::vector<std::vector<int64_t>> &Values) const;

private:
  TaskCosts Timed;
  TaskCostTable Table;
};

/// Of the reference machine's Points, those a machine probed only for its speed ratio r_s
/// runs (--tasks-every): the costliest by the shape's Estimate first, until they hold Seconds
/// of it (at least one). probe-compute gives the estimate of the lattice of values
/// costliestValues would have given that machine, so its cost stays what the lattice's was
/// while machine A's points go where the shape changes. Seconds <= 0: all of them. Sorted.
std::vector<std::vector<int64_t>> costliestPoints(const ShapeEstimate &Estimate,
                                                  const std::vector<std::vector<int64_t>> &Points,
                                                  double Seconds);

/// Of the reference machine's measured tasks (Reference: the task costs of a probe-compute
/// --tasks-subset run on it), those a machine probed only for its speed ratio r_s runs
/// (probe-compute --tasks-every with --tasks-reference). Past a few tens of milliseconds a
/// task's time ratio between two machines varies by a few percent whatever its length
/// (docs/taskfarm.md, "The speed ratio's tasks"), so: the fewest tasks that hold Seconds of
/// the reference's measured time, and of those the least time past it. While no remaining task
/// holds what is missing alone, the costliest; then the cheapest that does (ties: the first in
/// the reference's order). Tasks the reference timed at 0 or less never count. Seconds <= 0 or
/// more than they hold: all of them. Sorted.
std::vector<std::vector<int64_t>> ratioTasks(const TaskCosts &Reference, double Seconds);

/// The points as the MPIETE_TASK_POINTS file lists them: a task per line, its parameters
/// separated by spaces.
std::string taskPointsText(const std::vector<std::vector<int64_t>> &Points);

/// The lists as MPIETE_TASK_VALUES takes them: values comma-separated, axes by '/'.
std::string taskValuesText(const std::vector<std::vector<int64_t>> &Values);

} // namespace mpiete::farm

#endif
