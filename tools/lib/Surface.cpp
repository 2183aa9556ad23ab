// `mpiete surface`: predicted time and parallel efficiency over a grid of rank counts and
// problem sizes from a scaling model (the extrapolated replay at every point), written as
// surface.yaml and drawn by gnuplot as a contour plot with the ridges marked.
#include "CommandUtil.h"
#include "Model.h"

#include "mpiete/estimator/BaseData.h"
#include "mpiete/scaling/ModelFile.h"
#include "mpiete/scaling/Surface.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace mpiete {

using namespace estimator;
using namespace scaling;

namespace {

/// "2,4,8" or "2..64" (doubling from the first to the last).
template <typename T> bool parseList(const std::string &Text, std::vector<T> &Out) {
  try {
    if (size_t Dots = Text.find(".."); Dots != std::string::npos) {
      const double From = std::stod(Text.substr(0, Dots)), To = std::stod(Text.substr(Dots + 2));
      if (!(From > 0) || To < From)
        return false;
      for (double V = From; V <= To * (1 + 1e-12); V *= 2)
        Out.push_back(T(V));
      return true;
    }
    std::stringstream S(Text);
    std::string Item;
    while (std::getline(S, Item, ','))
      Out.push_back(T(std::stod(Item)));
  } catch (...) {
    return false;
  }
  return !Out.empty();
}

/// Runs gnuplot on Script; false (with the reason) if it is missing or fails.
bool runGnuplot(const std::string &Script, std::string &Why) {
  FILE *P = popen("gnuplot 2>&1", "w");
  if (!P) {
    Why = "cannot start gnuplot";
    return false;
  }
  std::fwrite(Script.data(), 1, Script.size(), P);
  const int Status = pclose(P);
  if (Status != 0) {
    Why = Status == 127 << 8 ? "gnuplot is not installed (Debian: gnuplot-nox)"
                             : "gnuplot failed (status " + std::to_string(Status) + ")";
    return false;
  }
  return true;
}

std::string baseName(const std::string &Path) {
  const size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

} // namespace

int runSurface(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete surface", 0, 0};
  CommandLine C(
      "surface",
      "usage: mpiete surface --model model.yaml --network network.yaml --ranks LIST --sizes LIST\n"
      "                      [-o surface.yaml] [--svg FILE] [--png FILE] [--title TEXT]",
      "Predicts the run time at every (ranks N, size W) of a grid by replaying the model's "
      "communication\nstructure at that scale (mpiete estimate --ranks N --size W), and the "
      "parallel efficiency\nE(N, W) = N0 T(N0, W) / (N T(N, W)), N0 the smallest rank count of "
      "the grid (seed 001's\nT(1, W) / (N T(N, W)) when the grid starts at 1). Writes "
      "surface.yaml (what `mpiete report\n--surface` reads) and draws the efficiency as a "
      "contour plot with gnuplot: the best rank count\nper size and the best size per rank "
      "count (seed 001's ridge) are marked.",
      "  mpiete surface --model model.yaml --network net.yaml --ranks 1..64 --sizes "
      "1000,4000,16000 -o surface.yaml\n",
      "LIST: comma-separated values, or A..B (doubling from A up to B).\n");
  std::string ModelPath, NetworkPath, RanksText, SizesText, Output, Svg, Png, Title;
  C.App.add_option("--model", ModelPath, "the scaling model (mpiete model)")->type_name("FILE");
  C.App.add_option("--network", NetworkPath, "the network base data")->type_name("FILE");
  C.App.add_option("--ranks", RanksText, "rank counts")->type_name("LIST");
  C.App.add_option("--sizes", SizesText, "problem sizes (default: the model's first run's)")
      ->type_name("LIST");
  C.App.add_option("-o", Output, "write surface.yaml there (default: standard output)")
      ->type_name("FILE");
  C.App.add_option("--svg", Svg, "the contour plot (default: beside -o, .svg for .yaml)")
      ->type_name("FILE");
  C.App.add_option("--png", Png, "also a PNG of the plot")->type_name("FILE");
  C.App.add_option("--title", Title, "the plot's title")->type_name("TEXT");
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  std::vector<int> Ranks;
  std::vector<double> Sizes;
  if (ModelPath.empty() || NetworkPath.empty() || !parseList(RanksText, Ranks) ||
      (!SizesText.empty() && !parseList(SizesText, Sizes))) {
    Diags.error(Tool, "needs --model, --network and --ranks LIST (and --sizes LIST)", "usage");
    std::cerr << C.help();
    return 1;
  }
  ScalingModelFile File;
  if (!loadExtrapolationModel(ModelPath, Diags, File))
    return 1;
  if (Sizes.empty())
    Sizes.push_back(File.Runs.empty() ? 1 : File.Runs.front().Size);
  CommStructure S;
  if (!learnModelStructure(File, Diags, S))
    return 1;
  std::shared_ptr<LinkModel> Link = loadNetworkYaml(NetworkPath, NetworkModelKind::Table, Diags);
  if (!Link)
    return 1;
  ClusterNetworkModel Net(Link);
  // Every point as `estimate --ranks P --size W` predicts it: with the occurrence profiles of
  // the model's largest run.
  MachineFile ProfileRun;
  std::string ProfilePath;
  const bool HaveProfiles = loadProfileRun(File, Diags, ProfileRun, ProfilePath);
  SurfacePredictor Predict = [&](int P, double W, std::string &Err) -> std::optional<double> {
    std::string Site;
    if (std::string Why = unmeasuredRanks(File, S, P, W, Site); !Why.empty()) {
      Err = (Site.empty() ? ModelPath : Site) + ": " + Why;
      return std::nullopt;
    }
    ScaledComputeModel Compute(File, P, W);
    if (HaveProfiles)
      Compute.addOccurrenceProfiles(ProfileRun);
    EstimateResult R = replayScaled(S, Compute, Net, P, W);
    if (!R.Ok) {
      Err = R.Errors.empty() ? "the replay failed" : R.Errors.front().Message;
      return std::nullopt;
    }
    return R.predictedSeconds();
  };
  SurfaceGrid G;
  std::string Err;
  if (!computeSurface(Ranks, Sizes, Predict, G, Err)) {
    Diags.error({ModelPath, 0, 0}, Err, "scale");
    return 1;
  }
  // Points whose counts no base run showed how the program rounds: one warning, with the first.
  size_t Rounded = 0;
  std::string First;
  for (int P : Ranks)
    for (double W : Sizes)
      if (const std::vector<CommStructure::Fraction> Fs = S.fractionsAt(P, W); !Fs.empty()) {
        if (Rounded++ == 0)
          First = modelSiteName(File, Fs.front().Site) + ": " + fractionText(Fs.front(), P, W);
      }
  if (Rounded > 0)
    Diags.warning({ModelPath, 0, 0},
                  std::to_string(Rounded) + " of the " +
                      std::to_string(Ranks.size() * Sizes.size()) +
                      " points rest on counts that are no whole number there and were whole in "
                      "every base run, the first: " +
                      First,
                  "scale");

  if (Svg.empty() && !Output.empty()) {
    const size_t Dot = Output.rfind('.');
    Svg =
        (Dot == std::string::npos || Dot < Output.rfind('/') + 1 ? Output : Output.substr(0, Dot)) +
        ".svg";
  }
  if (Title.empty())
    Title = "Predicted parallel efficiency: " + baseName(ModelPath);
  std::string SvgField;
  for (const auto &[Path, Terminal] : {std::pair{Svg, "svg"}, {Png, "png"}}) {
    if (Path.empty())
      continue;
    std::string Why;
    if (runGnuplot(surfaceGnuplotScript(G, Terminal, Path, Title), Why)) {
      if (Path == Svg)
        SvgField = Path;
    } else {
      Diags.warning({Path, 0, 0}, "no plot: " + Why, "scale");
    }
  }
  // The report resolves svg relative to surface.yaml: write it so when they share a folder.
  if (!SvgField.empty() && !Output.empty()) {
    const size_t Slash = Output.rfind('/');
    const std::string Dir = Slash == std::string::npos ? "" : Output.substr(0, Slash + 1);
    if (!Dir.empty() && SvgField.rfind(Dir, 0) == 0)
      SvgField = SvgField.substr(Dir.size());
  }
  const std::string Command = joinArgs("surface", Args);
  std::ofstream OutFile;
  std::ostream *OS = openOutput(!Output.empty() ? &Output : nullptr, OutFile, "surface", Diags);
  if (!OS)
    return 1;
  writeSurface(*OS, G, std::string("mpiete ") + MPIETE_VERSION, Command, ModelPath, SvgField);
  // The readable table (standard error when the YAML takes standard output).
  std::ostream &Table = Output.empty() ? std::cerr : std::cout;
  Table << "efficiency (N0 = " << G.BaseRanks << ")\n  size \\ ranks";
  for (int N : G.Ranks)
    Table << "\t" << N;
  Table << "\n";
  for (size_t J = 0; J < G.Sizes.size(); ++J) {
    Table << "  " << sizeLabel(G.Sizes[J]);
    for (double E : G.Efficiency[J]) {
      char Buf[16];
      std::snprintf(Buf, sizeof Buf, "\t%.3f", E);
      Table << Buf;
    }
    Table << "\tbest N = " << G.Ranks[G.RidgePerSize[J]] << "\n";
  }
  return 0;
}

} // namespace mpiete
