// Fits the LogGPS parameters of seed 003 to the comm probe's table: the eager/synchronous
// threshold S (a change point), a least-squares line each side of it, the overheads.
#include "mpiete/basedata/CommProbe.h"

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
double relativeSse(const LineFit &Line, const std::vector<double> &X, const std::vector<double> &Y,
                   size_t From, size_t To) {
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

StepFit findStep(const std::vector<double> &Y, double MinRise, size_t MinSide, size_t Window) {
  StepFit F;
  auto Median = [&](size_t A, size_t B) {
    std::vector<double> V(Y.begin() + static_cast<std::ptrdiff_t>(A),
                          Y.begin() + static_cast<std::ptrdiff_t>(B));
    std::nth_element(V.begin(), V.begin() + static_cast<std::ptrdiff_t>(V.size() / 2), V.end());
    return V[V.size() / 2];
  };
  MinSide = std::max<size_t>(MinSide, 1);
  Window = std::max<size_t>(Window, 1);
  for (size_t J = MinSide; J + Window <= Y.size(); ++J) {
    double Before = Median(0, J);
    if (Y[J] - Before >= MinRise && Median(J, J + Window) - Before >= MinRise) {
      F.Break = J;
      F.HasBreak = true;
      F.Below = Before;
      F.Above = Median(J, Y.size());
      return F;
    }
  }
  return F;
}

PiecewiseFit fitAt(const std::vector<double> &X, const std::vector<double> &Y, size_t Break) {
  PiecewiseFit F;
  size_t N = std::min(X.size(), Y.size());
  if (N == 0)
    return F;
  if (Break == 0 || Break >= N) {
    F.Left = F.Right = fitLine(X, Y, 0, N);
    F.RelativeRms = std::sqrt(relativeSse(F.Left, X, Y, 0, N) / static_cast<double>(N));
    return F;
  }
  F.Left = fitLine(X, Y, 0, Break);
  F.Right = fitLine(X, Y, Break, N);
  F.Break = Break;
  F.HasBreak = true;
  double Sse = relativeSse(F.Left, X, Y, 0, Break) + relativeSse(F.Right, X, Y, Break, N);
  F.RelativeRms = std::sqrt(Sse / static_cast<double>(N));
  return F;
}

LogGpsFit fitLogGps(const CommProbeOutput &Data) {
  LogGpsFit F;
  LogGpsParams &P = F.Params;
  P.GEager = 0;
  std::vector<CommRow> Rows = Data.Rows;
  std::sort(Rows.begin(), Rows.end(),
            [](const CommRow &A, const CommRow &B) { return A.Bytes < B.Bytes; });
  if (Rows.empty())
    return F;
  std::vector<double> X, Y, Isend, Arrived;
  for (const CommRow &R : Rows) {
    X.push_back(static_cast<double>(R.Bytes));
    Y.push_back(R.Recv.Median);
    Isend.push_back(R.IsendStart.Median);
    Arrived.push_back(R.Arrived.Median);
  }
  // Past S the receive of an arrived message waits for the transfer: the share of the one-way
  // time it takes steps up (from ~0.1 to ~0.5-1 on shared memory); a rise under 0.2 is noise.
  // (A two-line fit of the one-way curve alone breaks where messages outgrow the caches.)
  std::vector<double> Share;
  for (size_t I = 0; I < X.size(); ++I)
    Share.push_back(Y[I] > 0 ? Arrived[I] / Y[I] : 0);
  F.Threshold = findStep(Share, 0.2);
  size_t Break = F.Threshold.HasBreak ? F.Threshold.Break : 0;
  F.Fit = fitAt(X, Y, Break);
  size_t EagerEnd = F.Fit.HasBreak ? F.Fit.Break : X.size();
  if (F.Fit.HasBreak)
    P.S = Rows[F.Fit.Break].Bytes;
  // A gap per byte cannot be negative; over the few eager sizes noise can tilt a free fit below
  // zero (seen under load), so the slopes are clamped like the overheads below.
  P.GEager = std::max(F.Fit.Left.Slope, 0.0);
  P.G = std::max(F.Fit.Right.Slope, 0.0);

  // The overheads are linear in the size (seed 003, note to section 2.2), fitted where the
  // protocol is eager: above S the "arrived" receive also waits for the transfer.
  LineFit Os = fitLine(X, Isend, 0, EagerEnd);
  LineFit Or = fitLine(X, Arrived, 0, EagerEnd);
  P.Os = std::max(Os.Intercept, 0.0);
  P.OsPerByte = std::max(Os.Slope, 0.0);
  P.Or = std::max(Or.Intercept, 0.0);
  P.OrPerByte = std::max(Or.Slope, 0.0);

  P.L = F.Fit.Left.Intercept - P.Os - P.Or;
  if (P.L < 0) {
    P.L = 0;
    F.LClamped = true;
  }

  // A stream of n messages and an acknowledgement takes (n-1) g + 2 one-way times.
  double OneWay0 = Rows.front().Bytes == 0 ? Rows.front().Recv.Median : F.Fit.Left.Intercept;
  if (Data.StreamLength > 1) {
    P.Gap = (Data.Stream.Median - 2 * OneWay0) / (Data.StreamLength - 1);
    P.Gap = std::max(P.Gap, P.Os);
  }
  return F;
}

} // namespace mpiete
