// `mpiete probe-program`: runs a trace probe (APP.trace) through the launcher, checks that every
// rank wrote its trace and puts the block map beside them (the program base data).
#include "CommandUtil.h"
#include "MachineLoad.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Hash.h"
#include "mpiete/support/Process.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/Launcher.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

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

/// Runs the launch like runLaunch, stopping it after Seconds (0: never): the watchdog of a
/// trace probe, which has no token machine to see a deadlock. The launcher runs in its own
/// process group so the stop reaches every local rank. Returns its exit status, or -1 when
/// stopped. (Kept here, not in support/Process: only probe-program needs a deadline.)
int runLaunchWithin(const LaunchSpec &Spec, double Seconds) {
  if (Seconds <= 0)
    return runLaunch(Spec);
  for (const auto &[Name, Value] : Spec.Env)
    setenv(Name.c_str(), Value.c_str(), 1);
  const std::vector<std::string> Argv = launchArgv(Spec);
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  const pid_t Pid = ::fork();
  if (Pid < 0)
    return 127;
  if (Pid == 0) {
    ::setpgid(0, 0);
    ::execvp(Args[0], Args.data());
    std::_Exit(127);
  }
  ::setpgid(Pid, Pid);
  const auto Deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(Seconds);
  int Status = 0;
  for (;;) {
    const pid_t W = ::waitpid(Pid, &Status, WNOHANG);
    if (W == Pid)
      return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
    if (W < 0 && errno != EINTR)
      return 127;
    if (std::chrono::steady_clock::now() >= Deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Stopped: the launcher first (it tells its ranks), then whatever is left of the group.
  ::kill(-Pid, SIGTERM);
  for (int I = 0; I < 60 && ::waitpid(Pid, &Status, WNOHANG) == 0; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(-Pid, SIGKILL);
  ::waitpid(Pid, &Status, 0);
  return -1;
}

} // namespace

int runProbeProgram(const CommandArgs &Args) {
  CommandLine C(
      "probe-program",
      "usage: mpiete probe-program -o DIR -np R [launcher options] APP.trace [ARGS...]",
      "Runs the trace probe APP.trace (built by mpiete-cc beside APP) with R ranks and collects "
      "the\nprogram base data in DIR: rank0.trace .. rank<R-1>.trace (which blocks each rank "
      "executed and\nits message parameters) and blocks.yaml (a copy of APP.blocks.yaml, the "
      "block map). Any machine\nwill do: the traces hold no timings, so a laptop with "
      "oversubscribed ranks is fine.",
      "  mpiete probe-program -o jacobi-64 -np 64 --oversubscribe ./jacobi.trace -n 2048\n",
      "Everything after APP.trace is the program's own arguments. Other options before it go to "
      "the\nlauncher; write an unknown launcher option taking a value as --opt=value, or end "
      "mpiete's\noptions with '--'.\n");
  std::string OutDir;
  bool Verbose = false;
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
                  "stop the job after S seconds and report the ranks that did not finish (a "
                  "deadlock or a hung rank); default MPIETE_HANG_TIMEOUT, else no limit")
      ->type_name("S")
      ->check(CLI::NonNegativeNumber);
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
  LaunchSpec Spec = CL.Launch;
  if (Spec.Np == 0)
    return commandError("probe-program: give the rank count with -np R", 2);

  const fs::path Program = Spec.Program.front();
  std::error_code EC;
  if (Program.has_parent_path() && !fs::exists(Program, EC))
    return commandError("probe-program: program '" + Program.string() + "' not found");

  // The block map: its fingerprint goes into every trace so base data of another build of the
  // program is recognised.
  DiagnosticSink Diags(std::cerr);
  fs::path MapPath = blockMapBeside(Program);
  bool HaveMap = fs::exists(MapPath, EC);
  if (HaveMap) {
    BlockMap Map;
    if (!readBlockMap(MapPath.string(), Map, Diags))
      return 1;
    Spec.Env.emplace_back("MPIETE_FINGERPRINT", toHex(Map.fingerprint(), 16));
  } else {
    Diags.warning({"mpiete"},
                  "no block map '" + MapPath.string() +
                      "' beside the program: the traces carry no fingerprint",
                  "probe");
  }

  fs::path Dir = fs::absolute(OutDir, EC);
  fs::create_directories(Dir, EC);
  if (EC || !fs::is_directory(Dir))
    return commandError("probe-program: cannot create directory '" + OutDir + "'");
  // Old traces would hide a rank that failed to write.
  for (const fs::directory_entry &E : fs::directory_iterator(Dir, EC)) {
    std::string Name = E.path().filename().string();
    if (Name.rfind("rank", 0) == 0 &&
        (E.path().extension() == ".trace" || Name.ends_with(".trace.part")))
      fs::remove(E.path(), EC);
  }
  Spec.Env.emplace(Spec.Env.begin(), "MPIETE_OUTDIR", Dir.string());

  if (Verbose)
    std::cerr << "mpiete: running " << shellJoin(launchArgv(Spec)) << '\n';
  int Status = 0;
  {
    // Traces do not depend on timing: no load notice, only the elapsed time on a terminal.
    const ProgressTicker Tick("mpiete probe-program: tracing " + std::to_string(Spec.Np) +
                              " ranks");
    Status = runLaunchWithin(Spec, HangTimeout);
  }
  if (Status < 0) {
    // The ranks that finished renamed their traces; the others hang (or wait for one that does).
    std::string Hung, Done;
    int NHung = 0;
    for (int R = 0; R < Spec.Np; ++R) {
      std::string &List = fs::exists(Dir / traceName(R), EC) ? Done : Hung;
      NHung += &List == &Hung;
      if (std::count(List.begin(), List.end(), ',') < 8)
        List += (List.empty() ? "" : ", ") + std::to_string(R);
    }
    return commandError(
        "probe-program: the job did not finish within " +
        std::to_string(HangTimeout).substr(0, std::to_string(HangTimeout).find('.') + 2) +
        " s (--hang-timeout) and was stopped: " + std::to_string(NHung) + " of " +
        std::to_string(Spec.Np) + " ranks never finished (rank " + Hung +
        (Done.empty() ? "" : "; finished: rank " + Done) +
        "): a deadlock, or a rank waiting for one that hangs; no trace is valid. "
        "Run it under 'mpiete probe-compute' to see where each rank waits");
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
  if (HaveMap) {
    fs::copy_file(MapPath, Dir / "blocks.yaml", fs::copy_options::overwrite_existing, EC);
    if (EC)
      return commandError("probe-program: cannot copy '" + MapPath.string() + "' to '" +
                          (Dir / "blocks.yaml").string() + "': " + EC.message());
  }
  std::cout << "mpiete: program base data in " << OutDir << ": " << traceName(0) << " .. "
            << traceName(Spec.Np - 1) << (HaveMap ? ", blocks.yaml" : "") << '\n';
  return 0;
}

} // namespace mpiete
