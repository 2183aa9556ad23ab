// The scaling model file, model.yaml (format mpiete-scaling-model, version 1): the runs it was
// built from, the communication structure's verdict and every segment's normal-form model
// with its errors; types, writer, reader. The compute model it makes for the engine.
#ifndef MPIETE_SCALING_MODELFILE_H
#define MPIETE_SCALING_MODELFILE_H

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
};

struct SegmentModel {
  estimator::BlockId From = 0, To = 0;
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
  /// The error band of a prediction: the largest leave-one-out error of the segments' models,
  /// weighted by nothing (a conservative band).
  double errorBand() const;
};

void writeScalingModel(std::ostream &OS, const ScalingModelFile &File);
/// One op of a learnt structure as the model file's line, and back (false: malformed).
std::string formatOp(const OpTemplate &Op);
bool parseOp(const std::string &Text, OpTemplate &Op);
bool loadScalingModel(const std::string &Path, ScalingModelFile &Out, DiagnosticSink &Diags);

/// The engine's compute model at (P, W): every rank's segment From -> To takes the segment
/// model's value there. Memory is one entry per segment, whatever P.
class ScaledComputeModel : public estimator::ComputeModel {
public:
  ScaledComputeModel(const ScalingModelFile &File, double P, double W);
  std::optional<double> secondsPerExecution(int, estimator::BlockId) const override {
    return std::nullopt;
  }
  const estimator::SegmentTimes *segment(int Rank, estimator::BlockId From,
                                         estimator::BlockId To) const override;
  bool hasBlocks() const override { return false; }
  bool hasSegments() const override { return true; }

private:
  std::map<std::pair<estimator::BlockId, estimator::BlockId>, estimator::SegmentTimes> Times;
};

} // namespace mpiete::scaling

#endif
