// `mpiete probe-program`: runs a trace probe (APP.trace, or its skeleton APP.skeleton) through the
// launcher, checks that every rank wrote its trace and puts the block map and the probe's cost
// beside them (the program base data); --verify-skeleton compares the two probes' traces.
#include "CommandUtil.h"
#include "HangWatch.h"
#include "MachineLoad.h"
#include "TraceCompare.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/ProbeRun.h"
#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/estimator/BaseData.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Hash.h"
#include "mpiete/support/Process.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/Launcher.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mpiete {
namespace {

std::string traceName(int Rank) { return "rank" + std::to_string(Rank) + ".trace"; }

/// APP.blocks.yaml for APP.trace (or PROGRAM.blocks.yaml for any other name).
fs::path blockMapBeside(const fs::path &Program) {
  std::string P = Program.string();
  const std::string Suffix = ".trace";
  if (P.size() > Suffix.size() && P.compare(P.size() - Suffix.size(), Suffix.size(), Suffix) == 0)
    P.resize(P.size() - Suffix.size());
  return P + ".blocks.yaml";
}

/// APP.skeleton for APP.trace: the skeleton trace probe mpiete-cc links beside it.
fs::path skeletonBeside(const fs::path &Program) {
  std::string P = Program.string();
  const std::string Suffix = ".trace";
  if (P.size() <= Suffix.size() || P.compare(P.size() - Suffix.size(), Suffix.size(), Suffix) != 0)
    return {};
  P.resize(P.size() - Suffix.size());
  return P + ".skeleton";
}

/// Runs one trace probe with its traces going to Dir; checks every rank wrote one, copies the
/// block map and records the wall time in Dir/probe.yaml. 0, or the command's exit status
/// (reported).
/// A task farm's task set (docs/taskfarm.md): the ranks' rank<N>.tasks (every task's parameters,
/// and the times of the tasks the trace probe ran: the shape) merged into Dir/tasks.yaml, whose
/// grid `probe-compute --tasks-grid` takes to choose a subset with both ends of every parameter's
/// range; the ranks' files are removed.
bool writeTaskSet(const fs::path &Dir, int Ranks, const LaunchSpec &Spec) {
  DiagnosticSink Diags(std::cerr);
  TaskCosts Tasks;
  bool Found = false;
  if (!readTaskDirectory(Dir.string(), Ranks, Tasks, Found, Diags))
    return false;
  std::error_code EC;
  for (int R = 0; R < Ranks; ++R)
    fs::remove(Dir / ("rank" + std::to_string(R) + ".tasks"), EC);
  if (!Found)
    return true;
  Tasks.Tool = std::string("mpiete ") + MPIETE_VERSION;
  char Host[256] = {};
  gethostname(Host, sizeof Host - 1);
  Tasks.Host = Host;
  Tasks.Command = shellJoin(launchArgv(Spec));
  const fs::path Path = Dir / "tasks.yaml";
  std::ofstream OS(Path);
  writeTaskCosts(OS, Tasks);
  if (!OS) {
    Diags.error(DiagLoc{Path.string()}, "cannot write", "io");
    return false;
  }
  return true;
}

int runTraceProbe(LaunchSpec Spec, const fs::path &Dir, const std::string &OutName,
                  const std::string &Variant, const fs::path &MapPath, bool HaveMap,
                  const BlockMap &Map, bool Verbose, double HangTimeout) {
  std::error_code EC;
  fs::create_directories(Dir, EC);
  if (EC || !fs::is_directory(Dir))
    return commandError("probe-program: cannot create directory '" + OutName + "'");
  // Old traces would hide a rank that failed to write; old loop files (runtime/lib/LoopPlan.h)
  // would plan another run's loops.
  for (const fs::directory_entry &E : fs::directory_iterator(Dir, EC)) {
    std::string Name = E.path().filename().string();
    if ((Name.rfind("rank", 0) == 0 &&
         (E.path().extension() == ".trace" || E.path().extension() == ".tasks" ||
          E.path().extension() == ".loops" || Name.ends_with(".trace.part"))) ||
        Name == "tasks.yaml")
      fs::remove(E.path(), EC);
  }
  Spec.Env.emplace(Spec.Env.begin(), "MPIETE_OUTDIR", Dir.string());
  preferLeanPml(Spec, std::getenv("OMPI_MCA_pml"));
  hurryFailedJobs();
  const fs::path Program = Spec.Program.front();

  // The watchdog (--hang-timeout): the ranks keep status files the driver polls; the launcher
  // runs in its own process group so the watchdog can stop all of it.
  const fs::path StatusDir = Dir / ".mpiete-status";
  std::optional<HangWatch> Watch;
  if (HangTimeout > 0) {
    Spec.Env.emplace(Spec.Env.begin(), "MPIETE_STATUS_DIR", StatusDir.string());
    Watch.emplace(StatusDir, Dir, Spec.Np, HangTimeout, Map);
  }
  if (Verbose)
    std::cerr << "mpiete: running " << shellJoin(launchArgv(Spec)) << '\n';
  const auto Start = std::chrono::steady_clock::now();
  int Status = 0;
  {
    // Traces do not depend on timing: no load notice, only the elapsed time on a terminal.
    const ProgressTicker Tick("mpiete probe-program: tracing " + std::to_string(Spec.Np) +
                              " ranks");
    Status = runLaunch(Spec, Watch ? 1e8 : 0);
  }
  const double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  if (Watch) {
    Watch->finish();
    fs::remove_all(StatusDir, EC);
    if (Watch->stopped()) {
      DiagnosticSink Diags(std::cerr);
      Watch->report(Diags);
      return 1;
    }
  }
  if (Status != 0)
    return commandError("probe-program: the job failed (exit status " + std::to_string(Status) +
                        "): " + shellJoin(launchArgv(Spec)));

  std::vector<std::string> Missing;
  for (int R = 0; R < Spec.Np; ++R)
    if (!fs::exists(Dir / traceName(R), EC))
      Missing.push_back(fs::exists(Dir / (traceName(R) + ".part"), EC)
                            ? traceName(R) + " (only an incomplete " + traceName(R) + ".part)"
                            : traceName(R));
  if (!Missing.empty()) {
    std::string List;
    for (size_t I = 0; I < Missing.size() && I < 8; ++I)
      List += (I ? ", " : "") + Missing[I];
    if (Missing.size() > 8)
      List += ", ...";
    return commandError("probe-program: " + std::to_string(Missing.size()) + " of " +
                        std::to_string(Spec.Np) + " traces missing in '" + Dir.string() +
                        "': " + List + " (is '" + Program.string() + "' a trace probe?)");
  }
  if (!writeTaskSet(Dir, Spec.Np, Spec))
    return 1;
  if (HaveMap) {
    fs::copy_file(MapPath, Dir / "blocks.yaml", fs::copy_options::overwrite_existing, EC);
    if (EC)
      return commandError("probe-program: cannot copy '" + MapPath.string() + "' to '" +
                          (Dir / "blocks.yaml").string() + "': " + EC.message());
  }
  ProbeRun Run;
  Run.Variant = Variant;
  Run.Program = Program.string();
  Run.Arguments.assign(Spec.Program.begin() + 1, Spec.Program.end());
  Run.Ranks = Spec.Np;
  Run.WallSeconds = Seconds;
  Run.Date = isoDateNow();
  Run.Tool = std::string("mpiete ") + MPIETE_VERSION;
  std::ofstream OS(Dir / "probe.yaml");
  writeProbeRun(OS, Run);
  if (!OS)
    return commandError("probe-program: cannot write '" + (Dir / "probe.yaml").string() + "'");
  return 0;
}

/// Removed statements (APP.skeleton.removed, `file:line:col: procedure: text` a line) in the
/// file of the differing call site, before it: the likely explanation of a difference.
std::vector<std::string> removalsNear(const fs::path &List, const BlockMap &Map, uint64_t Site,
                                      uint64_t Previous) {
  auto where = [&Map](uint64_t Id, std::string &File, unsigned &Line) {
    for (const UnitModel &U : Map.Units)
      for (const Block &B : U.Blocks)
        if (U.blockId(B.Index) == Id) {
          File = B.File;
          Line = B.BeginLine;
          return true;
        }
    return false;
  };
  std::string File, PrevFile;
  unsigned Line = 0, PrevLine = 0;
  std::vector<std::string> Out;
  if (!where(Site, File, Line))
    return Out;
  const bool Window = where(Previous, PrevFile, PrevLine) && PrevFile == File && PrevLine < Line;
  std::ifstream In(List);
  std::string Text;
  while (std::getline(In, Text)) {
    const size_t A = Text.find(':'), B = A == std::string::npos ? A : Text.find(':', A + 1);
    if (B == std::string::npos || Text.compare(0, A, File) != 0)
      continue;
    const unsigned L = unsigned(std::strtoul(Text.c_str() + A + 1, nullptr, 10));
    if (L < Line && (!Window || L >= PrevLine))
      Out.push_back(Text);
  }
  // The nearest ones first.
  std::reverse(Out.begin(), Out.end());
  if (Out.size() > 5)
    Out.resize(5);
  return Out;
}

/// Where a site is, for messages: `file:line (routine)`, or its id.
std::string siteText(const BlockMap &Map, uint64_t Id) {
  for (const UnitModel &U : Map.Units)
    for (const Block &B : U.Blocks)
      if (U.blockId(B.Index) == Id)
        return B.File + ":" + std::to_string(B.BeginLine) +
               (B.Routine.empty() ? "" : " (" + B.Routine + ")");
  return formatBlockId(Id);
}

} // namespace

