// The best configuration of a heterogeneous cluster (seed 002): configurations enumerated,
// bounded by their largest per-rank compute, replayed from the scaling model.
#include "mpiete/scaling/BestConfig.h"

#include "mpiete/scaling/Surface.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>

namespace mpiete::scaling {

using namespace estimator;

int Configuration::ranks() const {
  int P = 0;
  for (size_t I = 0; I < Nodes.size(); ++I)
    P += Nodes[I] * PerNode[I];
  return P;
}

std::string Configuration::text(const std::vector<NodeTypeSpec> &Types) const {
  std::string S;
  for (size_t I = 0; I < Nodes.size(); ++I) {
    if (!S.empty())
      S += ", ";
    S += Types[I].Name + ": " + std::to_string(Nodes[I]) + (Nodes[I] == 1 ? " node" : " nodes");
    if (Nodes[I])
      S += " x " + std::to_string(PerNode[I]) + (PerNode[I] == 1 ? " rank" : " ranks");
  }
  return S;
}

double rankFactor(const NodeTypeSpec &T, int M) {
  return T.Speed * std::max(1.0, double(M) / double(std::max(1, T.Cores)));
}

FactoredComputeModel::FactoredComputeModel(const ScalingModelFile &File, double P, double W,
                                           const std::vector<double> &Factors,
                                           std::vector<uint16_t> ClassOfRank)
    : ClassOfRank(std::move(ClassOfRank)) {
  Classes.reserve(Factors.size());
  for (double F : Factors)
    Classes.emplace_back(File, P, W, F);
}

void FactoredComputeModel::addOccurrenceProfiles(const MachineFile &Base) {
  for (ScaledComputeModel &C : Classes)
    C.addOccurrenceProfiles(Base);
}

namespace {

/// Node and type of every rank: type by type, node by node.
void place(const Configuration &C, std::vector<int> &Node, std::vector<uint16_t> &Type) {
  int NextNode = 0;
  for (size_t T = 0; T < C.Nodes.size(); ++T)
    for (int N = 0; N < C.Nodes[T]; ++N, ++NextNode)
      for (int K = 0; K < C.PerNode[T]; ++K) {
        Node.push_back(NextNode);
        Type.push_back(uint16_t(T));
      }
}

std::vector<double> factors(const ClusterProblem &Problem, const Configuration &C) {
  std::vector<double> F;
  for (size_t T = 0; T < Problem.Types.size(); ++T)
    F.push_back(rankFactor(Problem.Types[T], std::max(1, C.PerNode[T])));
  return F;
}

} // namespace

std::optional<double> predictConfiguration(const ClusterProblem &Problem, const Configuration &C,
                                           std::string &Err) {
  std::vector<int> Node;
  std::vector<uint16_t> Type;
  place(C, Node, Type);
  const int P = int(Node.size());
  FactoredComputeModel Compute(*Problem.File, P, Problem.Size, factors(Problem, C),
                               std::move(Type));
  if (Problem.Profiles)
    Compute.addOccurrenceProfiles(*Problem.Profiles);
  ClusterNetworkModel Net(std::move(Node), Problem.Intra, Problem.Inter);
  if (Problem.Contention == ContentionKind::Fair)
    Net.setContention(ContentionKind::Fair, Problem.Capacity);
  EstimateResult R = replayScaled(*Problem.Structure, Compute, Net, P, Problem.Size);
  if (!R.Ok) {
    Err = C.text(Problem.Types) + ": " +
          (R.Errors.empty() ? std::string("the replay failed") : R.Errors.front().Message);
    return std::nullopt;
  }
  return R.predictedSeconds();
}

namespace {

/// The shortest time any occurrence of the segment takes (SegmentTimes::seconds).
double shortest(const SegmentTimes &T) {
  double S = T.MeanSeconds;
  for (uint64_t K = 0; K < T.Executions && T.Width > 0; K += T.Width)
    S = std::min(S, T.seconds(K));
  return S;
}

/// configurationBound with the scaled model at C's rank count already built.
double boundWith(const ClusterProblem &Problem, const Configuration &C,
                 const ScaledComputeModel &Base) {
  const int P = C.ranks();
  // Per rank class and position (rank 0, rank P-1, between: their segments' models may
  // differ): its compute seconds inside the default region (after Init, before Finalize; the
  // whole sequence when it has no Init).
  std::map<std::pair<const RankClass *, int>, double> ClassSeconds;
  auto classSeconds = [&](const RankClass &RC, int Rank) {
    const int Position = Rank == 0 ? 0 : Rank == P - 1 ? 1 : 2;
    auto [It, New] = ClassSeconds.try_emplace({&RC, Position}, 0.0);
    if (!New)
      return It->second;
    const bool HasInit = std::any_of(RC.Ops.begin(), RC.Ops.end(), [](const OpTemplate &O) {
      return O.Proto.Kind == EventKind::Init;
    });
    bool In = !HasInit;
    double Sum = 0;
    for (const OpTemplate &O : RC.Ops) {
      if (O.Proto.Kind == EventKind::Init)
        In = true;
      else if (O.Proto.Kind == EventKind::Finalize)
        In = false;
      else if (In && O.Proto.Kind == EventKind::Segment)
        if (const SegmentTimes *T = Base.segment(Rank, O.Proto.From, O.Proto.Block))
          Sum += shortest(*T) - 1e-9; // the engine rounds each to whole nanoseconds
    }
    return It->second = std::max(0.0, Sum);
  };
  const std::vector<double> F = factors(Problem, C);
  double Bound = 0;
  int R = 0;
  for (size_t T = 0; T < C.Nodes.size(); ++T)
    for (int K = 0; K < C.Nodes[T] * C.PerNode[T]; ++K, ++R)
      Bound = std::max(Bound, F[T] * classSeconds(Problem.Structure->classOf(R, P), R));
  return Bound;
}

} // namespace

double configurationBound(const ClusterProblem &Problem, const Configuration &C) {
  ScaledComputeModel Base(*Problem.File, C.ranks(), Problem.Size);
  if (Problem.Profiles)
    Base.addOccurrenceProfiles(*Problem.Profiles);
  return boundWith(Problem, C, Base);
}

bool searchBestConfig(const ClusterProblem &Problem, int MaxPerNode, bool Exhaustive,
                      BestConfigResult &Out, std::string &Err) {
  Out = {};
  const size_t NT = Problem.Types.size();
  if (NT == 0 || NT > 65535 || MaxPerNode < 1) {
    Err = "needs 1 to 65535 node types and at least one rank per node";
    return false;
  }
  // Per type: (0 nodes) or (1..Count nodes) x (1..MaxPerNode ranks), as a mixed-radix counter.
  std::vector<int> Options(NT);
  for (size_t T = 0; T < NT; ++T)
    Options[T] = 1 + Problem.Types[T].Count * MaxPerNode;
  std::vector<ConfigResult> All;
  std::map<int, ScaledComputeModel> ModelOfRanks; // the bounds' models depend only on P
  // Why the structure cannot be generated at P ranks (unmeasuredRankCount: a model from powers
  // of two only, forms the base runs do not tell apart), and where; asked once per P, the
  // configurations are many.
  std::map<int, std::pair<std::string, estimator::BlockId>> Undetermined;
  std::vector<int> Digit(NT, 0);
  while (true) {
    size_t T = 0;
    while (T < NT && ++Digit[T] == Options[T])
      Digit[T++] = 0;
    if (T == NT)
      break;
    ConfigResult R;
    for (size_t I = 0; I < NT; ++I) {
      R.C.Nodes.push_back(Digit[I] == 0 ? 0 : (Digit[I] - 1) / MaxPerNode + 1);
      R.C.PerNode.push_back(Digit[I] == 0 ? 0 : (Digit[I] - 1) % MaxPerNode + 1);
    }
    const int P = R.C.ranks();
    auto [Why, First] = Undetermined.try_emplace(P);
    if (First)
      Why->second.first = unmeasuredRankCount(*Problem.Structure, Problem.MeasuredRanks, P,
                                              Problem.Size, Why->second.second);
    if (!Why->second.first.empty()) {
      if (Out.LeftOut++ == 0)
        std::tie(Out.LeftOutWhy, Out.LeftOutSite) = Why->second;
      continue;
    }
    auto [It, New] = ModelOfRanks.try_emplace(P, *Problem.File, P, Problem.Size);
    if (New && Problem.Profiles)
      It->second.addOccurrenceProfiles(*Problem.Profiles);
    R.Bound = boundWith(Problem, R.C, It->second);
    All.push_back(std::move(R));
    if (All.size() > 5'000'000) {
      Err = "more than 5,000,000 configurations: lower --max-ranks-per-node";
      return false;
    }
  }
  Out.Configurations = All.size() + Out.LeftOut;
  if (All.empty()) {
    Err = Out.LeftOut ? Out.LeftOutWhy : "no configuration";
    return false;
  }
  if (!Exhaustive)
    std::stable_sort(All.begin(), All.end(), [](const ConfigResult &A, const ConfigResult &B) {
      return A.Bound < B.Bound;
    });
  bool Have = false;
  for (ConfigResult &R : All) {
    if (!Exhaustive && Have && R.Bound > Out.Best.Seconds)
      break;
    std::optional<double> S = predictConfiguration(Problem, R.C, Err);
    if (!S)
      return false;
    R.Seconds = *S;
    ++Out.Replayed;
    Out.Evaluated.push_back(R);
    if (!Have || R.Seconds < Out.Best.Seconds ||
        (R.Seconds == Out.Best.Seconds && R.C.ranks() < Out.Best.C.ranks())) {
      Out.Best = R;
      Have = true;
    }
  }
  return true;
}

} // namespace mpiete::scaling
