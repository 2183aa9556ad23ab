// The efficiency surface over (N, W): the grid's predictions, efficiency, ridges, surface.yaml
// and its contour plot (a gnuplot script: gnuplot draws contours over irregular grids well and
// is packaged as gnuplot-nox, so no plotting is written here).
#include "mpiete/scaling/Surface.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

namespace mpiete::scaling {

using namespace estimator;

EstimateResult replayScaled(const CommStructure &S, const ComputeModel &Compute,
                            const NetworkModel &Net, int P, double W) {
  std::vector<SyntheticEventSource> Gens;
  Gens.reserve(size_t(P));
  std::vector<EventSource *> Sources;
  Sources.reserve(size_t(P));
  for (int R = 0; R < P; ++R) {
    Gens.emplace_back(S, R, P, W);
    Sources.push_back(&Gens.back());
  }
  Engine E(Compute, Net);
  return E.run(Sources);
}

std::string sizeLabel(double W) {
  char Buf[64];
  if (W == std::floor(W) && std::fabs(W) < 1e15)
    std::snprintf(Buf, sizeof Buf, "%.0f", W);
  else
    std::snprintf(Buf, sizeof Buf, "%g", W);
  return Buf;
}

bool computeSurface(std::vector<int> Ranks, std::vector<double> Sizes,
                    const SurfacePredictor &Predict, SurfaceGrid &Out, std::string &Err) {
  std::sort(Ranks.begin(), Ranks.end());
  Ranks.erase(std::unique(Ranks.begin(), Ranks.end()), Ranks.end());
  std::sort(Sizes.begin(), Sizes.end());
  Sizes.erase(std::unique(Sizes.begin(), Sizes.end()), Sizes.end());
  if (Ranks.empty() || Sizes.empty() || Ranks.front() < 1 || Sizes.front() <= 0) {
    Err = "the grid needs rank counts >= 1 and sizes > 0";
    return false;
  }
  Out = {};
  Out.Ranks = Ranks;
  Out.Sizes = Sizes;
  Out.BaseRanks = Ranks.front();
  for (double W : Sizes) {
    std::vector<double> &T = Out.Time.emplace_back();
    for (int N : Ranks) {
      std::string Why;
      std::optional<double> Seconds = Predict(N, W, Why);
      if (!Seconds || !(*Seconds > 0)) {
        Err = "at " + std::to_string(N) + " ranks, size " + sizeLabel(W) + ": " +
              (Seconds ? "the predicted time is not positive" : Why);
        return false;
      }
      T.push_back(*Seconds);
    }
    std::vector<double> &E = Out.Efficiency.emplace_back();
    const double Base = double(Out.BaseRanks) * T.front();
    for (size_t I = 0; I < Ranks.size(); ++I)
      E.push_back(Base / (double(Ranks[I]) * T[I]));
    Out.RidgePerSize.push_back(size_t(std::max_element(E.begin(), E.end()) - E.begin()));
  }
  for (size_t I = 0; I < Ranks.size(); ++I) {
    size_t Best = 0;
    for (size_t J = 1; J < Sizes.size(); ++J)
      if (Out.Efficiency[J][I] > Out.Efficiency[Best][I])
        Best = J;
    Out.RidgePerRanks.push_back(Best);
  }
  return true;
}

namespace {

std::string quoted(const std::string &S) {
  std::string Q = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Q += '\\';
    Q += C;
  }
  return Q + "\"";
}

std::string number(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.9g", V);
  return Buf;
}

} // namespace

void writeSurface(std::ostream &OS, const SurfaceGrid &G, const std::string &Tool,
                  const std::string &Command, const std::string &Model,
                  const std::string &SvgFile) {
  OS << "# mpiete surface: predicted time and parallel efficiency over rank counts and problem "
        "sizes\n";
  OS << "format: mpiete-surface\nversion: 1\ntool: " << quoted(Tool)
     << "\ncommand: " << quoted(Command) << "\n";
  if (!Model.empty())
    OS << "model: " << quoted(Model) << "\n";
  OS << "extrapolated: true\n";
  OS << "efficiency_definition: \"N0 * T(N0, W) / (N * T(N, W)), N0 = the smallest rank count "
        "of the grid\"\nefficiency_base_ranks: "
     << G.BaseRanks << "\n";
  auto list = [&](const std::string &Key, auto Values, auto Fmt) {
    OS << Key << "[";
    for (size_t I = 0; I < Values.size(); ++I)
      OS << (I ? ", " : "") << Fmt(Values[I]);
    OS << "]\n";
  };
  list("ranks: ", G.Ranks, [](int N) { return std::to_string(N); });
  list("sizes: ", G.Sizes, [](double W) { return quoted(sizeLabel(W)); });
  list("size_values: ", G.Sizes, number);
  auto grid = [&](const char *Key, const std::vector<std::vector<double>> &Rows) {
    OS << Key << ":\n";
    for (const auto &Row : Rows)
      list("  - ", Row, number);
  };
  grid("time_seconds", G.Time);
  grid("efficiency", G.Efficiency);
  OS << "# per size: the rank count of best efficiency\n";
  list("ridge_ranks_per_size: ", G.RidgePerSize,
       [&](size_t I) { return std::to_string(G.Ranks[I]); });
  OS << "# per rank count: the size of best efficiency (seed 001's ridge)\n";
  list("ridge_size_per_ranks: ", G.RidgePerRanks,
       [&](size_t I) { return quoted(sizeLabel(G.Sizes[I])); });
  if (!SvgFile.empty())
    OS << "svg: " << quoted(SvgFile) << "\n";
}

