// Normal-form model fitting and selection by cross-validation (Extra-P's method with NNLS).
#include "mpiete/scaling/NormalForm.h"
#include "mpiete/scaling/CommStructure.h"

#include "mpiete/scaling/Nnls.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace mpiete::scaling {

double WorkingSet::at(double P, double W) const {
  if (!known())
    return W / P;
  return Bytes * (WExp == 1 ? W : std::pow(W, WExp)) / P;
}

bool parseWorkingSet(const std::string &Text, WorkingSet &Out) {
  std::string T;
  for (char C : Text)
    if (C != ' ')
      T += C;
  if (T.empty())
    return false;
  WorkingSet Ws;
  Ws.WExp = 0;
  const size_t At = T.find('W');
  std::string Coeff = At == std::string::npos ? T : T.substr(0, At);
  if (At != std::string::npos) {
    if (!Coeff.empty()) {
      if (Coeff.back() != '*')
        return false;
      Coeff.pop_back();
    }
    const std::string Rest = T.substr(At + 1);
    Ws.WExp = 1;
    if (!Rest.empty()) {
      if (Rest[0] != '^' || Rest.size() < 2)
        return false;
      size_t Used = 0;
      try {
        Ws.WExp = std::stod(Rest.substr(1), &Used);
      } catch (...) {
        return false;
      }
      if (Used != Rest.size() - 1)
        return false;
    }
  }
  Ws.Bytes = 1;
  if (!Coeff.empty()) {
    size_t Used = 0;
    try {
      Ws.Bytes = std::stod(Coeff, &Used);
    } catch (...) {
      return false;
    }
    if (Used != Coeff.size())
      return false;
  }
  if (!(Ws.Bytes > 0) || !std::isfinite(Ws.WExp))
    return false;
  Out = Ws;
  return true;
}

double Term::eval(double P, double W) const {
  if (StepAt > 0 && !(Ws.at(P, W) > StepAt))
    return 0;
  double V = 1;
  if (PExp != 0)
    V *= std::pow(P, PExp);
  if (LogExp != 0)
    V *= std::pow(std::log2(P), LogExp);
  if (WExp != 0)
    V *= std::pow(W, WExp);
  if (GridDims != 0)
    V /= dimsProduct(int32_t(P), GridDims, GridAxes);
  return V;
}

namespace {

std::string number(double V) {
  std::ostringstream S;
  S.precision(6);
  S << V;
  return S.str();
}

/// The mean of the values measured at the largest rank count exceeds that at the one below it,
/// by more than the largest noise of any point (a rise within the spread of repeated runs is no
/// growth, and a segment seen to swing by a factor between runs at one rank count may swing as
/// much at another: the print before MPI_Finalize on rank 0 of a tree code, 0.12 to 3.65 ms in
/// three runs at 4 ranks, 0.13 ms at 8 and 3.4 ms at 16, took p^3 log2(p)^2 and 0.33 s at 64
/// ranks against 0.2 ms measured), and the values below the largest count never fall again
/// after they rose (each step beyond the two points' noise). Every model of the normal form
/// (non-negative coefficients, terms that fall as p^-1 or p^-1/2 or grow as p^i log2(p)^j) falls
/// and then rises at most once: p f'(p) only increases. Values that rise, fall and rise again are
/// noise no such model explains, and a growing term fitted to them explodes outside the measured
/// range (treesum's setup on rank 0, a print: 23, 153, 31 and 148 us at 2-16 ranks, fitted as p^3
/// log2(p)^2 and 17 ms at 64 ranks against 50 us measured).
bool growsWithRanks(const std::vector<Point> &Data) {
  struct At {
    double Sum = 0, Noise = 0; ///< the values' sum, the largest noise of the points
    int N = 0;
  };
  std::map<double, At> ByP;
  for (const Point &X : Data) {
    At &A = ByP[X.P];
    A.Sum += X.Y;
    A.Noise = std::max(A.Noise, X.Noise);
    ++A.N;
  }
  if (ByP.size() < 2)
    return false;
  std::vector<std::pair<double, double>> Means; // (mean, noise) in order of p
  double MostNoise = 0;
  for (const auto &[P, A] : ByP) {
    Means.push_back({A.Sum / A.N, A.Noise});
    MostNoise = std::max(MostNoise, A.Noise);
  }
  // +1 rises, -1 falls, 0 within the relative Noise: Means[K-1] to Means[K].
  auto Step = [&](size_t K, double Noise) {
    const double Tol = 1 + Noise;
    return Means[K].first > Tol * Means[K - 1].first   ? 1
           : Means[K - 1].first > Tol * Means[K].first ? -1
                                                       : 0;
  };
  if (Step(Means.size() - 1, MostNoise) != 1)
    return false;
  bool Rose = false;
  for (size_t K = 1; K + 1 < Means.size(); ++K) {
    const int S = Step(K, std::max(Means[K - 1].second, Means[K].second));
    if (S < 0 && Rose)
      return false;
    Rose |= S > 0;
  }
  return true;
}

} // namespace

