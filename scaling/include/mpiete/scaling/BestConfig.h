// Seed 002's question on a heterogeneous cluster: which nodes of each type, and how many ranks
// per node, give the shortest predicted time. Every configuration is replayed from the scaling
// model (exhaustive), or they are replayed in order of a lower bound until the bound passes the
// best time found (branch and bound: the same answer, fewer replays).
#ifndef MPIETE_SCALING_BESTCONFIG_H
#define MPIETE_SCALING_BESTCONFIG_H

#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ModelFile.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpiete::scaling {

/// One node type of the cluster: Count nodes, each Cores cores, computing Speed times as long
/// as the machine the model was built on (from the type's machine file).
struct NodeTypeSpec {
  std::string Name;
  int Count = 0;
  int Cores = 1;
  double Speed = 1;
};

/// Per node type: how many of its nodes are used and how many ranks each runs (seed 002's P_i
/// and M_i). Ranks are placed type by type, node by node, PerNode[i] consecutive ranks each.
struct Configuration {
  std::vector<int> Nodes, PerNode;
  int ranks() const;
  std::string text(const std::vector<NodeTypeSpec> &Types) const;
};

/// The compute time multiplier of a rank on a node of type T running M ranks: the type's
/// speed, and M / Cores when the ranks outnumber the cores (they time-share, seed 002's
/// multi-process method on single-PE nodes).
double rankFactor(const NodeTypeSpec &T, int M);

/// The model's segment times at (P, W), per class of ranks times the class's factor (a node
/// type's speed and time-sharing): rank r takes class ClassOfRank[r]'s.
class FactoredComputeModel : public estimator::ComputeModel {
public:
  FactoredComputeModel(const ScalingModelFile &File, double P, double W,
                       const std::vector<double> &Factors, std::vector<uint16_t> ClassOfRank);
  std::optional<double> secondsPerExecution(int, estimator::BlockId) const override {
    return std::nullopt;
  }
  const estimator::SegmentTimes *segment(int Rank, estimator::BlockId From,
                                         estimator::BlockId To) const override {
    return Classes[ClassOfRank[size_t(Rank)]].segment(Rank, From, To);
  }
  bool hasBlocks() const override { return false; }
  bool hasSegments() const override { return true; }
  /// ScaledComputeModel::addOccurrenceProfiles, for every class.
  void addOccurrenceProfiles(const MachineFile &Base);

private:
  std::vector<uint16_t> ClassOfRank;
  std::vector<ScaledComputeModel> Classes;
};

/// Everything a configuration's replay needs. Profiles: the occurrence profiles every rank
/// takes (the model's largest run's machine file, as estimate --ranks does), or none (every
/// occurrence its mean). Contention between nodes as estimator::ClusterNetworkModel takes it.
struct ClusterProblem {
  const ScalingModelFile *File = nullptr;
  const CommStructure *Structure = nullptr;
  std::vector<NodeTypeSpec> Types;
  double Size = 1;
  std::shared_ptr<const estimator::LinkModel> Intra, Inter;
  estimator::ContentionKind Contention = estimator::ContentionKind::None;
  double Capacity = 0; ///< bytes per second (0: what one pair achieves)
  const MachineFile *Profiles = nullptr;
  /// The rank counts of the model's runs: a configuration whose rank count they leave the
  /// structure undetermined at (unmeasuredRankCount) is left out of the search.
  std::vector<int> MeasuredRanks;
};

/// The predicted seconds of C (the extrapolated replay), or nullopt with Err set.
std::optional<double> predictConfiguration(const ClusterProblem &Problem, const Configuration &C,
                                           std::string &Err);

/// A lower bound of the predicted seconds of C: the largest compute time of one rank (the sum
/// of its segments' model times between Init and Finalize, each its shortest occurrence's,
/// times its factor). Communication and waits only add to a rank's time, so no replay of C can
/// predict less.
double configurationBound(const ClusterProblem &Problem, const Configuration &C);

struct ConfigResult {
  Configuration C;
  double Seconds = 0, Bound = 0;
};

struct BestConfigResult {
  ConfigResult Best;
  uint64_t Configurations = 0;         ///< every configuration of the search space
  uint64_t Replayed = 0;               ///< those replayed (all of them when exhaustive)
  std::vector<ConfigResult> Evaluated; ///< the replayed ones, in the order they were
  /// Configurations left out: the structure is not determined at their rank count (Why says
  /// why, located at LeftOutSite).
  uint64_t LeftOut = 0;
  std::string LeftOutWhy;
  estimator::BlockId LeftOutSite = 0;
};

/// Searches every configuration with at most MaxPerNode ranks per node (and at least one rank).
/// Exhaustive: replays all; otherwise in order of their bounds, stopping once a bound passes
/// the best predicted time (ties: fewer ranks). False with Err set.
bool searchBestConfig(const ClusterProblem &Problem, int MaxPerNode, bool Exhaustive,
                      BestConfigResult &Out, std::string &Err);

} // namespace mpiete::scaling

#endif
