// The subset's values placed by the trace probe's shape of the task costs: greedy knot
// insertion for the piecewise-linear interpolation the estimator does (seed 000 equation 1).
#include "mpiete/farm/TaskShape.h"

#include "mpiete/farm/TaskCostTable.h"
#include "mpiete/farm/Triangulation.h"
#include "mpiete/task.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <queue>
#include <set>
#include <tuple>

namespace mpiete::farm {

namespace {

using Line = std::map<int64_t, double>; // measured value along the axis -> seconds

/// The line's time at X: its measured value nearest X (the lower one on a tie).
double nearestOnLine(const Line &L, int64_t X) {
  auto Hi = L.lower_bound(X);
  if (Hi == L.end())
    return std::prev(Hi)->second;
  if (Hi->first == X || Hi == L.begin())
    return Hi->second;
  auto Lo = std::prev(Hi);
  return X - Lo->first <= Hi->first - X ? Lo->second : Hi->second;
}

/// The shape's bend at X along its line: |f(prev) - 2 f(X) + f(next)| over the line's own
/// measured neighbours of X, relative to Mean and per value of the axis squared (so h^2 times it
/// is the interpolation's error over h values in units of the mean), 0 where the line has no
/// value at X or no neighbour on either side, or below Tolerance.
double shapeBend(const Line &L, int64_t X, int64_t Step, double Mean, double Tolerance) {
  const auto At = L.find(X);
  if (At == L.end() || At == L.begin() || std::next(At) == L.end())
    return 0;
  const auto Prev = std::prev(At), Next = std::next(At);
  const double Spacing = double(std::max(X - Prev->first, Next->first - X)) / double(Step);
  const double Second = std::fabs(Prev->second - 2 * At->second + Next->second) / Mean;
  return Second <= Tolerance ? 0 : Second / (Spacing * Spacing);
}

std::vector<int64_t> evenValues(const TaskAxis &A, int64_t N, int64_t M) {
  std::vector<int64_t> Out;
  for (int64_t K = 0; K < M; ++K)
    Out.push_back(A.First + A.Step * int64_t(mpiete_task_axis_pick(K, M, N)));
  return Out;
}

/// The rows of the shape on its grid with a time (a task it skipped has none).
std::vector<size_t> rowsOnGrid(const TaskCosts &Shape) {
  const size_t D = size_t(Shape.Dims);
  std::vector<size_t> Rows;
  for (size_t T = 0; T < Shape.MeasuredSeconds.size(); ++T) {
    bool OnGrid = Shape.MeasuredSeconds[T] >= 0 && D == Shape.Axes.size();
    for (size_t K = 0; OnGrid && K < D; ++K)
      OnGrid = Shape.Axes[K].holds(Shape.MeasuredParams[T * D + K]);
    if (OnGrid)
      Rows.push_back(T);
  }
  return Rows;
}

/// The axis's number of values.
int64_t valueCount(const TaskAxis &A) {
  return A.Step < 1 || A.Last < A.First ? 1 : (A.Last - A.First) / A.Step + 1;
}

/// How many of an axis's N values the subset of stride Stride measures (mpiete_task_on_axis).
int64_t subsetCount(int64_t N, int64_t Stride) {
  return Stride <= 1 ? N : std::min(N, std::max<int64_t>(2, (N + Stride - 1) / Stride));
}

} // namespace

std::vector<std::vector<int64_t>> chooseTaskValues(const TaskCosts &Shape, int64_t Stride,
                                                   double Tolerance) {
  const size_t D = size_t(Shape.Dims);
  std::vector<std::vector<int64_t>> Out(Shape.Axes.size());
  // The shape's times on the grid, and their mean (the error's unit: only ratios count).
  const std::vector<size_t> Rows = rowsOnGrid(Shape);
  double Sum = 0;
  for (size_t T : Rows)
    Sum += Shape.MeasuredSeconds[T];
  const double Mean = Rows.empty() ? 0 : Sum / double(Rows.size());
  for (size_t K = 0; K < Shape.Axes.size(); ++K) {
    const TaskAxis &A = Shape.Axes[K];
    const int64_t N = valueCount(A), M = subsetCount(N, Stride);
    if (Mean <= 0 || M <= 2) {
      Out[K] = evenValues(A, N, M);
      continue;
    }
    // The shape's lines along axis K: the other parameters fixed.
    std::map<std::vector<int64_t>, Line> Lines;
    for (size_t T : Rows) {
      std::vector<int64_t> Key(Shape.MeasuredParams.begin() + std::ptrdiff_t(T * D),
                               Shape.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D));
      const int64_t V = Key[K];
      Key[K] = 0;
      Lines[Key][V] = Shape.MeasuredSeconds[T];
    }
    std::set<int64_t> Chosen{A.First, A.Last};
    while (int64_t(Chosen.size()) < M) {
      double Worst = -1;
      int64_t WorstAt = 0;
      for (const auto &[Key, L] : Lines)
        for (const auto &[V, S] : L) {
          auto Hi = Chosen.upper_bound(V);
          if (Chosen.count(V) || Hi == Chosen.begin() || Hi == Chosen.end())
            continue;
          const int64_t Lo = *std::prev(Hi);
          const double AtLo = nearestOnLine(L, Lo), AtHi = nearestOnLine(L, *Hi);
          const double Err =
              std::fabs(S - (AtLo + (AtHi - AtLo) * double(V - Lo) / double(*Hi - Lo))) / Mean;
          if (Err > Worst || (Err == Worst && V < WorstAt)) {
            Worst = Err;
            WorstAt = V;
          }
        }
      if (Worst > Tolerance) {
        Chosen.insert(WorstAt);
        continue;
      }
      // Every value the shape measured is on the line: the middle of the gap whose
      // interpolation errs most. Linear interpolation over a gap of h values errs by about
      // h^2 |f''| / 8; f'' is the shape's second difference at the gap's ends (over its own
      // spacing, relative to the mean, noise below the tolerance left out; none where the
      // shape measured values inside the gap, which lie on its line). A gap is scored
      // h (1 + h^2 f''), so a flat shape fills its widest gaps (the first of equals) and a
      // narrow band the shape samples coarsely is measured inside before the flat gaps
      // elsewhere are halved again (docs/taskfarm.md, "Gaps by curvature").
      double Best = 0;
      int64_t GapAt = 0;
      for (auto It = Chosen.begin(); std::next(It) != Chosen.end(); ++It) {
        const int64_t Lo = *It, Hi = *std::next(It);
        const int64_t Inner = (Hi - Lo) / A.Step - 1;
        if (Inner <= 0)
          continue;
        const double H = double(Inner + 1);
        double Bend = 0;
        for (const auto &[Key, L] : Lines) {
          const auto Inside = L.upper_bound(Lo);
          if (Inside != L.end() && Inside->first < Hi)
            continue; // the shape measured inside the gap, on the line (the knots above)
          Bend = std::max({Bend, shapeBend(L, Lo, A.Step, Mean, Tolerance),
                           shapeBend(L, Hi, A.Step, Mean, Tolerance)});
        }
        const double Score = H * (1 + H * H * Bend);
        if (Score > Best) {
          Best = Score;
          GapAt = Lo + A.Step * ((Inner + 1) / 2);
        }
      }
      if (Best == 0)
        break;
      Chosen.insert(GapAt);
    }
    Out[K].assign(Chosen.begin(), Chosen.end());
  }
  return Out;
}