std::string WorkingSet::text() const {
  if (!known())
    return "W/p";
  std::string S = Bytes == 1 ? "" : number(Bytes) + "*";
  if (WExp != 0)
    S += WExp == 1 ? "W" : "W^" + number(WExp);
  else if (S.empty())
    S = "1";
  else
    S.pop_back();
  return S + "/p";
}

std::string Term::text() const {
  std::vector<std::string> Parts;
  if (StepAt > 0)
    Parts.push_back("[" + Ws.text() + " > " + number(StepAt) + "]");
  if (WExp != 0)
    Parts.push_back(WExp == 1 ? "W" : "W^" + number(WExp));
  if (PExp > 0)
    Parts.push_back(PExp == 1 ? "p" : "p^" + number(PExp));
  if (LogExp != 0)
    Parts.push_back(LogExp == 1 ? "log2(p)" : "log2(p)^" + std::to_string(LogExp));
  std::string S;
  for (const std::string &P : Parts)
    S += (S.empty() ? "" : " * ") + P;
  if (S.empty())
    S = "1";
  if (PExp < 0)
    S += PExp == -1 ? " / p" : " / p^" + number(-PExp);
  if (GridDims != 0)
    S += " / (" + dimsText(GridDims, GridAxes, "p") + ")";
  return S;
}

double Model::eval(double P, double W) const {
  double V = 0;
  for (size_t K = 0; K < Terms.size(); ++K)
    V += Coeffs[K] * Terms[K].eval(P, W);
  return V;
}

std::string Model::text() const {
  std::string S;
  for (size_t K = 0; K < Terms.size(); ++K) {
    if (Coeffs[K] == 0 && Terms.size() > 1)
      continue;
    S += (S.empty() ? "" : " + ") + number(Coeffs[K]);
    if (!Terms[K].constant())
      S += " * " + Terms[K].text();
  }
  return S.empty() ? "0" : S;
}

