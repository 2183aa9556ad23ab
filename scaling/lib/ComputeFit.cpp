// Per-segment compute models with rank 0 and rank P-1 apart where their compute differs.
#include "mpiete/scaling/ComputeFit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace mpiete::scaling {

namespace {

using Key = std::pair<estimator::BlockId, estimator::BlockId>;

/// Executions-weighted sums of one position in one run.
struct Sum {
  double Seconds = 0, Executions = 0;
  bool empty() const { return Executions <= 0; }
  double mean() const { return Seconds / Executions; }
  void add(const Sum &O) {
    Seconds += O.Seconds;
    Executions += O.Executions;
  }
};

constexpr int FirstIdx = 0, LastIdx = 1, BetweenIdx = 2;

/// One run's sums of one segment at rank 0, at rank P-1 and between; the same of each repeated
/// run of it.
struct RunSums {
  double Ranks = 0, Size = 1;
  Sum At[3]; // First, Last, Between
  std::vector<std::array<Sum, 3>> Repeats;
};

int positionIdx(int Rank, int Ranks) {
  return Rank == 0 ? FirstIdx : Rank == Ranks - 1 ? LastIdx : BetweenIdx;
}

/// Whether position Idx differs from the ranks between at every run that has both, in one
/// direction, by more than PositionThreshold; two such runs at least.
bool differs(const std::vector<RunSums> &Runs, int Idx) {
  int Seen = 0, Sign = 0;
  for (const RunSums &R : Runs) {
    if (R.Ranks < 3 || R.At[Idx].empty() || R.At[BetweenIdx].empty())
      continue;
    const double Base = R.At[BetweenIdx].mean(), D = R.At[Idx].mean() - Base;
    if (!(Base > 0) || std::fabs(D) <= PositionThreshold * Base)
      return false;
    const int S = D > 0 ? 1 : -1;
    if (Sign != 0 && S != Sign)
      return false;
    Sign = S;
    ++Seen;
  }
  return Seen >= 2;
}

SegmentModel fit(const Key &K, RankPosition Pos, std::vector<Point> Points, double Largest,
                 const SelectOptions &Options) {
  SegmentModel Seg;
  Seg.From = K.first;
  Seg.To = K.second;
  Seg.Ranks = Pos;
  Seg.M = selectModel(Points, Options);
  // Held out: the largest rank count, fitted without it.
  std::vector<Point> Used, Held;
  for (const Point &P : Points)
    (P.P == Largest ? Held : Used).push_back(P);
  if (!Held.empty() && Used.size() >= 2) {
    const Model Without = selectModel(Used, Options);
    double Worst = 0;
    relativeErrors(Without, Held, Seg.HeldOutError, Worst);
  }
  Seg.Data = std::move(Points);
  return Seg;
}

} // namespace

std::vector<SegmentModel> fitComputeModels(const std::vector<ComputeRun> &Runs,
                                           const SelectOptions &Options) {
  double Largest = 0;
  for (const ComputeRun &R : Runs)
    Largest = std::max(Largest, double(R.Ranks));
  std::map<Key, std::vector<RunSums>> PerSegment;
  for (const ComputeRun &R : Runs) {
    std::map<Key, RunSums> Sums;
    for (const RankSegmentTime &T : R.Times) {
      RunSums &S = Sums[{T.From, T.To}];
      S.Ranks = R.Ranks;
      S.Size = R.Size;
      S.At[positionIdx(T.Rank, R.Ranks)].add({T.MeanSeconds * T.Executions, T.Executions});
    }
    for (auto &[K, S] : Sums)
      S.Repeats.resize(R.Repeats.size());
    for (size_t K = 0; K < R.Repeats.size(); ++K)
      for (const RankSegmentTime &T : R.Repeats[K])
        if (auto It = Sums.find({T.From, T.To}); It != Sums.end())
          It->second.Repeats[K][size_t(positionIdx(T.Rank, R.Ranks))].add(
              {T.MeanSeconds * T.Executions, T.Executions});
    for (auto &[K, S] : Sums)
      PerSegment[K].push_back(S);
  }
  std::vector<SegmentModel> Out;
  for (const auto &[K, Rs] : PerSegment) {
    const bool First = differs(Rs, FirstIdx), Last = differs(Rs, LastIdx);
    // The points of a position: per run, the mean over the ranks it covers (Rest: every rank
    // not modelled apart; at 2 ranks with one end apart, the other end).
    auto points = [&](bool WithFirst, bool WithLast, bool WithBetween) {
      std::vector<Point> Ps;
      auto Of = [&](const Sum *At) {
        Sum S;
        if (WithFirst)
          S.add(At[FirstIdx]);
        if (WithLast)
          S.add(At[LastIdx]);
        if (WithBetween)
          S.add(At[BetweenIdx]);
        return S;
      };
      for (const RunSums &R : Rs) {
        const Sum S = Of(R.At);
        if (S.empty())
          continue;
        // The point's noise: the spread of the repeats' values (with one repeat, of it and
        // the value's own run).
        std::vector<double> Values;
        if (R.Repeats.size() == 1)
          Values.push_back(S.mean());
        for (const std::array<Sum, 3> &Rep : R.Repeats)
          if (const Sum X = Of(Rep.data()); !X.empty())
            Values.push_back(X.mean());
        double Noise = 0;
        if (Values.size() >= 2) {
          const auto [Lo, Hi] = std::minmax_element(Values.begin(), Values.end());
          if (*Lo > 0)
            Noise = *Hi / *Lo - 1;
        }
        Ps.push_back({R.Ranks, R.Size, S.mean(), Noise});
      }
      return Ps;
    };
    if (!First && !Last) {
      Out.push_back(fit(K, RankPosition::All, points(true, true, true), Largest, Options));
      continue;
    }
    if (First)
      Out.push_back(fit(K, RankPosition::First, points(true, false, false), Largest, Options));
    if (Last)
      Out.push_back(fit(K, RankPosition::Last, points(false, true, false), Largest, Options));
    std::vector<Point> Rest = points(!First, !Last, true);
    if (!Rest.empty())
      Out.push_back(fit(K, RankPosition::Rest, std::move(Rest), Largest, Options));
  }
  return Out;
}

std::vector<RankSegmentTime> segmentTimesOf(const MachineFile &M) {
  std::vector<RankSegmentTime> Out;
  for (const MachineRank &MR : M.Ranks)
    for (const MachineSegment &Seg : MR.Segments)
      Out.push_back({MR.Rank, Seg.From, Seg.To, Seg.MeanSeconds, double(Seg.Executions)});
  return Out;
}

ComputeRun computeRunOf(int Ranks, double Size, const MachineFile &M) {
  ComputeRun Run{Ranks, Size, segmentTimesOf(M), {}};
  if (M.Provenance.Repeats < 2)
    return Run;
  Run.Repeats.resize(size_t(M.Provenance.Repeats));
  for (const MachineRank &MR : M.Ranks)
    for (const MachineSegment &Seg : MR.Segments)
      for (size_t K = 0; K < Seg.RepeatSeconds.size() && K < Run.Repeats.size(); ++K)
        Run.Repeats[K].push_back(
            {MR.Rank, Seg.From, Seg.To, Seg.RepeatSeconds[K], double(Seg.Executions)});
  return Run;
}

} // namespace mpiete::scaling