std::string surfaceGnuplotScript(const SurfaceGrid &G, const std::string &Terminal,
                                 const std::string &OutFile, const std::string &Title) {
  std::ostringstream S;
  // One scan line per size (pm3d's grid), then the two ridges.
  S << "$E << EOD\n";
  for (size_t J = 0; J < G.Sizes.size(); ++J) {
    for (size_t I = 0; I < G.Ranks.size(); ++I)
      S << G.Ranks[I] << " " << number(G.Sizes[J]) << " " << number(G.Efficiency[J][I]) << "\n";
    S << "\n";
  }
  S << "EOD\n$RidgeSize << EOD\n";
  for (size_t J = 0; J < G.Sizes.size(); ++J)
    S << G.Ranks[G.RidgePerSize[J]] << " " << number(G.Sizes[J]) << "\n";
  S << "EOD\n$RidgeRanks << EOD\n";
  for (size_t I = 0; I < G.Ranks.size(); ++I)
    S << G.Ranks[I] << " " << number(G.Sizes[G.RidgePerRanks[I]]) << "\n";
  S << "EOD\n";
  double Max = 0;
  for (const auto &Row : G.Efficiency)
    for (double E : Row)
      Max = std::max(Max, E);
  const double Top = std::max(1.0, std::ceil(Max * 10) / 10);
  // Contour lines go to a table first so that they can be drawn over the filled map.
  S << "set table $C\nunset surface\nset contour base\nset cntrparam levels incremental 0.1, "
       "0.1, "
    << number(Top)
    << "\nsplot $E using 1:2:3 with lines\nunset table\nunset contour\nset surface\n";
  if (Terminal == "png")
    S << "set terminal pngcairo size 720,480 font \"sans,10\"\n";
  else
    S << "set terminal svg size 720,480 dynamic font \"sans,11\"\n";
  S << "set output " << quoted(OutFile) << "\n";
  S << "set title " << quoted(Title) << "\n";
  S << "set view map\nset pm3d map interpolate 4,4 corners2color mean\nset logscale x 2\n";
  if (G.Sizes.size() > 1 && G.Sizes.back() / G.Sizes.front() >= 8)
    S << "set logscale y 10\n";
  S << "set xrange [" << G.Ranks.front() << ":" << G.Ranks.back() << "]\nset yrange ["
    << number(G.Sizes.front()) << ":" << number(G.Sizes.back()) << "]\n";
  S << "set xlabel \"ranks N\"\nset ylabel \"problem size W\"\n";
  S << "set cblabel \"efficiency E(N, W), N0 = " << G.BaseRanks
    << "\"\nset cbrange [0:" << number(Top) << "]\n";
  S << "set palette defined (0 \"#b2182b\", 0.5 \"#fddbc7\", 1 \"#2166ac\")\n";
  S << "set bmargin 6\nset key at screen 0.45, 0.06 center horizontal maxrows 1 width 2\n";
  S << "splot $E using 1:2:3 with pm3d notitle, \\\n"
       "  $C using 1:2:(0) with lines lc rgb \"#333333\" lw 0.8 notitle, \\\n"
       "  $RidgeSize using 1:2:(0) with linespoints lc rgb \"black\" lw 2 pt 7 ps 1 "
       "title \"best N per size\", \\\n"
       "  $RidgeRanks using 1:2:(0) with linespoints lc rgb \"#1b7837\" lw 2 dt 2 pt 5 ps 0.8 "
       "title \"best W per N (seed 001's ridge)\"\n";
  S << "unset output\n";
  return S.str();
}

} // namespace mpiete::scaling