int runProbeProgram(const CommandArgs &Args) {
  CommandLine C(
      "probe-program",
      "usage: mpiete probe-program -o DIR -np R [--full | --verify-skeleton] [launcher options] "
      "APP.trace [ARGS...]",
      "Runs the trace probe of APP (built by mpiete-cc) with R ranks and collects the program "
      "base\ndata in DIR: rank0.trace .. rank<R-1>.trace (which blocks each rank executed and "
      "its message\nparameters), blocks.yaml (a copy of APP.blocks.yaml, the block map) and "
      "probe.yaml (the\nprobe's wall time). Any machine will do: the traces hold no timings, so "
      "a laptop with\noversubscribed ranks is fine. When APP.skeleton is beside APP.trace, it "
      "runs instead: the\ntrace probe with the statements that decide neither the MPI calls "
      "nor their arguments\nremoved (docs/skeleton.md); its traces are the full probe's, at a "
      "fraction of the cost.",
      "  mpiete probe-program -o jacobi-64 -np 64 --oversubscribe ./jacobi.trace -n 2048\n"
      "  mpiete probe-program -o check -np 2 --verify-skeleton ./jacobi.trace -n 64\n",
      "Everything after APP.trace is the program's own arguments. Other options before it go to "
      "the\nlauncher; write an unknown launcher option taking a value as --opt=value, or end "
      "mpiete's\noptions with '--'.\n");
  std::string OutDir;
  bool Verbose = false, Full = false, Verify = false, TaskSet = false;
  long long TaskShape = 0;
  std::string ShapeLattice = "centred";
  double HangTimeout = 0;
  if (const char *Env = std::getenv("MPIETE_HANG_TIMEOUT"))
    HangTimeout = std::atof(Env);
  C.App
      .add_option("-o", OutDir,
                  "where the traces go (created; old rank*.trace files in it are "
                  "removed)")
      ->type_name("DIR");
  C.addLaunchOptions("the rank count (required)");
  C.App.add_flag("--verbose", Verbose, "print the launcher command");
  C.App
      .add_option("--hang-timeout", HangTimeout,
                  "stop the job when every unfinished rank waits in an MPI call and none began "
                  "or finished one for S seconds (a rank computing longer is no hang), and say "
                  "where each rank waits (a deadlock or a hung rank); default "
                  "MPIETE_HANG_TIMEOUT, else no watchdog")
      ->type_name("S")
      ->check(CLI::NonNegativeNumber);
  C.App.add_flag("--full", Full,
                 "run the unsimplified trace probe APP.trace even when "
                 "APP.skeleton is there");
  C.App.add_flag("--task-set", TaskSet,
                 "the program is a task farm (MPIETE_TASK, docs/taskfarm.md): run the full trace "
                 "probe (the skeleton drops the tasks) with every task's body skipped, and write "
                 "the task set to DIR/tasks.yaml for probe-compute --tasks-grid");
  C.App
      .add_option("--task-shape", TaskShape,
                  "with --task-set: run and time the tasks on the lattice of stride C (see "
                  "--task-shape-lattice) and keep their times in DIR/tasks.yaml: the shape of "
                  "the task costs, by which probe-compute --tasks-grid places its subset and "
                  "which the estimate joins (docs/taskfarm.md)")
      ->type_name("C")
      ->check(CLI::Range(1LL, 1LL << 40));
  C.App
      .add_option("--task-shape-lattice", ShapeLattice,
                  "the shape's lattice: centred (default: the tasks whose every parameter is a "
                  "multiple of C and those whose every parameter is C/2 more than one, 2/C^N of "
                  "them) or cubic (the multiples of C only, 1/C^N, as before session 7)")
      ->type_name("centred|cubic")
      ->check(CLI::IsMember({"centred", "cubic"}));
  C.App.add_flag("--verify-skeleton", Verify,
                 "run the full and the skeleton trace probe and compare their traces record by "
                 "record (the full traces go to DIR, the skeleton's to DIR/skeleton); a "
                 "difference is an error naming the first differing record");
  ProbeCommandLine CL;
  std::string Err = C.parseProbe(Args, /*WantProgram=*/true, CL);
  if (CL.Help) {
    std::cout << C.help();
    return 0;
  }
  if (!Err.empty())
    return commandError("probe-program: " + Err + " (see 'mpiete probe-program --help')", 2);
  if (OutDir.empty())
    return commandError("probe-program: no output directory: give -o DIR", 2);
  if (Full && Verify)
    return commandError("probe-program: --full and --verify-skeleton exclude each other", 2);
  LaunchSpec Spec = CL.Launch;
  if (Spec.Np == 0)
    return commandError("probe-program: give the rank count with -np R", 2);

  const fs::path Program = Spec.Program.front();
  std::error_code EC;
  if (Program.has_parent_path() && !fs::exists(Program, EC))
    return commandError("probe-program: program '" + Program.string() + "' not found");
  const fs::path Skeleton = skeletonBeside(Program);
  const bool HaveSkeleton = !Skeleton.empty() && fs::exists(Skeleton, EC);
  if (Verify && !HaveSkeleton)
    return commandError("probe-program: --verify-skeleton: no skeleton probe '" +
                        (Skeleton.empty() ? Program.string() + ".skeleton" : Skeleton.string()) +
                        "' beside the program (build it with mpiete-cc)");

  // The block map: its fingerprint goes into every trace so base data of another build of the
  // program is recognised.
  DiagnosticSink Diags(std::cerr);
  fs::path MapPath = blockMapBeside(Program);
  bool HaveMap = fs::exists(MapPath, EC);
  BlockMap Map;
  if (HaveMap) {
    if (!readBlockMap(MapPath.string(), Map, Diags))
      return 1;
    Spec.Env.emplace_back("MPIETE_FINGERPRINT", toHex(Map.fingerprint(), 16));
  } else {
    Diags.warning({"mpiete"},
                  "no block map '" + MapPath.string() +
                      "' beside the program: the traces carry no fingerprint",
                  "probe");
  }

  const fs::path Dir = fs::absolute(OutDir, EC);
  const bool UseSkeleton = HaveSkeleton && !Full && !Verify && !TaskSet;
  if (TaskShape > 0 && !TaskSet)
    return commandError("probe-program: --task-shape needs --task-set", 2);
  // The farm's messages do not depend on what a task computes: the bodies are skipped, or only
  // the shape's run.
  if (TaskSet && TaskShape > 0) {
    Spec.Env.emplace_back("MPIETE_TASK_STRIDE", std::to_string(TaskShape));
    Spec.Env.emplace_back("MPIETE_TASK_CENTRED", ShapeLattice == "centred" ? "1" : "0");
  } else if (TaskSet)
    Spec.Env.emplace_back("MPIETE_TASK_SKIP_ALL", "1");
  if (UseSkeleton)
    Spec.Program.front() = Skeleton.string();
  if (int Rc = runTraceProbe(Spec, Dir, OutDir, UseSkeleton ? "skeleton" : "full", MapPath, HaveMap,
                             Map, Verbose, HangTimeout))
    return Rc;
  if (Verify) {
    LaunchSpec SkelSpec = Spec;
    SkelSpec.Program.front() = Skeleton.string();
    if (int Rc = runTraceProbe(SkelSpec, Dir / "skeleton", OutDir + "/skeleton", "skeleton",
                               MapPath, HaveMap, Map, Verbose, HangTimeout))
      return Rc;
    bool Ok = true;
    uint64_t Records = 0, Timing = 0;
    std::optional<TraceDifference> D = compareTraceDirs(
        Dir, Dir / "skeleton", Spec.Np, estimator::CallSites::fromBlockMap(Map).Nonblocking, Diags,
        Ok, Records, Timing);
    if (!Ok)
      return 1;
    if (D) {
      std::ostringstream Msg;
      Msg << "the skeleton probe's trace differs from the full probe's: rank " << D->Rank
          << " record " << D->Record << ": full '" << D->Full << "', skeleton '" << D->Skeleton
          << "'";
      if (D->FullSite)
        Msg << " at " << siteText(Map, D->FullSite);
      if (D->PreviousSite)
        Msg << " (after " << siteText(Map, D->PreviousSite) << ")";
      Diags.error({Dir.string() + "/rank" + std::to_string(D->Rank) + ".trace"}, Msg.str(),
                  "skeleton");
      std::string List = Program.string();
      List.resize(List.size() - std::string(".trace").size());
      for (const std::string &R :
           removalsNear(List + ".skeleton.removed", Map, D->FullSite, D->PreviousSite)) {
        // `file:line:col: procedure: text` -> a located note.
        size_t At = R.find(':');
        for (int K = 0; K < 2 && At != std::string::npos; ++K)
          At = R.find(':', At + 1);
        const size_t Proc = At == std::string::npos ? At : R.find(": ", At + 2);
        if (Proc == std::string::npos) {
          std::cerr << R << '\n';
          continue;
        }
        std::cerr << R.substr(0, At) << ": note: the skeleton removed '" << R.substr(Proc + 2)
                  << "' in " << R.substr(At + 2, Proc - At - 2)
                  << " before that call [mpiete-skeleton]\n";
      }
      return 1;
    }
    std::cout << "mpiete: the skeleton probe's traces equal the full probe's (" << Records
              << " records on " << Spec.Np << " ranks";
    if (Timing)
      std::cout << "; " << Timing
                << " of them waits that found other requests complete, as any two runs may";
    std::cout << ")\n";
  }
  std::cout << "mpiete: program base data in " << OutDir << ": " << traceName(0) << " .. "
            << traceName(Spec.Np - 1) << (HaveMap ? ", blocks.yaml" : "") << ", probe.yaml ("
            << (UseSkeleton ? "skeleton" : "full") << " trace probe)\n";
  return 0;
}

} // namespace mpiete
