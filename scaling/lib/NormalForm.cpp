// Normal-form model fitting and selection by cross-validation (Extra-P's method with NNLS).
#include "mpiete/scaling/NormalForm.h"

#include "mpiete/scaling/Nnls.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

namespace mpiete::scaling {

double Term::eval(double P, double W) const {
  if (StepAt > 0 && !(W / P > StepAt))
    return 0;
  double V = 1;
  if (PExp != 0)
    V *= std::pow(P, PExp);
  if (LogExp != 0)
    V *= std::pow(std::log2(P), LogExp);
  if (WExp != 0)
    V *= std::pow(W, WExp);
  return V;
}

namespace {

std::string number(double V) {
  std::ostringstream S;
  S.precision(6);
  S << V;
  return S.str();
}

} // namespace

std::string Term::text() const {
  std::vector<std::string> Parts;
  if (StepAt > 0)
    Parts.push_back("[W/p > " + number(StepAt) + "]");
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
  std::vector<Term> Pool;
  for (double W : WExps)
    for (double I : {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0})
      for (int J : {0, 1, 2}) {
        // p^-1 and p^-1/2 only divide work: alone (no W) they are data-fitting artefacts
        // except as the strong-scaling share of a fixed problem.
        Term T{I, J, W, 0};
        if (T.constant() || (I < 0 && J > 0))
          continue;
        Pool.push_back(T);
      }
  if (Options.Steps && Sizes.size() > 1 && WorkingSets.size() >= 4) {
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

Model fitModel(const std::vector<Point> &Data, const std::vector<Term> &Terms) {
  Model M;
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

void relativeErrors(const Model &M, const std::vector<Point> &Data, double &Mean, double &Worst) {
  Mean = Worst = 0;
  for (const Point &P : Data) {
    const double Pred = M.eval(P.P, P.W);
    const double E = P.Y != 0 ? std::fabs(Pred - P.Y) / std::fabs(P.Y) : std::fabs(Pred);
    Mean += E;
    Worst = std::max(Worst, E);
  }
  if (!Data.empty())
    Mean /= double(Data.size());
}

namespace {

double crossValidate(const std::vector<Point> &Data, const std::vector<Term> &Terms) {
  double Sum = 0;
  std::vector<Point> Rest;
  for (size_t Out = 0; Out < Data.size(); ++Out) {
    Rest.clear();
    for (size_t I = 0; I < Data.size(); ++I)
      if (I != Out)
        Rest.push_back(Data[I]);
    const Model M = fitModel(Rest, Terms);
    const Point &P = Data[Out];
    const double Pred = M.eval(P.P, P.W);
    Sum += P.Y != 0 ? std::fabs(Pred - P.Y) / std::fabs(P.Y) : std::fabs(Pred);
  }
  return Sum / double(Data.size());
}

} // namespace

Model selectModel(const std::vector<Point> &Data, const SelectOptions &Options) {
  if (Data.size() < 3) {
    Model M = fitModel(Data, {});
    M.CvError = M.FitError;
    return M;
  }
  const std::vector<Term> Pool = termPool(Data, Options);
  std::vector<Term> Best;
  double BestCv = crossValidate(Data, {});
  // Breadth first by size: a larger hypothesis must beat the best smaller one by the margin.
  std::vector<std::vector<Term>> Level = {{}};
  for (unsigned Size = 1; Size <= Options.MaxTerms; ++Size) {
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
    double LevelCv = std::numeric_limits<double>::infinity();
    for (const std::vector<size_t> &C : Combos) {
      // More coefficients than points less one cannot be cross-validated.
      if (C.size() + 2 > Data.size())
        break;
      std::vector<Term> Terms;
      for (size_t K : C)
        Terms.push_back(Pool[K]);
      const double Cv = crossValidate(Data, Terms);
      if (Cv < LevelCv) {
        LevelCv = Cv;
        LevelBest = Terms;
      }
    }
    if (LevelCv < BestCv - Options.Margin) {
      BestCv = LevelCv;
      Best = LevelBest;
    }
  }
  Model M = fitModel(Data, Best);
  M.CvError = BestCv;
  return M;
}

} // namespace mpiete::scaling
