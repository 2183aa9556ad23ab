// `mpiete probe-compute`: runs a program's timing probe under token passing on
// one processor (or k, --ranks-per-node) and merges the per-rank timing files into the compute
// base data (machine.yaml).
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Process.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/Launcher.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace mpiete {
namespace {

constexpr int ComputeFormatVersion = 1;

const char Usage[] =
    "usage: mpiete probe-compute -o MACHINE.yaml -np R [--cpu N] [--ranks-per-node K] [--keep]\n"
    "                            [--launcher NAME] [launcher options] PROGRAM.timing "
    "[program arguments]\n"
    "\n"
    "Runs the timing probe of a program built by mpiete-cc with all R ranks on one processor,\n"
    "one rank at a time (token passing), and writes every rank's compute block times.\n"
    "  -o FILE         the compute base data to write (YAML)\n"
    "  -np R           the number of ranks\n"
    "  --cpu N         the processor to run on (default: the first one the job may use)\n"
    "  --ranks-per-node K\n"
    "                  K ranks compute at once, each on its own processor (N, then the next\n"
    "                  K-1 the job may use), so blocks share memory bandwidth and caches as\n"
    "                  on a node running K ranks; default 1\n"
    "  --keep          keep the per-rank timing files (their "
    "directory is printed)\n"
    "  --launcher NAME mpirun (default), mpiexec, srun, ...\n\n"
    "Example:\n  mpiete probe-compute -o machineB.yaml -np 16 ./jacobi.timing 2048\n";

/// One block's line of a rank's timing file.
struct BlockTiming {
  std::string Id;
  std::string Kind; // block or loop
  uint64_t Executions = 0;
  uint64_t Trips = 0;
  uint64_t Nanos = 0;
  double MinNs = 0, MaxNs = 0, StddevNs = 0;
};

struct RankTiming {
  int Rank = -1;
  double OverheadNs = 0;
  bool TokenPassing = false;
  int Cpu = -1;
  int RanksPerNode = 1;
  std::vector<BlockTiming> Blocks;
};

/// Reads `rank<N>.timing` (runtime/lib/Recorder.cpp writes it). Returns an
/// error message, empty on success.
std::string readRankTiming(const fs::path &Path, int Rank, RankTiming &Out) {
  std::ifstream In(Path);
  if (!In)
    return "cannot open '" + Path.string() + "'";
  std::string Line;
  unsigned LineNo = 0;
  auto Bad = [&](const std::string &What) {
    return Path.string() + ":" + std::to_string(LineNo) + ": " + What;
  };
  if (!std::getline(In, Line) || Line.rfind("# mpiete timing rank ", 0) != 0)
    return Bad("not a timing file of mpiete's timing probe");
  ++LineNo;
  Out.Rank = Rank;
  while (std::getline(In, Line)) {
    ++LineNo;
    if (Line.empty())
      continue;
    std::istringstream S(Line);
    if (Line[0] == '#') {
      std::string Hash, Key, Value;
      S >> Hash >> Key >> Value;
      if (Key == "timer-overhead-ns")
        Out.OverheadNs = std::strtod(Value.c_str(), nullptr);
      else if (Key == "token-passing")
        Out.TokenPassing = Value == "on";
      else if (Key == "cpu")
        Out.Cpu = std::atoi(Value.c_str());
      else if (Key == "ranks-per-node")
        Out.RanksPerNode = std::atoi(Value.c_str());
      continue;
    }
    BlockTiming B;
    uint64_t Execs = 0;
    S >> B.Id >> B.Kind >> Execs;
    if (!S)
      return Bad("malformed record '" + Line + "'");
    if (B.Kind != "block" && B.Kind != "loop")
      continue; // communication, init, finalize: counted, not timed
    B.Executions = Execs;
    if (B.Kind == "loop")
      S >> B.Trips;
    S >> B.Nanos >> B.MinNs >> B.MaxNs >> B.StddevNs;
    if (!S)
      return Bad("malformed timed record '" + Line + "'");
    Out.Blocks.push_back(B);
  }
  if (!Out.TokenPassing)
    return Path.string() + ": the program did not run under token passing (was it linked with "
                           "the timing runtime?)";
  return "";
}

/// A field of /proc/cpuinfo's first processor ("model name", "cpu MHz"), or "".
std::string cpuInfo(const std::string &Key) {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind(Key, 0) != 0)
      continue;
    const size_t Colon = Line.find(':');
    if (Colon == std::string::npos)
      continue;
    std::string V = Line.substr(Colon + 1);
    V.erase(0, V.find_first_not_of(" \t"));
    return V;
  }
  return "";
}

