// The Delaunay triangulation of the measured tasks (Qhull's reentrant library) and the simplex
// that holds a task, found through a bucket grid.
#include "mpiete/farm/Triangulation.h"

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace mpiete::farm {

namespace {

/// Inverts the Dims x Dims matrix M (row-major) into Inv; its determinant, 0 when singular.
double invert(int Dims, std::vector<double> M, double *Inv) {
  const size_t N = size_t(Dims);
  std::vector<double> I(N * N, 0.0);
  for (size_t K = 0; K < N; ++K)
    I[K * N + K] = 1;
  double Det = 1;
  for (size_t C = 0; C < N; ++C) {
    size_t Pivot = C;
    for (size_t R = C + 1; R < N; ++R)
      if (std::fabs(M[R * N + C]) > std::fabs(M[Pivot * N + C]))
        Pivot = R;
    if (M[Pivot * N + C] == 0)
      return 0;
    if (Pivot != C) {
      for (size_t K = 0; K < N; ++K) {
        std::swap(M[C * N + K], M[Pivot * N + K]);
        std::swap(I[C * N + K], I[Pivot * N + K]);
      }
      Det = -Det;
    }
    const double P = M[C * N + C];
    Det *= P;
    for (size_t K = 0; K < N; ++K) {
      M[C * N + K] /= P;
      I[C * N + K] /= P;
    }
    for (size_t R = 0; R < N; ++R) {
      if (R == C || M[R * N + C] == 0)
        continue;
      const double F = M[R * N + C];
      for (size_t K = 0; K < N; ++K) {
        M[R * N + K] -= F * M[C * N + K];
        I[R * N + K] -= F * I[C * N + K];
      }
    }
  }
  std::copy(I.begin(), I.end(), Inv);
  return Det;
}

struct QhullFree {
  void operator()(qhT *Qh) const {
    int Long = 0, Total = 0;
    qh_freeqhull(Qh, !qh_ALL);
    qh_memfreeshort(Qh, &Long, &Total);
    delete Qh;
  }
};

} // namespace

std::optional<Triangulation> Triangulation::build(int Dims, const std::vector<double> &Points,
                                                  std::string &Why) {
  const size_t D = size_t(Dims), N = Dims > 0 ? Points.size() / D : 0;
  if (Dims < 2 || Dims > 8) {
    Why = "a triangulation needs 2 to 8 parameters";
    return std::nullopt;
  }
  if (N < D + 1) {
    Why = std::to_string(N) + " points, fewer than " + std::to_string(D + 1);
    return std::nullopt;
  }
  Triangulation T;
  T.Dims = Dims;
  T.Points.assign(Points.begin(), Points.begin() + std::ptrdiff_t(N * D));
  {
    // 'd' Delaunay, 'Qbb' scaled paraboloid, 'Qt' simplices only (a lattice's cospherical
    // points give squares), 'Qz' a point at infinity for cospherical input. Qhull's own
    // messages go nowhere: a failure is reported through Why.
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> Null(std::fopen("/dev/null", "w"),
                                                          std::fclose);
    std::unique_ptr<qhT, QhullFree> Qh(new qhT);
    qh_zero(Qh.get(), Null.get());
    std::vector<coordT> Coords(T.Points.begin(), T.Points.end());
    char Flags[] = "qhull d Qbb Qt Qz";
    if (qh_new_qhull(Qh.get(), Dims, int(N), Coords.data(), False, Flags, nullptr, Null.get()) !=
        0) {
      Why = "Qhull found no triangulation (the points lie in one hyperplane)";
      return std::nullopt;
    }
    qhT *qh = Qh.get(); // Qhull's macros name it so
    facetT *facet;
    vertexT *vertex, **vertexp;
    FORALLfacets {
      if (facet->upperdelaunay)
        continue;
      std::vector<int> S;
      FOREACHvertex_(facet->vertices) S.push_back(qh_pointid(qh, vertex->point));
      if (S.size() != D + 1 ||
          std::any_of(S.begin(), S.end(), [&](int P) { return P < 0 || size_t(P) >= N; }))
        continue;
      T.Simplices.insert(T.Simplices.end(), S.begin(), S.end());
    }
  }
  // Each simplex's edge matrix inverted; flat ones (Qt's degenerate triangles) left out.
  std::vector<int> Kept;
  double Factorial = 1;
  for (size_t K = 2; K <= D; ++K)
    Factorial *= double(K);
  std::vector<double> Edges(D * D);
  for (size_t S = 0; S < T.Simplices.size() / (D + 1); ++S) {
    const int *V = T.Simplices.data() + S * (D + 1);
    const double *P0 = &T.Points[size_t(V[0]) * D];
    double Scale = 0;
    for (size_t R = 0; R < D; ++R)
      for (size_t C = 0; C < D; ++C) {
        Edges[R * D + C] = T.Points[size_t(V[C + 1]) * D + R] - P0[R];
        Scale = std::max(Scale, std::fabs(Edges[R * D + C]));
      }
    std::vector<double> Inv(D * D);
    const double Det = invert(Dims, Edges, Inv.data());
    if (std::fabs(Det) <= 1e-9 * std::pow(Scale, double(D)))
      continue;
    Kept.insert(Kept.end(), V, V + D + 1);
    T.Inverses.insert(T.Inverses.end(), Inv.begin(), Inv.end());
    T.Volumes.push_back(std::fabs(Det) / Factorial);
  }
  T.Simplices = std::move(Kept);
  if (T.Volumes.empty()) {
    Why = "every simplex is flat (the points lie in one hyperplane)";
    return std::nullopt;
  }
  // The bucket grid: about one simplex per cell.
  const size_t G = std::min<size_t>(D, 3), Count = T.Volumes.size();
  T.GridDims = int(G);
  const int PerAxis = std::max(1, int(std::ceil(std::pow(double(Count), 1.0 / double(G)))));
  T.Low.assign(G, 0);
  T.Cell.assign(G, 1);
  T.Cells.assign(G, PerAxis);
  for (size_t K = 0; K < G; ++K) {
    double Lo = T.Points[K], Hi = T.Points[K];
    for (size_t P = 0; P < N; ++P) {
      Lo = std::min(Lo, T.Points[P * D + K]);
      Hi = std::max(Hi, T.Points[P * D + K]);
    }
    T.Low[K] = Lo;
    T.Cell[K] = Hi > Lo ? (Hi - Lo) / PerAxis : 1;
  }
  size_t CellCount = 1;
  for (size_t K = 0; K < G; ++K)
    CellCount *= size_t(PerAxis);
  // The cell range of each simplex's bounding box, visited twice: count, then fill.
  auto forEachCell = [&](size_t S, auto &&Visit) {
    int Lo[3] = {0, 0, 0}, Hi[3] = {0, 0, 0};
    for (size_t K = 0; K < G; ++K) {
      double Min = INFINITY, Max = -INFINITY;
      for (size_t J = 0; J <= D; ++J) {
        const double X = T.Points[size_t(T.Simplices[S * (D + 1) + J]) * D + K];
        Min = std::min(Min, X);
        Max = std::max(Max, X);
      }
      Lo[K] = std::clamp(int(std::floor((Min - T.Low[K]) / T.Cell[K])), 0, PerAxis - 1);
      Hi[K] = std::clamp(int(std::floor((Max - T.Low[K]) / T.Cell[K])), 0, PerAxis - 1);
    }
    int I[3] = {Lo[0], Lo[1], Lo[2]};
    for (;;) {
      size_t Index = 0;
      for (size_t K = G; K-- > 0;)
        Index = Index * size_t(PerAxis) + size_t(I[K]);
      Visit(Index);
      size_t K = 0;
      while (K < G && ++I[K] > Hi[K])
        I[K] = Lo[K], ++K;
      if (K == G)
        return;
    }
  };
  T.CellStart.assign(CellCount + 1, 0);
  for (size_t S = 0; S < Count; ++S)
    forEachCell(S, [&](size_t C) { ++T.CellStart[C + 1]; });
  for (size_t C = 0; C < CellCount; ++C)
    T.CellStart[C + 1] += T.CellStart[C];
  T.Members.resize(T.CellStart.back());
  std::vector<size_t> Next(T.CellStart.begin(), T.CellStart.end() - 1);
  for (size_t S = 0; S < Count; ++S)
    forEachCell(S, [&](size_t C) { T.Members[Next[C]++] = uint32_t(S); });
  return T;
}

bool Triangulation::weightsIn(size_t S, std::span<const double> X,
                              std::span<double> Weights) const {
  const size_t D = size_t(Dims);
  const int *V = Simplices.data() + S * (D + 1);
  const double *P0 = &Points[size_t(V[0]) * D];
  const double *Inv = &Inverses[S * D * D];
  double Sum = 0;
  constexpr double Slack = -1e-9;
  for (size_t R = 0; R < D; ++R) {
    double L = 0;
    for (size_t C = 0; C < D; ++C)
      L += Inv[R * D + C] * (X[C] - P0[C]);
    if (L < Slack)
      return false;
    Weights[R + 1] = L;
    Sum += L;
  }
  if (1 - Sum < Slack)
    return false;
  Weights[0] = 1 - Sum;
  return true;
}

long Triangulation::locate(std::span<const double> X, std::span<double> Weights) const {
  if (X.size() != size_t(Dims) || Weights.size() != size_t(Dims + 1))
    return -1;
  size_t Index = 0;
  for (size_t K = size_t(GridDims); K-- > 0;) {
    const double F = std::floor((X[K] - Low[K]) / Cell[K]);
    // Past the grid's edge (the hull's bounding box) by more than rounding: outside.
    if (F < -1 || F > Cells[K])
      return -1;
    Index = Index * size_t(Cells[K]) + size_t(std::clamp(int(F), 0, Cells[K] - 1));
  }
  for (size_t M = CellStart[Index]; M < CellStart[Index + 1]; ++M)
    if (weightsIn(Members[M], X, Weights))
      return long(Members[M]);
  return -1;
}

} // namespace mpiete::farm