std::vector<Term> termPool(const std::vector<Point> &Data, const SelectOptions &Options) {
  std::set<double> Sizes, WorkingSets;
  for (const Point &P : Data) {
    Sizes.insert(P.W);
    WorkingSets.insert(P.W / P.P);
  }
  std::vector<double> WExps = {0};
  if (Sizes.size() > 1)
    WExps = {0, 1, 2, 3};
  // One problem size: the runs divide a fixed problem among more ranks, so a rank's share of it
  // shrinks with p. A cost that grows with p (a loop over the ranks, a tree's depth) is
  // extrapolated only when the data show it: the values measured at the largest rank count
  // above those at the one below. Where they still fall, a growing term could only be fitted
  // to the curvature of the points (noise, mostly) and explodes outside the measured range.
  // Several sizes, each measured at two rank counts or more: the same rule at each size (at a
  // fixed W a rank's share shrinks with p as for one size), growth offered when one of them
  // shows it; it then grows with p at any W. Where no size has two rank counts (W and p
  // change together, weak scaling) growth in p cannot be told from growth in W and every term
  // is offered.
  bool Growth = Sizes.size() == 1 && growsWithRanks(Data);
  if (Sizes.size() > 1) {
    bool Seen = false;
    for (double W : Sizes) {
      std::vector<Point> At;
      std::set<double> Ps;
      for (const Point &P : Data)
        if (P.W == W) {
          At.push_back(P);
          Ps.insert(P.P);
        }
      if (Ps.size() < 2)
        continue;
      Seen = true;
      Growth = Growth || growsWithRanks(At);
    }
    Growth = Growth || !Seen;
  }
  std::vector<Term> Pool;
  for (double W : WExps)
    for (double I : {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0})
      for (int J : {0, 1, 2}) {
        // p^-1 and p^-1/2 only divide work: alone (no W) they are data-fitting artefacts
        // except as the strong-scaling share of a fixed problem.
        Term T{I, J, W, 0};
        if (T.constant() || (I < 0 && J > 0))
          continue;
        if (!Growth && (I > 0 || (I == 0 && J > 0)))
          continue;
        Pool.push_back(T);
      }
  // A block decomposition's share along some of MPI_Dims_create's axes: divided work, offered
  // only where the communication structure decomposes by those factors.
  for (auto [Dims, Axes] : Options.GridDivisors)
    for (double W : WExps) {
      Term T{0, 0, W};
      T.GridDims = Dims;
      T.GridAxes = Axes;
      Pool.push_back(T);
    }
  if (Options.Steps && Options.Ws.known()) {
    // Seed 001: time per operation is a step function of the per-rank working set, the steps
    // at the machine's cache sizes. A step is offered only where the measured working sets
    // straddle it, two points or more on each side (its height is fitted from both); one
    // problem size is enough here, as the step's position is known rather than fitted. It
    // multiplies the divided work (more time per operation once the data leave the cache)
    // or stands alone (a fixed cost of refilling it).
    for (double C : Options.Caches) {
      int Below = 0, Above = 0;
      for (const Point &P : Data)
        ++(Options.Ws.at(P.P, P.W) > C ? Above : Below);
      if (Below < 2 || Above < 2)
        continue;
      for (double W : WExps)
        Pool.push_back(Term{-1, 0, W, C, Options.Ws});
      Pool.push_back(Term{0, 0, 0, C, Options.Ws});
    }
  } else if (Options.Steps && Sizes.size() > 1 && WorkingSets.size() >= 4) {
    // A step between two measured working sets, with at least two points on each side:
    // compute per unit of per-rank work costs more once the working set leaves a cache. With
    // one problem size a step in W/p is a step in p, which noise imitates as well: not offered.
    std::vector<double> Ws(WorkingSets.begin(), WorkingSets.end());
    for (size_t K = 1; K + 1 < Ws.size(); ++K) {
      const double At = std::sqrt(Ws[K] * Ws[K + 1]);
      Pool.push_back(Term{-1, 0, 1, At});
      Pool.push_back(Term{0, 0, 0, At});
    }
  }
  return Pool;
}

Model fitModel(const std::vector<Point> &Data, const std::vector<Term> &Terms, bool Constant) {
  Model M;
  if (Constant || Terms.empty())
    M.Terms.push_back(Term{});
  for (const Term &T : Terms)
    M.Terms.push_back(T);
  Matrix A(Data.size(), M.Terms.size());
  std::vector<double> B(Data.size());
  for (size_t I = 0; I < Data.size(); ++I) {
    const double Weight = Data[I].Y > 0 ? 1 / Data[I].Y : 1;
    for (size_t K = 0; K < M.Terms.size(); ++K)
      A(I, K) = M.Terms[K].eval(Data[I].P, Data[I].W) * Weight;
    B[I] = Data[I].Y * Weight;
  }
  M.Coeffs = solveNnls(A, B).X;
  M.Points = unsigned(Data.size());
  relativeErrors(M, Data, M.FitError, M.FitWorst);
  return M;
}