ShapeJoin joinShape(const TaskCosts &Target, const TaskCosts &Shape, double MinShare) {
  ShapeJoin J;
  J.Costs = Target;
  const size_t D = size_t(Target.Dims);
  if (D == 0 || Shape.Dims != Target.Dims)
    return J;
  std::map<std::vector<int64_t>, double> Measured;
  for (size_t T = 0; T < Target.MeasuredSeconds.size(); ++T)
    Measured[{Target.MeasuredParams.begin() + std::ptrdiff_t(T * D),
              Target.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)}] =
        Target.MeasuredSeconds[T];
  double SumTarget = 0, SumShape = 0, ShapeTotal = 0;
  std::vector<size_t> Others; // the shape's rows the target did not measure
  for (size_t T = 0; T < Shape.MeasuredSeconds.size(); ++T) {
    auto It = Measured.find({Shape.MeasuredParams.begin() + std::ptrdiff_t(T * D),
                             Shape.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)});
    if (Shape.MeasuredSeconds[T] > 0)
      ShapeTotal += Shape.MeasuredSeconds[T];
    if (It == Measured.end()) {
      Others.push_back(T);
    } else if (Shape.MeasuredSeconds[T] >= 0 && It->second >= 0) {
      SumTarget += It->second;
      SumShape += Shape.MeasuredSeconds[T];
    }
  }
  if (SumTarget <= 0 || SumShape <= 0 || SumShape < MinShare * ShapeTotal)
    return J;
  J.Scale = SumTarget / SumShape;
  for (size_t T : Others) {
    if (Shape.MeasuredSeconds[T] < 0)
      continue;
    J.Costs.MeasuredParams.insert(J.Costs.MeasuredParams.end(),
                                  Shape.MeasuredParams.begin() + std::ptrdiff_t(T * D),
                                  Shape.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D));
    J.Costs.MeasuredSeconds.push_back(J.Scale * Shape.MeasuredSeconds[T]);
    ++J.Joined;
  }
  return J;
}