std::string hostName() {
  char Buf[256] = {0};
  if (gethostname(Buf, sizeof Buf - 1) != 0)
    return "unknown";
  return Buf;
}

std::string isoNow() {
  const std::time_t T = std::time(nullptr);
  std::tm Tm;
  gmtime_r(&T, &Tm);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", &Tm);
  return Buf;
}

std::string envOr(const char *Name, const std::string &Default) {
  const char *V = std::getenv(Name);
  return V != nullptr && V[0] != '\0' ? V : Default;
}

/// The block map beside the probe (`app.timing` -> `app.blocks.yaml`), if there
/// is one.
fs::path blockMapOf(const std::string &Program) {
  fs::path P(Program);
  if (P.extension() == ".timing")
    P.replace_extension("");
  P += ".blocks.yaml";
  return fs::exists(P) ? P : fs::path();
}

double seconds(double Nanos) { return Nanos * 1e-9; }

void writeYaml(std::ostream &OS, const ProbeCommandLine &Cmd, const std::vector<RankTiming> &Ranks,
               const fs::path &BlockMap) {
  const std::string &Program = Cmd.Launch.Program.front();
  double Overhead = 0;
  for (const RankTiming &R : Ranks)
    Overhead = std::max(Overhead, R.OverheadNs);

  YAML::Emitter E;
  E.SetDoublePrecision(6);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-compute";
  E << YAML::Key << "version" << YAML::Value << ComputeFormatVersion;
  E << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "program" << YAML::Value << Program;
  E << YAML::Key << "arguments" << YAML::Value << YAML::Flow
    << std::vector<std::string>(Cmd.Launch.Program.begin() + 1, Cmd.Launch.Program.end());
  E << YAML::Key << "ranks" << YAML::Value << static_cast<int>(Ranks.size());
  E << YAML::Key << "host" << YAML::Value << hostName();
  E << YAML::Key << "cpu_model" << YAML::Value << cpuInfo("model name");
  E << YAML::Key << "cpu_mhz" << YAML::Value << cpuInfo("cpu MHz");
  E << YAML::Key << "cpu" << YAML::Value << (Ranks.empty() ? -1 : Ranks.front().Cpu);
  E << YAML::Key << "token_passing" << YAML::Value << true;
  // How many ranks computed at once (each on its own processor, from `cpu` on): 1 is seed
  // 004's one rank at a time.
  E << YAML::Key << "ranks_per_node" << YAML::Value
    << (Ranks.empty() ? 1 : Ranks.front().RanksPerNode);
  // The compiler and flags the timed code was built with: from the block map mpiete-cc wrote
  // beside the probe (MPIETE_COMPILER / MPIETE_CFLAGS override, e.g. for a hand-built probe).
  std::string Compiler = "unknown", Flags;
  if (!BlockMap.empty()) {
    try {
      YAML::Node Map = YAML::LoadFile(BlockMap.string());
      Compiler = Map["provenance"]["compiler"].as<std::string>(Compiler);
      std::vector<std::string> Seen;
      for (const YAML::Node &U : Map["units"])
        for (const YAML::Node &F : U["flags"]) {
          std::string Flag = F.as<std::string>();
          if (std::find(Seen.begin(), Seen.end(), Flag) == Seen.end()) {
            Seen.push_back(Flag);
            Flags += (Flags.empty() ? "" : " ") + Flag;
          }
        }
    } catch (const YAML::Exception &) {
      // Optional provenance; a broken map is reported by the estimator.
    }
  }
  E << YAML::Key << "compiler" << YAML::Value << envOr("MPIETE_COMPILER", Compiler);
  E << YAML::Key << "flags" << YAML::Value
    << envOr("MPIETE_CFLAGS", Flags.empty() ? std::string("unknown") : Flags);
  if (!BlockMap.empty()) {
    E << YAML::Key << "block_map" << YAML::Value << BlockMap.string();
    try {
      YAML::Node Map = YAML::LoadFile(BlockMap.string());
      if (Map["fingerprint"])
        E << YAML::Key << "fingerprint" << YAML::Value << Map["fingerprint"].as<std::string>();
    } catch (const YAML::Exception &) {
      // The map is optional provenance; a broken one is reported by the
      // estimator.
    }
  }
  E << YAML::Key << "date" << YAML::Value << isoNow();
  E << YAML::Key << "tool" << YAML::Value << (std::string("mpiete ") + MPIETE_VERSION);
  E << YAML::EndMap;
  E << YAML::Key << "timer_overhead_seconds" << YAML::Value << seconds(Overhead);
  E << YAML::Key << "ranks" << YAML::Value << YAML::BeginSeq;
  for (const RankTiming &R : Ranks) {
    E << YAML::BeginMap;
    E << YAML::Key << "rank" << YAML::Value << R.Rank;
    E << YAML::Key << "timer_overhead_seconds" << YAML::Value << seconds(R.OverheadNs);
    E << YAML::Key << "blocks" << YAML::Value << YAML::BeginSeq;
    for (const BlockTiming &B : R.Blocks) {
      const bool Loop = B.Kind == "loop";
      // The overhead of the begin/end pair is in every execution's interval,
      // once.
      const double Net = std::max(0.0, static_cast<double>(B.Nanos) -
                                           R.OverheadNs * static_cast<double>(B.Executions));
      const uint64_t Per = Loop ? B.Trips : B.Executions;
      const double Mean = Per != 0 ? Net / static_cast<double>(Per) : 0;
      E << YAML::Flow << YAML::BeginMap;
      // Quoted: an all-digit unit would read as a sexagesimal number in
      // YAML 1.1.
      E << YAML::Key << "id" << YAML::Value << YAML::DoubleQuoted << B.Id;
      E << YAML::Key << "kind" << YAML::Value << B.Kind;
      E << YAML::Key << "executions" << YAML::Value << B.Executions;
      if (Loop)
        E << YAML::Key << "iterations" << YAML::Value << B.Trips;
      E << YAML::Key << "mean_seconds" << YAML::Value << seconds(Mean);
      E << YAML::Key << "stddev_seconds" << YAML::Value << seconds(B.StddevNs);
      E << YAML::Key << "min_seconds" << YAML::Value
        << seconds(std::max(0.0, B.MinNs - (Loop ? 0 : R.OverheadNs)));
      E << YAML::Key << "max_seconds" << YAML::Value
        << seconds(std::max(0.0, B.MaxNs - (Loop ? 0 : R.OverheadNs)));
      E << YAML::EndMap;
    }
    E << YAML::EndSeq;
    E << YAML::EndMap;
  }
  E << YAML::EndSeq;
  E << YAML::EndMap;
  OS << "# mpiete compute base data: seconds per execution of every compute "
        "block (loops timed\n"
        "# whole: per iteration), measured with ranks_per_node ranks running at a time.\n"
     << E.c_str() << "\n";
}

