// `mpiete probe-comm`: runs comm_probe through the launcher, fits LogGPS to what it measured and
// writes the communication base data (network.yaml).
#include "CommandUtil.h"
#include "MachineLoad.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/NetworkFile.h"
#include "mpiete/support/Process.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/Launcher.h"

#include <CLI/CLI.hpp>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mpiete {
namespace {

/// The options, each declared once; --help is generated from them.
struct Options {
  std::string Out, MaxSize, Step, Pairs, MinReps, MaxReps, Tolerance;
  bool LinearOnly = false, Unchanged = false, Verbose = false;
};

void declare(CommandLine &C, Options &O) {
  CLI::App &A = C.App;
  A.add_option("-o", O.Out, "the network file to write (required)")->type_name("FILE");
  A.add_option("--max-size", O.MaxSize, "largest message (default 4MiB; units k, M, G are binary)")
      ->type_name("BYTES");
  A.add_option("--step", O.Step,
               "step of the linear sweep (default: max-size / 64); powers of two and their "
               "midpoints are measured too unless --linear-only")
      ->type_name("BYTES");
  A.add_flag("--linear-only", O.LinearOnly,
             "only 0, step, 2 step, ... max-size (seed 004's sweep)");
  A.add_flag("--unchanged-buffers", O.Unchanged,
             "send the same unchanged buffer every time (the default rewrites each send buffer "
             "before its send, off the clock, as a program's freshly computed data)");
  A.add_option("--pairs", O.Pairs,
               "K pairs measured at once (rank i with rank i+K), for contention; the table is "
               "pair 0's (default 1)")
      ->type_name("K");
  A.add_option("--min-reps", O.MinReps, "repetitions at least (default 20)")->type_name("N");
  A.add_option("--max-reps", O.MaxReps, "repetitions at most (default 1000)")->type_name("N");
  A.add_option("--tolerance", O.Tolerance,
               "stop when the median moved by less than X over a batch (default 0.02)")
      ->type_name("X");
  C.addLaunchOptions("ranks (default 2 K); other options before the end go to the launcher");
  A.add_flag("--verbose", O.Verbose, "print the launcher command");
}

} // namespace

