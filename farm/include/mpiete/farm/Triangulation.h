// The Delaunay triangulation of a scattered set of task parameters (Qhull) and linear
// interpolation over its simplices: the task costs of a measured subset that is no grid.
#ifndef MPIETE_FARM_TRIANGULATION_H
#define MPIETE_FARM_TRIANGULATION_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mpiete::farm {

/// Why Qhull and not our own: a Delaunay triangulation in 2 to 8 dimensions with degenerate
/// (cospherical) input, as a lattice of tasks is, is Qhull's job, and Debian ships it
/// (libqhull-dev); docs/taskfarm.md, "Points placed by the shape".
class Triangulation {
public:
  /// Points (Dims coordinates each, Dims 2 to 8). Nothing (Why says why) with fewer than
  /// Dims + 1 points or all of them in one hyperplane: no simplex has a volume.
  static std::optional<Triangulation> build(int Dims, const std::vector<double> &Points,
                                            std::string &Why);

  int dims() const { return Dims; }
  size_t simplexCount() const { return Simplices.size() / size_t(Dims + 1); }
  /// The Dims + 1 point indices of simplex S.
  std::span<const int> simplex(size_t S) const {
    return {Simplices.data() + S * size_t(Dims + 1), size_t(Dims + 1)};
  }
  /// The volume of simplex S (its points' span, over Dims!).
  double volume(size_t S) const { return Volumes[S]; }
  /// The simplex holding X (its index; Weights, Dims + 1 of them, X's barycentric coordinates:
  /// non-negative, summing to 1, in the order of simplex()), or -1 outside the points' hull.
  long locate(std::span<const double> X, std::span<double> Weights) const;

private:
  bool weightsIn(size_t S, std::span<const double> X, std::span<double> Weights) const;

  int Dims = 0;
  std::vector<double> Points;   ///< Dims each
  std::vector<int> Simplices;   ///< Dims + 1 point indices each
  std::vector<double> Inverses; ///< per simplex: the inverse of its edge matrix, Dims x Dims
  std::vector<double> Volumes;
  // A bucket grid over the first min(Dims, 3) coordinates: the simplices whose bounding box
  // meets each cell, so locate() tests a few simplices, not all.
  int GridDims = 0;
  std::vector<double> Low, Cell;
  std::vector<int> Cells;
  std::vector<size_t> CellStart; ///< into Members, one more than the cells
  std::vector<uint32_t> Members;
};

} // namespace mpiete::farm

#endif