std::vector<std::vector<int64_t>> costliestValues(const TaskCosts &Shape,
                                                  const std::vector<std::vector<int64_t>> &Values,
                                                  int64_t Every) {
  const size_t D = Values.size();
  std::vector<std::vector<int64_t>> Out(D);
  const bool Timed = Every > 1 && Shape.measuredCount() > 0 && size_t(Shape.Dims) == D &&
                     std::none_of(Values.begin(), Values.end(),
                                  [](const std::vector<int64_t> &V) { return V.empty(); });
  auto everyNth = [&] {
    for (size_t K = 0; K < D; ++K)
      for (size_t I = 0; I < Values[K].size(); I += size_t(std::max<int64_t>(Every, 1)))
        Out[K].push_back(Values[K][I]);
    return Out;
  };
  if (!Timed)
    return everyNth();
  // The shape's own measurements only, not TaskCostTable's interpolation: at an end the shape
  // did not reach, the flat extension of its last value can call a tile of a few microseconds
  // costly (farm-2d: 31 of 0..31 took 28's 0.12 s; it costs 11-21 us). A task the shape did not
  // measure counts 0.
  std::map<std::vector<int64_t>, double> Measured;
  for (size_t T = 0; T < Shape.measuredCount(); ++T)
    Measured[{Shape.MeasuredParams.begin() + std::ptrdiff_t(T * D),
              Shape.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)}] =
        Shape.MeasuredSeconds[T];
  // Calls Visit(Index, Seconds) for every task of the lattice of Lists (an odometer).
  std::vector<int64_t> P(D);
  std::vector<size_t> Index(D);
  auto forEachTask = [&](const std::vector<std::vector<int64_t>> &Lists, auto &&Visit) {
    std::fill(Index.begin(), Index.end(), 0);
    for (;;) {
      for (size_t J = 0; J < D; ++J)
        P[J] = Lists[J][Index[J]];
      const auto It = Measured.find(P);
      Visit(Index, It == Measured.end() ? 0.0 : It->second);
      size_t J = 0;
      while (J < D && ++Index[J] == Lists[J].size())
        Index[J++] = 0;
      if (J == D)
        return;
    }
  };
  auto latticeSeconds = [&](const std::vector<std::vector<int64_t>> &Lists) {
    double Sum = 0;
    forEachTask(Lists, [&](const std::vector<size_t> &, double Sec) { Sum += Sec; });
    return Sum;
  };
  // One pass over the reference's lattice: each value's tasks summed (Score), and all of them.
  std::vector<std::vector<double>> Score(D);
  for (size_t K = 0; K < D; ++K)
    Score[K].assign(Values[K].size(), 0.0);
  double Budget = 0;
  forEachTask(Values, [&](const std::vector<size_t> &I, double Sec) {
    for (size_t K = 0; K < D; ++K)
      Score[K][I[K]] += Sec;
    Budget += Sec;
  });
  if (Budget <= 0) // the shape measured none of these tasks
    return everyNth();
  // Each axis's values, costliest first (ties: the lower value).
  std::vector<std::vector<int64_t>> Ranked(D);
  for (size_t K = 0; K < D; ++K) {
    std::vector<size_t> Order(Values[K].size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t A, size_t B) { return Score[K][A] > Score[K][B]; });
    for (size_t I : Order)
      Ranked[K].push_back(Values[K][I]);
    Out[K].push_back(Ranked[K][0]);
  }
  // The budget: the reference's tasks over Every^D, as every Every-th value would give on a
  // flat surface. Values join one at a time, each time on the axis whose next one adds most.
  for (size_t K = 0; K < D; ++K)
    Budget /= double(Every);
  double Have = latticeSeconds(Out);
  while (Have < Budget) {
    size_t Best = D;
    double BestHave = -1;
    for (size_t K = 0; K < D; ++K) {
      if (Out[K].size() == Ranked[K].size())
        continue;
      Out[K].push_back(Ranked[K][Out[K].size()]);
      const double H = latticeSeconds(Out);
      Out[K].pop_back();
      if (H > BestHave) {
        BestHave = H;
        Best = K;
      }
    }
    if (Best == D)
      break;
    Out[Best].push_back(Ranked[Best][Out[Best].size()]);
    Have = BestHave;
  }
  for (auto &L : Out)
    std::sort(L.begin(), L.end());
  return Out;
}