int runProbeComm(const CommandArgs &Args) {
  CommandLine C("probe-comm",
                "usage: mpiete probe-comm -o FILE [options] [-np R] [launcher options]",
                "Measures the communication base data between rank 0 and rank 1 (two nodes of the "
                "target\ncluster, or two ranks of one node for the intra-node class) and writes "
                "FILE (YAML): for each\nmessage size the one-way time (half a ping-pong round "
                "trip), its p10/p90, the start cost of\nMPI_Isend and MPI_Irecv, the receive of an "
                "already arrived message, and the LogGPS parameters\n(L, o_s, o_r, g, G, S) fitted "
                "to them. See docs/probes.md.",
                "  mpiete probe-comm -o network.yaml --launcher srun -N 2 --ntasks-per-node 1\n"
                "  mpiete probe-comm -o shm.yaml --max-size 1MiB\n",
                "Environment: MPIETE_COMM_PROBE overrides the probe program's path.\n");
  Options O;
  declare(C, O);
  ProbeCommandLine CL;
  std::string Err = C.parseProbe(Args, /*WantProgram=*/false, CL);
  if (CL.Help) {
    std::cout << C.help();
    return 0;
  }
  if (!Err.empty())
    return commandError("probe-comm: " + Err + " (see 'mpiete probe-comm --help')", 2);
  auto Given = [&](const char *Name, const std::string &Value) -> std::optional<std::string> {
    return C.App.count(Name) ? std::optional<std::string>(Value) : std::nullopt;
  };
  std::optional<std::string> OutPath = Given("-o", O.Out);
  if (!OutPath || OutPath->empty())
    return commandError("probe-comm: no output file: give -o FILE", 2);

  uint64_t MaxSize = 4ULL << 20;
  if (auto V = Given("--max-size", O.MaxSize)) {
    auto N = parseByteCount(*V);
    if (!N || *N > static_cast<uint64_t>(INT_MAX))
      return commandError("probe-comm: invalid --max-size '" + *V + "'", 2);
    MaxSize = *N;
  }
  uint64_t Step = MaxSize / 64 ? MaxSize / 64 : 1;
  if (auto V = Given("--step", O.Step)) {
    auto N = parseByteCount(*V);
    if (!N || *N == 0)
      return commandError("probe-comm: invalid --step '" + *V + "'", 2);
    Step = *N;
  }
  int Pairs = 1;
  std::vector<std::string> Extra;
  for (auto [Name, Value] : {std::pair<const char *, const std::string &>{"--pairs", O.Pairs},
                             {"--min-reps", O.MinReps},
                             {"--max-reps", O.MaxReps}}) {
    if (auto V = Given(Name, Value)) {
      char *End = nullptr;
      long N = std::strtol(V->c_str(), &End, 10);
      if (V->empty() || *End || N < 1 || N > 1000000)
        return commandError(std::string("probe-comm: invalid ") + Name + " '" + *V + "'", 2);
      if (std::string(Name) == "--pairs")
        Pairs = static_cast<int>(N);
      Extra.insert(Extra.end(), {Name, *V});
    }
  }
  if (auto V = Given("--tolerance", O.Tolerance)) {
    char *End = nullptr;
    double T = std::strtod(V->c_str(), &End);
    if (V->empty() || *End || !(T > 0 && T < 1))
      return commandError("probe-comm: invalid --tolerance '" + *V + "' (between 0 and 1)", 2);
    Extra.insert(Extra.end(), {"--tolerance", *V});
  }
  bool LogSizes = !O.LinearOnly;

  fs::path Probe;
  if (const char *P = std::getenv("MPIETE_COMM_PROBE"); P && *P)
    Probe = P;
  else
    Probe = selfBinDir().parent_path() / "libexec" / "mpiete" / "comm_probe";
  std::error_code EC;
  if (!fs::exists(Probe, EC))
    return commandError("probe-comm: the comm probe program '" + Probe.string() +
                        "' is missing (set MPIETE_COMM_PROBE)");

  LaunchSpec Spec = CL.Launch;
  if (Spec.Np == 0)
    Spec.Np = 2 * Pairs;
  if (Spec.Np < 2 * Pairs)
    return commandError("probe-comm: " + std::to_string(Pairs) + " pair(s) need -np " +
                            std::to_string(2 * Pairs) + " at least",
                        2);
  Spec.Program = {fs::absolute(Probe, EC).string(), "--max-size", std::to_string(MaxSize), "--step",
                  std::to_string(Step)};
  Spec.Program.insert(Spec.Program.end(), Extra.begin(), Extra.end());
  if (!LogSizes)
    Spec.Program.push_back("--linear-only");
  if (O.Unchanged)
    Spec.Program.push_back("--unchanged-buffers");
  if (isatty(STDERR_FILENO))
    Spec.Program.push_back("--progress");
  std::vector<std::string> Argv = launchArgv(Spec);
  if (O.Verbose)
    std::cerr << "mpiete: running " << shellJoin(Argv) << '\n';

  const LoadMonitor Load;
  std::optional<std::string> Text = captureProcess(Argv);
  if (!Text)
    return commandError("probe-comm: the comm probe failed: " + shellJoin(Argv));
  CommProbeOutput Data;
  if (std::string E = parseCommProbeOutput(*Text, Data); !E.empty())
    return commandError("probe-comm: " + E);
  // A size far slower than both its neighbours is a stall of the run, not the network's cost:
  // the probe runs again (at most twice) and such a size takes a run's row where it is not.
  std::vector<uint64_t> Spiky = spikySizes(Data);
  if (!Spiky.empty())
    std::cerr << "mpiete: probe-comm: note: " << Spiky.size() << " message size(s) took over "
              << SpikeFactor << " times both neighbouring sizes (first: " << Spiky.front()
              << " bytes); measuring again\n";
  int Runs = 1;
  for (; Runs < 3 && !Spiky.empty(); ++Runs) {
    std::optional<std::string> More = captureProcess(Argv);
    CommProbeOutput Other;
    if (!More || !parseCommProbeOutput(*More, Other).empty())
      break;
    Spiky = mendSpikes(Data, Other);
  }
  LogGpsFit Fit = fitLogGps(Data);
  const LogGpsParams &Params = Fit.Params;

  NetworkRun Run;
  Run.Tool = std::string("mpiete ") + MPIETE_VERSION;
  Run.Date = isoDateNow();
  Run.Command = shellJoin(Argv);
  Run.MaxSize = MaxSize;
  Run.Step = Step;
  Run.LogSizes = LogSizes;
  Run.SendBuffers = O.Unchanged ? "unchanged" : "rewritten";
  std::ofstream OS(*OutPath);
  if (!OS)
    return commandError("probe-comm: cannot write '" + *OutPath + "'");
  writeNetworkFile(OS, makeNetworkFile(Data, Fit, Run));
  OS.close();
  if (!OS)
    return commandError("probe-comm: cannot write '" + *OutPath + "'");

  std::ostringstream Summary;
  Summary.precision(3);
  Summary << "mpiete: wrote " << *OutPath << " (" << Data.Rows.size() << " sizes, "
          << (Data.Host0 == Data.Host1 ? "intra-node " + Data.Host0
                                       : "inter-node " + Data.Host0 + " - " + Data.Host1)
          << "): L=" << Params.L * 1e6 << "us o_s=" << Params.Os * 1e6
          << "us o_r=" << Params.Or * 1e6 << "us g=" << Params.Gap * 1e6
          << "us G=" << Params.G * 1e9
          << "ns/B S=" << (Params.S ? std::to_string(*Params.S) + "B" : std::string("none"))
          << '\n';
  std::cout << Summary.str();
  for (uint64_t Bytes : Spiky)
    std::cerr << *OutPath << ": warning: messages of " << Bytes << " bytes took over "
              << SpikeFactor << " times both neighbouring sizes in " << Runs
              << " runs of the probe: kept as measured [mpiete-probe]\n";
  // Ranks that share processors with other work measure a slower network than the real one.
  if (const auto S = ranksRunHere(Spec) ? Load.finish() : std::nullopt)
    if (std::string N = loadNotice(*S, Spec.Np, "the comm probe",
                                   "its latencies and gaps are likely too long, so predicted "
                                   "communication times over-estimate");
        !N.empty())
      std::cerr << *OutPath << ": warning: " << N << " [mpiete-load]\n";
  return 0;
}

} // namespace mpiete
