// Fits the LogGPS parameters of seed 003 to the comm probe's table: a two-line least-squares fit
// of the one-way time whose break is the eager/synchronous threshold S, and the overheads.
#include "mpiete/tools/CommProbe.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mpiete {
namespace {

double weightOf(double Y) {
  double A = std::max(std::fabs(Y), 1e-15);
  return 1.0 / (A * A);
}

/// Sum of squared relative residuals of Line over [From, To).
double relativeSse(const LineFit &Line, const std::vector<double> &X,
                   const std::vector<double> &Y, size_t From, size_t To) {
  double Sum = 0;
  for (size_t I = From; I < To; ++I) {
    double R = Line.at(X[I]) - Y[I];
    Sum += R * R * weightOf(Y[I]);
  }
  return Sum;
}

} // namespace

LineFit fitLine(const std::vector<double> &X, const std::vector<double> &Y, size_t From,
                size_t To) {
  LineFit F;
  To = std::min(To, std::min(X.size(), Y.size()));
  if (From >= To)
    return F;
  double Sw = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
  for (size_t I = From; I < To; ++I) {
    double W = weightOf(Y[I]);
    Sw += W;
    Sx += W * X[I];
    Sy += W * Y[I];
    Sxx += W * X[I] * X[I];
    Sxy += W * X[I] * Y[I];
  }
  double Det = Sw * Sxx - Sx * Sx;
  // One point, or all at one size: the weighted mean, flat.
  if (To - From < 2 || std::fabs(Det) <= 1e-12 * Sw * Sxx) {
    F.Intercept = Sy / Sw;
    return F;
  }
  F.Slope = (Sw * Sxy - Sx * Sy) / Det;
  F.Intercept = (Sy - F.Slope * Sx) / Sw;
  return F;
}

PiecewiseFit fitPiecewise(const std::vector<double> &X, const std::vector<double> &Y,
                          size_t MinSide) {
  PiecewiseFit Best;
  size_t N = std::min(X.size(), Y.size());
  if (N == 0)
    return Best;
  MinSide = std::max<size_t>(MinSide, 2);
  LineFit Single = fitLine(X, Y, 0, N);
  double SingleSse = relativeSse(Single, X, Y, 0, N);
  Best.Left = Best.Right = Single;
  double BestSse = std::numeric_limits<double>::infinity();
  size_t BestBreak = 0;
  LineFit BestLeft, BestRight;
  for (size_t J = MinSide; J + MinSide <= N; ++J) {
    LineFit L = fitLine(X, Y, 0, J), R = fitLine(X, Y, J, N);
    double Sse = relativeSse(L, X, Y, 0, J) + relativeSse(R, X, Y, J, N);
    if (Sse < BestSse) {
      BestSse = Sse;
      BestBreak = J;
      BestLeft = L;
      BestRight = R;
    }
  }
  // A bent or noisy curve always fits two lines a little better than one; a protocol switch
  // fits them much better. Below ~1e-6 relative error per point a single line is exact.
  bool SingleExact = SingleSse <= 1e-12 * static_cast<double>(N);
  if (BestBreak != 0 && !SingleExact && BestSse <= 0.5 * SingleSse) {
    Best.Left = BestLeft;
    Best.Right = BestRight;
    Best.Break = BestBreak;
    Best.HasBreak = true;
  }
  double Sse = Best.HasBreak ? BestSse : SingleSse;
  Best.RelativeRms = std::sqrt(Sse / static_cast<double>(N));
  return Best;
}

LogGpsParams fitLogGps(const CommProbeOutput &Data) {
  LogGpsParams P;
  std::vector<CommRow> Rows = Data.Rows;
  std::sort(Rows.begin(), Rows.end(),
            [](const CommRow &A, const CommRow &B) { return A.Bytes < B.Bytes; });
  if (Rows.empty())
    return P;
  std::vector<double> X, Y, Isend, Arrived;
  for (const CommRow &R : Rows) {
    X.push_back(static_cast<double>(R.Bytes));
    Y.push_back(R.Recv.Median);
    Isend.push_back(R.IsendStart.Median);
    Arrived.push_back(R.Arrived.Median);
  }
  P.Fit = fitPiecewise(X, Y);
  size_t EagerEnd = P.Fit.HasBreak ? P.Fit.Break : X.size();
  if (P.Fit.HasBreak)
    P.S = Rows[P.Fit.Break].Bytes;
  P.GEager = P.Fit.Left.Slope;
  P.G = P.Fit.Right.Slope;

  // The overheads are linear in the size (seed 003, note to section 2.2), fitted where the
  // protocol is eager: above S the "arrived" receive also waits for the transfer.
  LineFit Os = fitLine(X, Isend, 0, EagerEnd);
  LineFit Or = fitLine(X, Arrived, 0, EagerEnd);
  P.Os = std::max(Os.Intercept, 0.0);
  P.OsPerByte = Os.Slope;
  P.Or = std::max(Or.Intercept, 0.0);
  P.OrPerByte = Or.Slope;

  P.L = P.Fit.Left.Intercept - P.Os - P.Or;
  if (P.L < 0) {
    P.L = 0;
    P.LClamped = true;
  }

  // A stream of n messages and an acknowledgement takes (n-1) g + 2 one-way times.
  double OneWay0 = Rows.front().Bytes == 0 ? Rows.front().Recv.Median : P.Fit.Left.Intercept;
  if (Data.StreamLength > 1) {
    P.Gap = (Data.Stream.Median - 2 * OneWay0) / (Data.StreamLength - 1);
    P.Gap = std::max(P.Gap, P.Os);
  }
  return P;
}

} // namespace mpiete
