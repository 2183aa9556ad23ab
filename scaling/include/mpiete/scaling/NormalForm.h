// Scaling models in Extra-P's performance-model normal form, extended by a problem size and by
// seed 001's working-set step: T(p, W) = c0 + sum_k c_k p^i log2(p)^j W^w [W / p > S], every
// c_k >= 0 (seed 002's NNLS), the terms chosen by leave-one-out cross-validation.
#ifndef MPIETE_SCALING_NORMALFORM_H
#define MPIETE_SCALING_NORMALFORM_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mpiete::scaling {

/// A rank's working set in bytes as a function of (p, W): Bytes * W^WExp / p (the whole
/// problem's data split among the ranks), as `mpiete model --working-set` declares it. Bytes 0:
/// not declared, and the working set is taken as W / p in units of W.
struct WorkingSet {
  double Bytes = 0;
  double WExp = 1;

  bool known() const { return Bytes > 0; }
  double at(double P, double W) const;
  /// `16 * W^2 / p`, or `W / p` when not declared.
  std::string text() const;
  bool operator==(const WorkingSet &O) const = default;
};

/// Parses `C*W^A` (also `C*W`, `W^A`, `C`): the whole problem's bytes. False: malformed.
bool parseWorkingSet(const std::string &Text, WorkingSet &Out);

/// One term p^PExp * log2(p)^LogExp * W^WExp, times [Ws(p, W) > StepAt] when StepAt > 0 (the
/// per-rank working set past a cache size: seed 001's step), divided by the product of the
/// factors of MPI_Dims_create(p, GridDims) in GridAxes when GridDims is set (a block
/// decomposition's share along some axes: transpose's rows per process row, n / d0). The
/// constant term is all zeros.
struct Term {
  double PExp = 0;
  int LogExp = 0;
  double WExp = 0;
  double StepAt = 0;
  WorkingSet Ws; ///< what StepAt is compared with
  uint8_t GridDims = 0, GridAxes = 0;

  Term() = default;
  Term(double PExp, int LogExp, double WExp, double StepAt = 0, WorkingSet Ws = {})
      : PExp(PExp), LogExp(LogExp), WExp(WExp), StepAt(StepAt), Ws(Ws) {}
  double eval(double P, double W) const;
  bool constant() const {
    return PExp == 0 && LogExp == 0 && WExp == 0 && StepAt == 0 && GridDims == 0;
  }
  /// Readable: `p^1.5 * log2(p) * W / p`, `[W/p > 4096] * W / p`, `1`.
  std::string text() const;
  bool operator==(const Term &O) const = default;
};

/// One measured point: ranks, problem size and the value there (seconds); Noise, where
/// repeated runs measured it, the relative spread of their values (largest over smallest,
/// minus 1), else 0.
struct Point {
  double P = 1, W = 1, Y = 0;
  double Noise = 0;
};

struct Model {
  std::vector<Term> Terms;
  std::vector<double> Coeffs; ///< one per term, >= 0
  double FitError = 0;        ///< mean relative error on the points it was fitted to
  double FitWorst = 0;        ///< largest relative error on those points
  double CvError = 0;         ///< leave-one-out mean relative error (what chose the terms)
  /// Fitted without the largest rank count, the mean relative error there (the selection's
  /// other criterion; -1: one rank count only).
  double ExtrapolationError = -1;
  unsigned Points = 0;

  double eval(double P, double W) const;
  std::string text() const;
};

struct SelectOptions {
  /// Non-constant terms in a hypothesis (Extra-P: usually 1-2 for a few parameters).
  unsigned MaxTerms = 2;
  /// A hypothesis with more terms must lower the cross-validation error by this much (an
  /// absolute relative error) to be preferred: Occam's razor against fitting noise.
  double Margin = 0.005;
  /// Offer step terms (needs at least two points on each side of a candidate step).
  bool Steps = true;
  /// Declared: the steps are at the Caches (bytes) the measured working sets straddle, not
  /// between measured working sets.
  WorkingSet Ws;
  std::vector<double> Caches;
  /// Divisors from MPI_Dims_create(p, first)'s factors in the axes bits second: offered as
  /// W^w / divisor terms (the communication structure decomposes by them).
  std::vector<std::pair<uint8_t, uint8_t>> GridDivisors;
};

/// The caches (bytes) that no measured point's working set lies beyond, seen from (P, W): for
/// each cache C, the points all on one side of C and Ws(P, W) on the other. An extrapolation
/// across such a step cannot know its height (seed 001: a step is fitted only from points on
/// both sides of it).
std::vector<double> unmeasuredSteps(const std::vector<Point> &Data, const WorkingSet &Ws,
                                    const std::vector<double> &Caches, double P, double W);

/// The term pool: p factors p^i log2(p)^j, W factors W^k (only W^0 when the data hold one
/// size), their products, and the step terms the data allow. With one size, terms growing with
/// p only when the values measured at the largest rank count exceed those at the smallest.
std::vector<Term> termPool(const std::vector<Point> &Data, const SelectOptions &Options);

/// Fits the constant plus Terms (Terms alone when Constant is false and Terms are some) by
/// NNLS on relative errors (rows weighted by 1 / y, so that every point counts by its
/// relative error whatever its magnitude).
Model fitModel(const std::vector<Point> &Data, const std::vector<Term> &Terms,
               bool Constant = true);

/// The hypothesis (one pool term alone, or constant + up to MaxTerms pool terms; each
/// coefficient more must lower the score by Margin) with the least of max(leave-one-out
/// error, error at the largest rank count when fitted without it), among those that the points
/// below the largest rank count determine, with one to spare beyond the constant and one
/// term. Fewer than three points: the constant alone (the mean).
Model selectModel(const std::vector<Point> &Data, const SelectOptions &Options = {});

/// Mean and largest relative error of M on Data.
void relativeErrors(const Model &M, const std::vector<Point> &Data, double &Mean, double &Worst);

} // namespace mpiete::scaling

#endif
