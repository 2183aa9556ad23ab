// A task's compute cost from the measured subset of a farm's tasks: seed 000's N-dimensional
// linear interpolation over the grid of measured parameters, and the subset rule itself.
#ifndef MPIETE_FARM_TASKCOSTTABLE_H
#define MPIETE_FARM_TASKCOSTTABLE_H

#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/farm/Triangulation.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace mpiete::farm {

/// The indices (into Tasks, Dims parameters each) of the tasks the timing probe runs with
/// --tasks-subset Stride (seed 000's I_s = I_s,1 x ... x I_s,N). With the task set's Grid
/// (--tasks-grid): max(2, ceil(n / Stride)) of each axis's n values, spread evenly from its
/// first to its last, and of those every Every-th (mpiete/task.h's mpiete_task_in_grid_subset);
/// without it the tasks whose every parameter is a multiple of Stride (mpiete_task_in_subset).
std::vector<size_t> subsetOf(const std::vector<int64_t> &Tasks, int Dims, int64_t Stride,
                             const std::vector<TaskAxis> &Grid = {}, int64_t Every = 1);

class TaskCostTable {
public:
  explicit TaskCostTable(const TaskCosts &Costs);
  bool empty() const { return Measured.empty(); }
  /// Seconds of the task with Params on the machine the costs were measured on: the measured
  /// time, else the linear interpolation between the measured values around it along each
  /// axis (B(x_k) <= x_k <= U(x_k), seed 000 equation 1). Off the grid (a parameter below the
  /// smallest or above the largest measured value of its axis) the axis takes its nearest
  /// measured value: the cost is extended flat, never extrapolated. A box corner that was not
  /// measured (a task set that is no full grid) drops out and the other corner of its axis
  /// takes its weight; with no corner at all, the nearest measured task's time.
  /// Measured tasks that are no full grid (points placed by the shape, or a grid joined by the
  /// shape's lattice) in 2 or more parameters: linear over the simplex of their Delaunay
  /// triangulation that holds Params (the barycentric mean of its corners' times), the nearest
  /// measured task's time outside their hull; the rule above where they lie in one hyperplane.
  double seconds(std::span<const int64_t> Params) const;
  /// Whether the measured tasks are interpolated over their triangulation.
  bool scattered() const { return Simplices.has_value(); }

private:
  double corner(std::vector<int64_t> &X, const std::vector<int64_t> &Lo,
                const std::vector<int64_t> &Hi, std::span<const int64_t> Params, int K,
                bool &Found) const;
  double nearest(std::span<const int64_t> Params) const;

  int Dims = 0;
  std::vector<std::vector<int64_t>> Axes; ///< the measured values of each axis, sorted
  std::map<std::vector<int64_t>, double> Measured;
  std::optional<Triangulation> Simplices;
  std::vector<double> PointSeconds; ///< the triangulation's points' times, in Measured's order
};

} // namespace mpiete::farm

#endif