namespace {
double relativeError(double Pred, double Y) {
  return Y != 0 ? std::fabs(Pred - Y) / std::fabs(Y) : std::fabs(Pred);
}
} // namespace

void relativeErrors(const Model &M, const std::vector<Point> &Data, double &Mean, double &Worst) {
  Mean = Worst = 0;
  for (const Point &P : Data) {
    const double E = relativeError(M.eval(P.P, P.W), P.Y);
    Mean += E;
    Worst = std::max(Worst, E);
  }
  if (!Data.empty())
    Mean /= double(Data.size());
}

namespace {

double crossValidate(const std::vector<Point> &Data, const std::vector<Term> &Terms,
                     bool Constant) {
  double Sum = 0;
  std::vector<Point> Rest;
  for (size_t Out = 0; Out < Data.size(); ++Out) {
    Rest.clear();
    for (size_t I = 0; I < Data.size(); ++I)
      if (I != Out)
        Rest.push_back(Data[I]);
    const Model M = fitModel(Rest, Terms, Constant);
    const Point &P = Data[Out];
    Sum += relativeError(M.eval(P.P, P.W), P.Y);
  }
  return Sum / double(Data.size());
}

/// The points below the largest rank count (the fold an extrapolation must pass) and those at it.
void splitLargest(const std::vector<Point> &Data, std::vector<Point> &Below,
                  std::vector<Point> &Largest) {
  double Hi = 0;
  for (const Point &X : Data)
    Hi = std::max(Hi, X.P);
  Below.clear();
  Largest.clear();
  for (const Point &X : Data)
    (X.P == Hi ? Largest : Below).push_back(X);
}

/// Fitted on Below, the mean relative error on Largest: how the hypothesis extrapolates.
double extrapolationError(const std::vector<Point> &Below, const std::vector<Point> &Largest,
                          const std::vector<Term> &Terms, bool Constant) {
  double Mean = 0, Worst = 0;
  relativeErrors(fitModel(Below, Terms, Constant), Largest, Mean, Worst);
  return Mean;
}

} // namespace

