// The scaling model file, model.yaml (format mpiete-scaling-model, version 1): the runs it was
// built from, the communication structure's verdict and every segment's normal-form model
// with its errors; types, writer, reader. The compute model it makes for the engine.
#ifndef MPIETE_SCALING_MODELFILE_H
#define MPIETE_SCALING_MODELFILE_H

#include "mpiete/basedata/MachineFile.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/Models.h"
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/NormalForm.h"

#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete {
class DiagnosticSink;
}

namespace mpiete::scaling {

struct ModelRun {
  int Ranks = 0;
  double Size = 1;
  std::string Program, Machine; ///< the trace directory and machine.yaml
  /// Repeated timing runs of the same program, input and rank count: the spread of their
  /// values is each point's noise, which a rise with the rank count must exceed to count as
  /// growth (NormalForm.h, Point::Noise). Machine stays the value.
  std::vector<std::string> Repeats;
};

/// The ranks a segment model is for: every rank, or, where their compute differs by position
/// (scaling/ComputeFit.h), rank 0, rank P-1 or the ranks not modelled apart.
enum class RankPosition : uint8_t { All, First, Last, Rest };
const char *positionName(RankPosition P);

struct SegmentModel {
  estimator::BlockId From = 0, To = 0;
  RankPosition Ranks = RankPosition::All;
  std::string Where; ///< the segment as file:line -> file:line, when the block map names it
  Model M;
  /// Fitted without the largest rank count: its mean relative error there (-1: not held out).
  double HeldOutError = -1;
  /// The points it was fitted to (per run: the executions-weighted mean over ranks).
  std::vector<Point> Data;
};

struct ScalingModelFile {
  static constexpr int FormatVersion = 1;
  std::string Tool, Command;
  std::vector<ModelRun> Runs;
  bool StructureAccepted = false;
  std::string RefusedAt, RefusalReason; ///< when refused: the call site and why
  std::vector<std::string> Structure;   ///< accepted: the peers and byte counts, readable
  /// Accepted: the learnt structure itself, so estimates need not read the traces again.
  CommStructure Learnt;
  std::vector<SegmentModel> Segments;
  /// Seed 001's cache steps: the declared per-rank working set and the cache sizes (bytes) of
  /// the machine the compute base data come from (CachesFrom says where they were read).
  WorkingSet Ws;
  std::vector<double> Caches;
  std::string CachesFrom;
  /// The caches that no run's working set lies beyond, seen from (P, W): a prediction there
  /// crosses a cache step whose height was never measured.
  std::vector<double> unmeasuredCacheSteps(double P, double W) const;
  /// How many runs' working sets lie at most at cache C (first) and above it (second).
  std::pair<int, int> runsAround(double C) const;
  /// The caches with a single run on one side and the others on the other: too few to fit a
  /// step from (it needs two runs on each side), enough to bend the one curve every segment
  /// then fits across both sides.
  std::vector<double> loneRunCaches() const;
  /// Why the model cannot be asked at problem size W: every run it was built from is at one
  /// size and W is another, so how the compute, the byte counts and the loops' trips change
  /// with the size was never measured (a model fitted at one size holds them constant). Empty:
  /// it can.
  std::string unmeasuredSize(double W) const;
  /// The error band of a prediction at (P, W), from the compute each segment takes there
  /// (Segments: the replay's, summed over the ranks).
  struct Band {
    double Relative = 0;  ///< the band, +- this share of the prediction
    double Weighted = 0;  ///< the segments' errors weighted by their compute at (P, W)
    double Doublings = 1; ///< how far past the largest base run, the factor applied
    /// The largest error of any segment's model (the band until session 30: weighted by
    /// nothing, a print of microseconds could hold it), where, and its share of the compute.
    double Largest = 0;
    std::string LargestWhere;
    double LargestShare = 0;
  };
  /// Each segment's error (the larger of its models' leave-one-out error and extrapolation
  /// error, over the rank positions it has), weighted by its share of the compute at (P, W),
  /// times the doublings of p and W past the largest base run (at least 1): the extrapolation
  /// error is one doubling's (the model's terms fitted without the largest count, at it), and
  /// a missed or wrong term's error grows about linearly with log2 of the distance (a stated
  /// convention; bench/scale measures how often the direct prediction falls inside it).
  Band errorBand(const std::vector<estimator::SegmentResult> &Segments, double P, double W) const;
};

void writeScalingModel(std::ostream &OS, const ScalingModelFile &File);
/// One op of a learnt structure as the model file's line, and back (false: malformed).
std::string formatOp(const OpTemplate &Op);
bool parseOp(const std::string &Text, OpTemplate &Op);
bool loadScalingModel(const std::string &Path, ScalingModelFile &Out, DiagnosticSink &Diags);

/// The engine's compute model at (P, W): every rank's segment From -> To takes the segment
/// model's value there (rank 0's and rank P-1's own where they have one), times Factor.
/// Memory is one entry per segment, whatever P.
class ScaledComputeModel : public estimator::ComputeModel {
public:
  ScaledComputeModel(const ScalingModelFile &File, double P, double W, double Factor = 1);
  std::optional<double> secondsPerExecution(int, estimator::BlockId) const override {
    return std::nullopt;
  }
  const estimator::SegmentTimes *segment(int Rank, estimator::BlockId From,
                                         estimator::BlockId To) const override;
  bool hasBlocks() const override { return false; }
  bool hasSegments() const override { return true; }
  /// Occurrence-dependent compute: rank r takes the per-occurrence profile (series over mean)
  /// of the rank at its relative position in Base, a run the model was built from (rank 0 and
  /// rank P-1 those of Base's ends, the ranks between spread over Base's), times its model
  /// value; segments without a series keep the value. Where several ranks take one Base
  /// rank's profile (P larger than Base), the c-th of n such ranks takes it rotated by c / n
  /// of its whole buckets (at most MaxRotations different rotations): the same times in
  /// another order, so that ranks measured alone stay independent rather than slow in the
  /// same occurrences (a copied profile makes their waits on each other those of Base's rank
  /// count). Memory grows with Base and MaxRotations, not with P.
  void addOccurrenceProfiles(const MachineFile &Base);
  static constexpr int MaxRotations = 16;
  /// Base's rank whose profile rank Rank takes.
  int profileRank(int Rank) const;
  /// Which rotation of that profile rank Rank takes (0: the profile as measured), of how many.
  std::pair<int, int> profileRotation(int Rank) const;

private:
  /// Per segment: rank 0's, rank P-1's and the other ranks' times (Own: 0 has its own, 1
  /// too), and with profiles one per rank of the profiles' run.
  struct Entry {
    estimator::SegmentTimes At[3];
    bool Own[2] = {false, false};
    std::vector<estimator::SegmentTimes> Profiled;
    /// Per Base rank, its profile rotated by 1 .. n-1 of profileRotation's n.
    std::vector<std::vector<estimator::SegmentTimes>> Rotated;
  };
  /// The first rank whose profile is Base's rank B (P when B is past Base's last).
  int firstProfiled(int B) const;
  /// How many rotations of Base rank B's profile its ranks take (at most MaxRotations).
  int rotationsOf(int B) const;
  /// profileRotation of Rank, whose profile rank is B.
  std::pair<int, int> rotationAt(int Rank, int B) const;
  const estimator::SegmentTimes &value(const Entry &E, int Rank, int P) const;
  int Ranks;
  int BaseRanks = 0;
  std::map<std::pair<estimator::BlockId, estimator::BlockId>, Entry> Times;
};

} // namespace mpiete::scaling

#endif
