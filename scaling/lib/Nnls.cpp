// Lawson-Hanson NNLS on a Householder QR; docs/scale.md says why it is written here.
#include "mpiete/scaling/Nnls.h"

#include <algorithm>
#include <cmath>

namespace mpiete::scaling {

std::vector<double> leastSquares(const Matrix &A, const std::vector<double> &B,
                                 const std::vector<size_t> &Cols) {
  const size_t M = A.Rows, N = Cols.size();
  // Column-major copy of the chosen columns, scaled to unit norm so the rank test below is
  // relative (terms such as p^2 log p and a constant differ by orders of magnitude).
  std::vector<std::vector<double>> Q(N, std::vector<double>(M));
  std::vector<double> Scale(N, 1.0);
  for (size_t J = 0; J < N; ++J) {
    double Norm = 0;
    for (size_t I = 0; I < M; ++I) {
      Q[J][I] = A(I, Cols[J]);
      Norm += Q[J][I] * Q[J][I];
    }
    Norm = std::sqrt(Norm);
    if (Norm > 0) {
      Scale[J] = Norm;
      for (double &V : Q[J])
        V /= Norm;
    }
  }
  std::vector<double> Y = B, R(N * N, 0.0);
  std::vector<bool> Dependent(N, false);
  for (size_t K = 0; K < N && K < M; ++K) {
    double Norm = 0;
    for (size_t I = K; I < M; ++I)
      Norm += Q[K][I] * Q[K][I];
    Norm = std::sqrt(Norm);
    if (Norm < 1e-10) {
      Dependent[K] = true;
      continue;
    }
    const double Alpha = Q[K][K] > 0 ? -Norm : Norm;
    std::vector<double> V(M, 0.0);
    for (size_t I = K; I < M; ++I)
      V[I] = Q[K][I];
    V[K] -= Alpha;
    double VNorm2 = 0;
    for (size_t I = K; I < M; ++I)
      VNorm2 += V[I] * V[I];
    auto Reflect = [&](std::vector<double> &X) {
      double Dot = 0;
      for (size_t I = K; I < M; ++I)
        Dot += V[I] * X[I];
      const double F = 2 * Dot / VNorm2;
      for (size_t I = K; I < M; ++I)
        X[I] -= F * V[I];
    };
    if (VNorm2 > 0) {
      for (size_t J = K; J < N; ++J)
        Reflect(Q[J]);
      Reflect(Y);
    }
  }
  for (size_t K = N > M ? M : N; K < N; ++K)
    Dependent[K] = true;
  std::vector<double> X(N, 0.0);
  for (size_t K = N; K-- > 0;) {
    if (Dependent[K])
      continue;
    double S = Y[K];
    for (size_t J = K + 1; J < N; ++J)
      S -= Q[J][K] * X[J];
    X[K] = S / Q[K][K];
  }
  for (size_t J = 0; J < N; ++J)
    X[J] /= Scale[J];
  return X;
}

namespace {

double residualNorm(const Matrix &A, const std::vector<double> &B, const std::vector<double> &X) {
  double Sum = 0;
  for (size_t I = 0; I < A.Rows; ++I) {
    double R = -B[I];
    for (size_t J = 0; J < A.Cols; ++J)
      R += A(I, J) * X[J];
    Sum += R * R;
  }
  return std::sqrt(Sum);
}

} // namespace

NnlsResult solveNnls(const Matrix &A, const std::vector<double> &B) {
  const size_t N = A.Cols;
  NnlsResult Res;
  Res.X.assign(N, 0.0);
  std::vector<bool> Passive(N, false);
  double BNorm = 0;
  for (double V : B)
    BNorm = std::max(BNorm, std::fabs(V));
  double ANorm = 0;
  for (double V : A.Data)
    ANorm = std::max(ANorm, std::fabs(V));
  const double Tol = 1e-12 * std::max(1.0, BNorm) * std::max(1.0, ANorm) * double(A.Rows);
  auto Gradient = [&](std::vector<double> &W) {
    W.assign(N, 0.0);
    for (size_t I = 0; I < A.Rows; ++I) {
      double R = B[I];
      for (size_t J = 0; J < N; ++J)
        R -= A(I, J) * Res.X[J];
      for (size_t J = 0; J < N; ++J)
        W[J] += A(I, J) * R;
    }
  };
  std::vector<double> W;
  const unsigned MaxIter = unsigned(3 * N + 10);
  unsigned Iter = 0;
  Res.Converged = true;
  for (;;) {
    Gradient(W);
    size_t Best = N;
    for (size_t J = 0; J < N; ++J)
      if (!Passive[J] && W[J] > Tol && (Best == N || W[J] > W[Best]))
        Best = J;
    if (Best == N)
      break;
    if (++Iter > MaxIter) {
      Res.Converged = false;
      break;
    }
    Passive[Best] = true;
    for (;;) {
      std::vector<size_t> Cols;
      for (size_t J = 0; J < N; ++J)
        if (Passive[J])
          Cols.push_back(J);
      std::vector<double> S = leastSquares(A, B, Cols);
      bool Feasible = true;
      for (double V : S)
        Feasible &= V > 0;
      if (Feasible) {
        std::fill(Res.X.begin(), Res.X.end(), 0.0);
        for (size_t K = 0; K < Cols.size(); ++K)
          Res.X[Cols[K]] = S[K];
        break;
      }
      // Step from X towards S as far as feasibility allows; the coefficients that reach 0
      // leave the passive set.
      double Alpha = 1;
      for (size_t K = 0; K < Cols.size(); ++K)
        if (S[K] <= 0) {
          const double XJ = Res.X[Cols[K]];
          Alpha = std::min(Alpha, XJ / (XJ - S[K]));
        }
      for (size_t K = 0; K < Cols.size(); ++K) {
        double &XJ = Res.X[Cols[K]];
        XJ += Alpha * (S[K] - XJ);
        if (XJ <= 1e-15 * std::max(1.0, std::fabs(S[K]))) {
          XJ = 0;
          Passive[Cols[K]] = false;
        }
      }
      if (std::none_of(Passive.begin(), Passive.end(), [](bool P) { return P; }))
        break;
    }
  }
  Res.Residual = residualNorm(A, B, Res.X);
  return Res;
}

} // namespace mpiete::scaling