Model selectModel(const std::vector<Point> &Data, const SelectOptions &Options) {
  if (Data.size() < 3) {
    Model M = fitModel(Data, {});
    M.CvError = M.FitError;
    return M;
  }
  const std::vector<Term> Pool = termPool(Data, Options);
  // Extrapolation-aware validation: leave-one-out mostly tests interpolation (all but one fold
  // predict a point inside the others' range), and among hundreds of hypotheses whose folds fit
  // their points exactly, the one whose curvature matches the noise wins it; its extra term
  // then explodes just outside the measured range. A hypothesis is therefore also fitted
  // without the largest rank count and scored on it (the models are used to predict larger
  // scales), the worse of the two errors counting. That fold must determine the hypothesis
  // (no more coefficients than points), and beyond the constant and one term (the least a
  // scaling model needs, e.g. the divided work) it must leave a point to spare: a second term
  // is paid for by evidence, not by a fold that any curve through its points passes.
  std::vector<Point> Below, Largest;
  splitLargest(Data, Below, Largest);
  const bool Extrapolate = !Below.empty();
  auto Admissible = [&](size_t Coeffs) {
    if (!Extrapolate)
      return Data.size() >= Coeffs + 2;
    return Below.size() > Coeffs || (Coeffs <= 2 && Below.size() == Coeffs);
  };
  auto Score = [&](const std::vector<Term> &Terms, double &Cv, double &Ex, bool Constant = true) {
    Cv = crossValidate(Data, Terms, Constant);
    Ex = Extrapolate ? extrapolationError(Below, Largest, Terms, Constant) : 0;
    return std::max(Cv, Ex);
  };
  std::vector<Term> Best;
  bool BestConstant = true;
  double BestCv = 0, BestEx = 0;
  double BestScore = Score({}, BestCv, BestEx);
  // One coefficient: the constant alone, or one pool term alone (work divided among the ranks
  // and nothing else, c / p). The constant is a cost no rank count divides; where the points
  // fall as 1 / p up to a slow drift (noise, a machine effect under token passing), a fitted
  // constant takes that drift and grows relative to the divided work at every larger rank
  // count (treesum: 0.18 ms + 32.1 ms / p from 2-16 ranks, 23% above the 64-rank value).
  // The constant must then earn its place by the margin like any other coefficient. (A grid
  // divisor is offered beside the constant only, under the 3/4 rule below.)
  if (Admissible(1))
    for (const Term &T : Pool) {
      if (T.GridDims != 0)
        continue;
      double Cv = 0, Ex = 0;
      const double S = Score({T}, Cv, Ex, false);
      if (S < BestScore) {
        BestScore = S;
        BestCv = Cv;
        BestEx = Ex;
        Best = {T};
        BestConstant = false;
      }
    }
  // Breadth first by size: a larger hypothesis must beat the best smaller one by the margin.
  for (unsigned Size = 1; Size <= Options.MaxTerms && Admissible(Size + 1); ++Size) {
    std::vector<std::vector<size_t>> Combos;
    std::vector<size_t> Idx(Size);
    // Every Size-subset of the pool, in order.
    std::function<void(size_t, size_t)> Rec = [&](size_t From, size_t Depth) {
      if (Depth == Size) {
        Combos.push_back(Idx);
        return;
      }
      for (size_t K = From; K < Pool.size(); ++K) {
        Idx[Depth] = K;
        Rec(K + 1, Depth + 1);
      }
    };
    Rec(0, 0);
    std::vector<Term> LevelBest;
    double LevelScore = std::numeric_limits<double>::infinity(), LevelCv = 0, LevelEx = 0;
    for (const std::vector<size_t> &C : Combos) {
      std::vector<Term> Terms;
      for (size_t K : C)
        Terms.push_back(Pool[K]);
      double Cv = 0, Ex = 0;
      double S = Score(Terms, Cv, Ex);
      // A grid divisor is a step function of p: at 2-16 ranks it takes 2-3 values, and noise
      // can match those as well as a power of p. It is chosen only when it explains the data
      // clearly better: its score must be at most 3/4 of the other hypotheses' (a stated
      // convention: transpose's sweeps by rows, n / d0, score 0.06-0.16 against 0.21-0.26 for
      // the best powers of p; f90-stencil3d's 3-D sweep, whose work is the block's W^3 / p,
      // 0.179 for d0 * d2 against 0.188).
      if (std::any_of(Terms.begin(), Terms.end(), [](const Term &T) { return T.GridDims != 0; }))
        S *= 4.0 / 3.0;
      if (S < LevelScore) {
        LevelScore = S;
        LevelCv = Cv;
        LevelEx = Ex;
        LevelBest = Terms;
      }
    }
    if (LevelScore < BestScore - Options.Margin) {
      BestScore = LevelScore;
      BestCv = LevelCv;
      BestEx = LevelEx;
      Best = LevelBest;
      BestConstant = true;
    }
  }
  Model M = fitModel(Data, Best, BestConstant);
  M.CvError = BestCv;
  M.ExtrapolationError = Extrapolate ? BestEx : -1;
  return M;
}

std::vector<double> unmeasuredSteps(const std::vector<Point> &Data, const WorkingSet &Ws,
                                    const std::vector<double> &Caches, double P, double W) {
  std::vector<double> Out;
  if (!Ws.known() || Data.empty())
    return Out;
  const double Target = Ws.at(P, W);
  for (double C : Caches) {
    bool Seen = false;
    for (const Point &X : Data)
      Seen |= (Ws.at(X.P, X.W) > C) == (Target > C);
    if (!Seen)
      Out.push_back(C);
  }
  return Out;
}

} // namespace mpiete::scaling