std::vector<std::vector<int64_t>> chooseTaskPoints(const TaskCosts &Shape, int64_t Stride,
                                                   double MinShare) {
  using Point = std::vector<int64_t>;
  const size_t D = size_t(Shape.Dims);
  if (D < 2 || Shape.Axes.size() != D || Stride <= 1)
    return {};
  // The budget: what the lattice of values would measure.
  uint64_t Budget = 1;
  for (const TaskAxis &A : Shape.Axes)
    Budget *= uint64_t(subsetCount(valueCount(A), Stride)); // at most the task count
  // The shape's times on the grid.
  std::map<Point, double> Measured;
  double Total = 0;
  for (size_t T : rowsOnGrid(Shape)) {
    Total += Shape.MeasuredSeconds[T];
    Measured[Point(Shape.MeasuredParams.begin() + std::ptrdiff_t(T * D),
                   Shape.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D))] =
        Shape.MeasuredSeconds[T];
  }
  if (Measured.size() < D + 1 || Total <= 0)
    return {};
  std::vector<double> Coords;
  std::vector<double> Times;
  for (const auto &[P, S] : Measured) {
    Coords.insert(Coords.end(), P.begin(), P.end());
    Times.push_back(S);
  }
  std::string Why;
  const std::optional<Triangulation> Tri = Triangulation::build(int(D), Coords, Why);
  if (!Tri)
    return {};
  std::set<Point> Chosen;
  auto take = [&](const Point &P) {
    if (Chosen.size() < Budget && !Measured.count(P))
      Chosen.insert(P);
  };
  // The box's corners (the hull then covers every task), when they leave room for the rest.
  if (D < 63 && (uint64_t(1) << D) * 2 <= Budget)
    for (uint64_t Mask = 0; Mask < (uint64_t(1) << D); ++Mask) {
      Point P(D);
      for (size_t K = 0; K < D; ++K)
        P[K] = Mask >> K & 1 ? Shape.Axes[K].Last : Shape.Axes[K].First;
      take(P);
    }
  // The shape's costliest tasks, measured again: the scale rests on them.
  {
    std::vector<std::pair<double, Point>> Ranked;
    for (const auto &[P, S] : Measured)
      Ranked.emplace_back(S, P);
    std::stable_sort(Ranked.begin(), Ranked.end(),
                     [](const auto &A, const auto &B) { return A.first > B.first; });
    double Held = 0;
    const uint64_t MaxScale = std::max<uint64_t>(1, Budget / 4);
    for (size_t I = 0; I < Ranked.size() && I < MaxScale && Held < 2 * MinShare * Total; ++I) {
      if (Chosen.size() >= Budget)
        break;
      Chosen.insert(Ranked[I].second);
      Held += Ranked[I].first;
    }
  }
  // The simplices, most spread times volume first; ties by the order they were queued.
  const double Mean = Total / double(Measured.size());
  using Simplex = std::vector<double>; // D + 1 corners, D coordinates each
  using Entry = std::tuple<double, uint64_t, Simplex>;
  auto Less = [](const Entry &A, const Entry &B) {
    return std::get<0>(A) != std::get<0>(B) ? std::get<0>(A) < std::get<0>(B)
                                            : std::get<1>(A) > std::get<1>(B);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(Less)> Queue(Less);
  uint64_t Order = 0;
  for (size_t S = 0; S < Tri->simplexCount(); ++S) {
    Simplex Corners;
    double Lo = INFINITY, Hi = -INFINITY;
    for (int V : Tri->simplex(S)) {
      Corners.insert(Corners.end(), Coords.begin() + std::ptrdiff_t(size_t(V) * D),
                     Coords.begin() + std::ptrdiff_t(size_t(V + 1) * D));
      Lo = std::min(Lo, Times[size_t(V)]);
      Hi = std::max(Hi, Times[size_t(V)]);
    }
    // Spreads below the shape's noise rank by volume alone: a flat shape fills its widest gaps.
    const double Score = Tri->volume(S) * (std::max(0.0, (Hi - Lo) / Mean) + ShapeTolerance);
    Queue.emplace(Score, Order++, std::move(Corners));
  }
  for (uint64_t Steps = 0; !Queue.empty() && Chosen.size() < Budget && Steps < 64 * Budget;
       ++Steps) {
    auto [Score, Unused, Corners] = Queue.top();
    Queue.pop();
    Point P(D);
    std::vector<double> Centre(D, 0.0);
    for (size_t K = 0; K < D; ++K) {
      for (size_t V = 0; V <= D; ++V)
        Centre[K] += Corners[V * D + K] / double(D + 1);
      const TaskAxis &A = Shape.Axes[K];
      const double Index = std::round((Centre[K] - double(A.First)) / double(A.Step));
      P[K] = std::clamp(A.First + A.Step * int64_t(Index), A.First, A.Last);
    }
    take(P);
    for (size_t V = 0; V <= D; ++V) {
      Simplex Part = Corners;
      std::copy(Centre.begin(), Centre.end(), Part.begin() + std::ptrdiff_t(V * D));
      Queue.emplace(Score / double(D + 1), Order++, std::move(Part));
    }
  }
  return {Chosen.begin(), Chosen.end()};
}

