// Seed 000's interpolation of task costs over the measured subset, and the subset rule.
#include "mpiete/farm/TaskCostTable.h"

#include "mpiete/task.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mpiete::farm {

std::vector<size_t> subsetOf(const std::vector<int64_t> &Tasks, int Dims, int64_t Stride,
                             const std::vector<TaskAxis> &Grid, int64_t Every) {
  std::vector<size_t> Out;
  std::vector<long long> P(static_cast<size_t>(Dims), 0), Axes;
  for (const TaskAxis &A : Grid)
    Axes.insert(Axes.end(), {A.First, A.Last, A.Step});
  for (size_t I = 0; Dims > 0 && (I + 1) * size_t(Dims) <= Tasks.size(); ++I) {
    std::copy_n(Tasks.begin() + std::ptrdiff_t(I * size_t(Dims)), Dims, P.begin());
    if (Grid.empty() ? mpiete_task_in_subset(Dims, P.data(), Stride)
                     : mpiete_task_in_grid_subset(Dims, P.data(), Axes.data(), Stride, Every))
      Out.push_back(I);
  }
  return Out;
}

TaskCostTable::TaskCostTable(const TaskCosts &Costs) : Dims(Costs.Dims) {
  Axes.resize(size_t(Dims));
  for (size_t T = 0; T < Costs.MeasuredSeconds.size(); ++T) {
    auto First = Costs.MeasuredParams.begin() + std::ptrdiff_t(T * size_t(Dims));
    std::vector<int64_t> P(First, First + Dims);
    for (int K = 0; K < Dims; ++K)
      Axes[size_t(K)].push_back(P[size_t(K)]);
    Measured[std::move(P)] = Costs.MeasuredSeconds[T];
  }
  size_t GridSize = 1;
  for (auto &A : Axes) {
    std::sort(A.begin(), A.end());
    A.erase(std::unique(A.begin(), A.end()), A.end());
    GridSize *= A.size();
  }
  if (Dims < 2 || GridSize == Measured.size())
    return; // seed 000's grid (one parameter: linear between neighbours, the same thing)
  std::vector<double> Points;
  for (const auto &[P, S] : Measured) {
    Points.insert(Points.end(), P.begin(), P.end());
    PointSeconds.push_back(S);
  }
  std::string Why;
  Simplices = Triangulation::build(Dims, Points, Why);
  if (!Simplices)
    PointSeconds.clear();
}

double TaskCostTable::seconds(std::span<const int64_t> Params) const {
  if (Measured.empty() || int(Params.size()) != Dims)
    return 0;
  if (Simplices) {
    double X[8], W[9];
    for (int K = 0; K < Dims; ++K)
      X[K] = double(Params[size_t(K)]);
    const long S = Simplices->locate({X, size_t(Dims)}, {W, size_t(Dims + 1)});
    if (S < 0)
      return nearest(Params);
    double Sum = 0;
    const std::span<const int> Corners = Simplices->simplex(size_t(S));
    for (size_t K = 0; K < Corners.size(); ++K)
      Sum += W[K] * PointSeconds[size_t(Corners[K])];
    return Sum;
  }
  // B(x_k) and U(x_k) of every axis; off the grid both are the nearest measured value.
  std::vector<int64_t> Lo(static_cast<size_t>(Dims)), Hi(static_cast<size_t>(Dims));
  for (int K = 0; K < Dims; ++K) {
    const auto &A = Axes[size_t(K)];
    const int64_t X = Params[size_t(K)];
    auto It = std::lower_bound(A.begin(), A.end(), X);
    if (It == A.end()) {
      Lo[size_t(K)] = Hi[size_t(K)] = A.back();
    } else if (*It == X || It == A.begin()) {
      Lo[size_t(K)] = Hi[size_t(K)] = *It;
    } else {
      Hi[size_t(K)] = *It;
      Lo[size_t(K)] = *std::prev(It);
    }
  }
  std::vector<int64_t> X(static_cast<size_t>(Dims));
  bool Found = false;
  double S = corner(X, Lo, Hi, Params, 0, Found);
  return Found ? S : nearest(Params);
}

// T_k of seed 000's equation 1, axis K onwards: the weighted mean of the two sub-boxes.
double TaskCostTable::corner(std::vector<int64_t> &X, const std::vector<int64_t> &Lo,
                             const std::vector<int64_t> &Hi, std::span<const int64_t> Params, int K,
                             bool &Found) const {
  if (K == Dims) {
    auto It = Measured.find(X);
    Found = It != Measured.end();
    return Found ? It->second : 0;
  }
  const size_t Ks = size_t(K);
  X[Ks] = Lo[Ks];
  bool FoundLo = false, FoundHi = false;
  const double AtLo = corner(X, Lo, Hi, Params, K + 1, FoundLo);
  if (Hi[Ks] == Lo[Ks]) {
    Found = FoundLo;
    return AtLo;
  }
  X[Ks] = Hi[Ks];
  const double AtHi = corner(X, Lo, Hi, Params, K + 1, FoundHi);
  Found = FoundLo || FoundHi;
  if (!FoundLo || !FoundHi)
    return FoundLo ? AtLo : AtHi;
  const double P = double(Params[Ks] - Lo[Ks]) / double(Hi[Ks] - Lo[Ks]);
  return (1 - P) * AtLo + P * AtHi;
}

double TaskCostTable::nearest(std::span<const int64_t> Params) const {
  double Best = std::numeric_limits<double>::infinity(), Seconds = 0;
  for (const auto &[P, S] : Measured) {
    double D = 0;
    for (int K = 0; K < Dims; ++K)
      D += std::pow(double(P[size_t(K)] - Params[size_t(K)]), 2);
    if (D < Best) {
      Best = D;
      Seconds = S;
    }
  }
  return Seconds;
}

} // namespace mpiete::farm