bool isOpenMpiLauncher(const std::string &Launcher) {
  const std::string Base = fs::path(Launcher).filename().string();
  if (Base != "mpirun" && Base != "mpiexec" && Base != "orterun")
    return false;
  const auto Version = captureProcess({Launcher, "--version"});
  return Version && (Version->find("Open MPI") != std::string::npos ||
                     Version->find("OpenRTE") != std::string::npos);
}

} // namespace

int runProbeCompute(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete probe-compute"};
  ProbeCommandLine Cmd;
  const std::vector<ProbeOption> Own = {
      {"-o", true}, {"--cpu", true}, {"--ranks-per-node", true}, {"--keep", false}};
  if (std::string Err = parseProbeCommandLine(Args, Own, /*WantProgram=*/true, Cmd); !Err.empty()) {
    Diags.error(Tool, Err, "usage");
    std::cerr << Usage;
    return 2;
  }
  if (Cmd.Help) {
    std::cout << Usage;
    return 0;
  }
  std::string Output, Cpu, PerNode;
  bool Keep = false;
  for (const auto &[Name, Value] : Cmd.Options) {
    if (Name == "-o")
      Output = Value;
    else if (Name == "--cpu")
      Cpu = Value;
    else if (Name == "--ranks-per-node")
      PerNode = Value;
    else if (Name == "--keep")
      Keep = true;
  }
  if (Output.empty() || Cmd.Launch.Np <= 0 || Cmd.Launch.Program.empty()) {
    Diags.error(Tool, "needs -o FILE, -np R and the program to run", "usage");
    std::cerr << Usage;
    return 2;
  }
  int RanksPerNode = 1;
  if (!PerNode.empty()) {
    char *End = nullptr;
    const long K = std::strtol(PerNode.c_str(), &End, 10);
    if (*End != '\0' || K < 1 || K > 1024) {
      Diags.error(Tool, "--ranks-per-node '" + PerNode + "': must be a number from 1 to 1024",
                  "usage");
      return 2;
    }
    RanksPerNode = static_cast<int>(K);
  }
  const std::string Program = Cmd.Launch.Program.front();
  if (!fs::exists(Program)) {
    Diags.error(DiagLoc{Program}, "no such program", "probe");
    return 1;
  }

  // The ranks write rank<N>.timing here; merged, then removed.
  std::string Template = (fs::temp_directory_path() / "mpiete-compute-XXXXXX").string();
  if (mkdtemp(Template.data()) == nullptr) {
    Diags.error(Tool, std::string("cannot make a temporary directory: ") + std::strerror(errno),
                "io");
    return 1;
  }
  const fs::path OutDir = Template;
  LaunchSpec &Launch = Cmd.Launch;
  Launch.Env.emplace_back("MPIETE_OUTDIR", OutDir.string());
  if (!Cpu.empty())
    Launch.Env.emplace_back("MPIETE_CPU", Cpu);
  // Always set: a value left in the caller's environment must not leak into the ranks.
  Launch.Env.emplace_back("MPIETE_RANKS_PER_NODE", std::to_string(RanksPerNode));
  // All ranks share one processor by design: Open MPI must be told that is
  // fine.
  if (isOpenMpiLauncher(Launch.Launcher) &&
      std::find(Launch.LauncherArgs.begin(), Launch.LauncherArgs.end(), "--oversubscribe") ==
          Launch.LauncherArgs.end())
    Launch.LauncherArgs.push_back("--oversubscribe");

  const bool Tty = isatty(STDERR_FILENO) != 0;
  if (Tty)
    std::cerr << "mpiete probe-compute: running " << Launch.Np << " ranks of '" << Program << "' "
              << RanksPerNode << " at a time...\n";
  const auto Start = std::chrono::steady_clock::now();
  const int Rc = runLaunch(Launch);
  if (Rc != 0) {
    Diags.error(DiagLoc{Program},
                "the timing probe failed (exit status " + std::to_string(Rc) +
                    "): " + shellJoin(launchArgv(Launch)),
                "probe");
    if (!Keep)
      fs::remove_all(OutDir);
    return 1;
  }

  std::vector<RankTiming> Ranks(static_cast<size_t>(Launch.Np));
  size_t Blocks = 0;
  for (int R = 0; R < Launch.Np; ++R) {
    const fs::path File = OutDir / ("rank" + std::to_string(R) + ".timing");
    if (std::string Err = readRankTiming(File, R, Ranks[static_cast<size_t>(R)]); !Err.empty()) {
      Diags.error(DiagLoc{Program}, Err, "probe");
      if (!Keep)
        fs::remove_all(OutDir);
      return 1;
    }
    Blocks += Ranks[static_cast<size_t>(R)].Blocks.size();
    if (Ranks[static_cast<size_t>(R)].RanksPerNode != RanksPerNode) {
      Diags.error(DiagLoc{Program},
                  "rank " + std::to_string(R) + " ran " +
                      std::to_string(Ranks[static_cast<size_t>(R)].RanksPerNode) +
                      " ranks at a time, not " + std::to_string(RanksPerNode) +
                      " (MPIETE_RANKS_PER_NODE set by hand?)",
                  "probe");
      if (!Keep)
        fs::remove_all(OutDir);
      return 1;
    }
  }

  std::ofstream Out(Output);
  if (!Out) {
    Diags.error(DiagLoc{Output}, "cannot open for writing", "io");
    return 1;
  }
  writeYaml(Out, Cmd, Ranks, blockMapOf(Program));
  Out.close();
  if (!Out) {
    Diags.error(DiagLoc{Output}, "cannot write", "io");
    return 1;
  }
  if (Keep)
    std::cerr << "mpiete probe-compute: rank files kept in " << OutDir.string() << "\n";
  else
    fs::remove_all(OutDir);
  if (Tty) {
    const double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    std::cerr << "mpiete probe-compute: " << Blocks << " block timings of " << Launch.Np
              << " ranks written to '" << Output << "' (" << Secs << " s)\n";
  }
  return 0;
}

} // namespace mpiete