namespace {

/// Shape's rows with a time (a task it skipped has none).
TaskCosts timedRows(const TaskCosts &Shape) {
  TaskCosts T;
  T.Dims = Shape.Dims;
  const size_t D = size_t(std::max(Shape.Dims, 0));
  for (size_t R = 0; D > 0 && R < Shape.MeasuredSeconds.size(); ++R)
    if (Shape.MeasuredSeconds[R] >= 0) {
      T.MeasuredParams.insert(T.MeasuredParams.end(),
                              Shape.MeasuredParams.begin() + std::ptrdiff_t(R * D),
                              Shape.MeasuredParams.begin() + std::ptrdiff_t((R + 1) * D));
      T.MeasuredSeconds.push_back(Shape.MeasuredSeconds[R]);
    }
  return T;
}

} // namespace

ShapeEstimate::ShapeEstimate(const TaskCosts &Shape) : Timed(timedRows(Shape)), Table(Timed) {}

double ShapeEstimate::seconds(const std::vector<int64_t> &Params) const {
  return int(Params.size()) == Timed.Dims ? Table.seconds(Params) : 0;
}

double ShapeEstimate::latticeSeconds(const std::vector<std::vector<int64_t>> &Values) const {
  if (Values.empty() || std::any_of(Values.begin(), Values.end(),
                                    [](const std::vector<int64_t> &V) { return V.empty(); }))
    return 0;
  const size_t D = Values.size();
  std::vector<size_t> I(D, 0);
  std::vector<int64_t> P(D);
  double Sum = 0;
  for (;;) {
    for (size_t K = 0; K < D; ++K)
      P[K] = Values[K][I[K]];
    Sum += seconds(P);
    size_t K = 0;
    while (K < D && ++I[K] == Values[K].size())
      I[K++] = 0;
    if (K == D)
      return Sum;
  }
}

