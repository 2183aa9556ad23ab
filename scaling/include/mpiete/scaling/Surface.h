// The efficiency surface E(N, W) of seed 001 over a grid of rank counts and problem sizes: the
// extrapolated replay at each point, the efficiency, its ridges, surface.yaml and the gnuplot
// script that draws it as a contour plot.
#ifndef MPIETE_SCALING_SURFACE_H
#define MPIETE_SCALING_SURFACE_H

#include "mpiete/estimator/Engine.h"
#include "mpiete/scaling/CommStructure.h"

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete::scaling {

/// Replays the structure S at P ranks and size W (one SyntheticEventSource per rank, nothing
/// materialised) against the models given.
estimator::EstimateResult replayScaled(const CommStructure &S,
                                       const estimator::ComputeModel &Compute,
                                       const estimator::NetworkModel &Net, int P, double W);

struct SurfaceGrid {
  std::vector<int> Ranks;                            ///< ascending
  std::vector<double> Sizes;                         ///< ascending
  std::vector<std::vector<double>> Time, Efficiency; ///< [size][rank count]
  /// Efficiency is relative to the smallest rank count of the grid, N0:
  /// E(N, W) = N0 T(N0, W) / (N T(N, W)); with N0 = 1 that is seed 001's T(1, W) / (N T(N, W)).
  int BaseRanks = 1;
  /// Per size, the index of the rank count of best efficiency (the first of equals): the
  /// ridge the brief asks for. With N0 > 1 it is N0 unless the speedup is superlinear there.
  std::vector<size_t> RidgePerSize;
  /// Per rank count, the index of the size of best efficiency: seed 001's ridge (section 4.3),
  /// the problem size that gets the most out of N processors.
  std::vector<size_t> RidgePerRanks;
};

/// The predicted seconds at (P, W), or nullopt with Err set.
using SurfacePredictor = std::function<std::optional<double>(int P, double W, std::string &Err)>;

/// Predicts every point of the grid and derives efficiency and ridges. Ranks and Sizes are
/// sorted and deduplicated first. False with Err set (naming the point) when a prediction fails
/// or is not positive.
bool computeSurface(std::vector<int> Ranks, std::vector<double> Sizes,
                    const SurfacePredictor &Predict, SurfaceGrid &Out, std::string &Err);

/// surface.yaml: the contract `mpiete report --surface` reads (ranks, sizes as labels,
/// time_seconds and efficiency a row per size, svg), plus the ridges, the efficiency's base
/// and the tool, version and command.
void writeSurface(std::ostream &OS, const SurfaceGrid &G, const std::string &Tool,
                  const std::string &Command, const std::string &Model, const std::string &SvgFile);

/// A gnuplot script drawing the efficiency as filled contours over log2(ranks) and log(size),
/// with contour lines every 0.1 and both ridges marked. Terminal: "svg" or "png". The data are
/// inline, so the script alone is the plot.
std::string surfaceGnuplotScript(const SurfaceGrid &G, const std::string &Terminal,
                                 const std::string &OutFile, const std::string &Title);

/// A size as a label: integers without a decimal point, others in %g.
std::string sizeLabel(double W);

} // namespace mpiete::scaling

#endif