std::vector<std::vector<int64_t>> costliestPoints(const ShapeEstimate &Estimate,
                                                  const std::vector<std::vector<int64_t>> &Points,
                                                  double Seconds) {
  if (Seconds <= 0 || Points.empty())
    return Points;
  std::vector<std::pair<double, size_t>> Ranked;
  for (size_t I = 0; I < Points.size(); ++I)
    Ranked.emplace_back(Estimate.seconds(Points[I]), I);
  std::stable_sort(Ranked.begin(), Ranked.end(),
                   [](const auto &A, const auto &B) { return A.first > B.first; });
  std::vector<std::vector<int64_t>> Out;
  double Have = 0;
  for (const auto &[S, I] : Ranked) {
    if (!Out.empty() && Have >= Seconds)
      break;
    Out.push_back(Points[I]);
    Have += S;
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<std::vector<int64_t>> ratioTasks(const TaskCosts &Reference, double Seconds) {
  const size_t D = size_t(std::max(Reference.Dims, 0));
  std::vector<std::pair<double, std::vector<int64_t>>> Left; // costliest first
  for (size_t T = 0; D > 0 && T < Reference.MeasuredSeconds.size(); ++T)
    if (Reference.MeasuredSeconds[T] > 0)
      Left.emplace_back(
          Reference.MeasuredSeconds[T],
          std::vector<int64_t>(Reference.MeasuredParams.begin() + std::ptrdiff_t(T * D),
                               Reference.MeasuredParams.begin() + std::ptrdiff_t((T + 1) * D)));
  std::stable_sort(Left.begin(), Left.end(),
                   [](const auto &A, const auto &B) { return A.first > B.first; });
  std::vector<std::vector<int64_t>> Out;
  double Total = 0;
  for (const auto &L : Left)
    Total += L.first;
  if (Seconds <= 0 || Seconds >= Total) {
    for (auto &L : Left)
      Out.push_back(std::move(L.second));
  } else {
    double Missing = Seconds;
    size_t Next = 0; // Left[Next..] are not taken
    while (Missing > 0 && Next < Left.size()) {
      if (Left[Next].first < Missing) { // none holds it alone: the costliest
        Missing -= Left[Next].first;
        Out.push_back(std::move(Left[Next++].second));
        continue;
      }
      // The cheapest that holds it: the last of the costliest-first run at or above it.
      size_t Cheapest = Next;
      for (size_t I = Next; I < Left.size() && Left[I].first >= Missing; ++I)
        if (Left[I].first < Left[Cheapest].first)
          Cheapest = I;
      Out.push_back(std::move(Left[Cheapest].second));
      break;
    }
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string taskPointsText(const std::vector<std::vector<int64_t>> &Points) {
  std::string S;
  for (const auto &P : Points) {
    for (size_t K = 0; K < P.size(); ++K)
      S += (K ? " " : "") + std::to_string(P[K]);
    S += '\n';
  }
  return S;
}

std::string taskValuesText(const std::vector<std::vector<int64_t>> &Values) {
  std::string S;
  for (size_t K = 0; K < Values.size(); ++K) {
    if (K)
      S += '/';
    for (size_t I = 0; I < Values[K].size(); ++I)
      S += (I ? "," : "") + std::to_string(Values[K][I]);
  }
  return S;
}

} // namespace mpiete::farm
