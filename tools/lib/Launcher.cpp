// Builds and runs launcher command lines (mpirun, mpiexec, srun, ...) and splits probe command
// lines into mpiete's options, the launcher's options and the program.
#include "mpiete/tools/Launcher.h"

#include "mpiete/support/Process.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>

namespace mpiete {
namespace {

/// How a launcher takes the rank count and the variables every rank must see.
enum class LauncherKind {
  OpenMpi, ///< mpirun/mpiexec of Open MPI: -np R, -x NAME=VALUE (reaches remote nodes too)
  Hydra,   ///< MPICH/Intel hydra: -n R, -genv NAME VALUE
  Forward, ///< srun, aprun, flux run, ...: -n R; they forward the environment themselves
};

LauncherKind kindOf(const std::string &Word) {
  std::string Base = std::filesystem::path(Word).filename().string();
  static const std::set<std::string_view> OpenMpi = {"orterun", "oshrun", "mpirun.openmpi",
                                                     "mpiexec.openmpi", "prterun"};
  static const std::set<std::string_view> Hydra = {"mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich",
                                                   "mpiexec.intel"};
  if (OpenMpi.count(Base))
    return LauncherKind::OpenMpi;
  if (Hydra.count(Base))
    return LauncherKind::Hydra;
  if (Base == "mpirun" || Base == "mpiexec") {
    // Either library's: on a cluster the plain name is whichever `module load` put first.
    // Hydra says "HYDRA build details" to --version; Open MPI (and anything else) keeps -x.
    static std::map<std::string, LauncherKind> Known;
    auto [It, New] = Known.try_emplace(Word, LauncherKind::OpenMpi);
    if (New) {
      auto Version = captureProcess({Word, "--version"});
      if (Version && (Version->find("HYDRA") != std::string::npos ||
                      Version->find("Intel(R) MPI") != std::string::npos))
        It->second = LauncherKind::Hydra;
    }
    return It->second;
  }
  return LauncherKind::Forward;
}

/// Launcher options whose value is the next word (Open MPI's mpirun, MPICH's hydra, Slurm's
/// srun). Without this list `--hostfile hosts ./app` would take `hosts` for the program.
bool launcherOptionTakesValue(std::string_view A) {
  static const std::set<std::string_view> Opts = {
      // Open MPI mpirun / mpiexec
      "--hostfile", "-hostfile", "--machinefile", "-machinefile", "--default-hostfile", "-H",
      "--host", "-host", "--map-by", "-map-by", "--rank-by", "-rank-by", "--bind-to", "-bind-to",
      "-x", "--wdir", "-wdir", "--wd", "-wd", "--prefix", "-prefix", "--path", "-path",
      "--npernode", "-npernode", "--npersocket", "-npersocket", "--cpus-per-proc", "-cpus-per-proc",
      "--cpus-per-rank", "-cpus-per-rank", "--rankfile", "-rankfile", "-rf", "--output-filename",
      "-output-filename", "--timeout", "-timeout", "--app", "-app", "--tune", "-tune",
      "--preload-files", "-preload-files", "--cpu-set", "-cpu-set", "--report-bindings-file",
      "--stdin", "-stdin", "--mca-param-file", "-am", "--am", "--personality", "--launch-agent",
      "-launch-agent", "--max-vm-size", "--ompi-server", "--report-uri", "-report-uri",
      "--xml-file", "--slot-list", "-N",
      // MPICH / Intel hydra mpiexec
      "-f", "-hosts", "-ppn", "-launcher", "-launcher-exec", "-bootstrap", "-bootstrap-exec",
      "-iface", "-genvlist", "-envlist", "-genvexcept", "-rmk", "-demux", "-errfile-pattern",
      "-outfile-pattern", "-configfile", "-binding", "-machine", "-machinefile",
      // Slurm srun
      "--nodes", "-p", "--partition", "-t", "--time", "-A", "--account", "-c", "--cpus-per-task",
      "--ntasks-per-node", "-w", "--nodelist", "-x", "--exclude", "--mpi", "--cpu-bind",
      "--cpu_bind", "--mem", "--mem-per-cpu", "-J", "--job-name", "-C", "--constraint",
      "--distribution", "-m", "--qos", "-q", "--reservation", "--gres", "--gpus", "-G", "--export",
      "--chdir", "-D", "-o", "--output", "-e", "--error", "--ntasks-per-socket",
      "--ntasks-per-core", "--threads-per-core", "--hint"};
  return Opts.count(A) != 0;
}

/// Launcher options followed by two values: `--mca KEY VALUE`, `-genv NAME VALUE`.
bool launcherOptionTakesTwoValues(std::string_view A) {
  static const std::set<std::string_view> Opts = {"--mca",  "-mca",  "--gmca", "-gmca",
                                                  "--omca", "-genv", "-env"};
  return Opts.count(A) != 0;
}

bool isPositiveInt(std::string_view S) {
  if (S.empty() || S.size() > 9)
    return false;
  for (char C : S)
    if (C < '0' || C > '9')
      return false;
  return std::atoi(std::string(S).c_str()) > 0;
}

bool isOption(const std::string &A) { return A.size() > 1 && A[0] == '-'; }

} // namespace

const char *defaultLauncher() {
#ifdef MPIETE_DEFAULT_LAUNCHER
  return MPIETE_DEFAULT_LAUNCHER;
#else
  return "mpirun";
#endif
}

std::vector<std::string> launchArgv(const LaunchSpec &Spec) {
  // `--launcher "flux run"` names a launcher of several words.
  std::vector<std::string> Argv = shellSplit(Spec.Launcher);
  if (Argv.empty())
    Argv.push_back(defaultLauncher());
  LauncherKind Kind = kindOf(Argv.front());
  if (Spec.Np > 0) {
    Argv.push_back(Kind == LauncherKind::OpenMpi ? "-np" : "-n");
    Argv.push_back(std::to_string(Spec.Np));
  }
  for (const auto &[Name, Value] : Spec.Env) {
    if (Kind == LauncherKind::OpenMpi) {
      Argv.push_back("-x");
      Argv.push_back(Name + "=" + Value);
    } else if (Kind == LauncherKind::Hydra) {
      Argv.push_back("-genv");
      Argv.push_back(Name);
      Argv.push_back(Value);
    }
  }
  for (const std::string &A : Spec.LauncherArgs)
    // Hydra runs any number of ranks per core and rejects Open MPI's flag for it, which
    // command lines written for Open MPI carry.
    if (Kind != LauncherKind::Hydra || A != "--oversubscribe")
      Argv.push_back(A);
  Argv.insert(Argv.end(), Spec.Program.begin(), Spec.Program.end());
  return Argv;
}

bool preferLeanPml(LaunchSpec &Spec, const char *UserPml) {
  if (UserPml != nullptr)
    return false;
  std::vector<std::string> Argv = shellSplit(Spec.Launcher);
  if (!Argv.empty() && kindOf(Argv.front()) == LauncherKind::Hydra)
    return false;
  const std::vector<std::string> &A = Spec.LauncherArgs;
  for (size_t I = 0; I < A.size(); ++I) {
    if (I + 1 == A.size())
      break;
    if (launcherOptionTakesTwoValues(A[I]) && A[I + 1] == "pml") // --mca pml X
      return false;
    if (A[I] == "-x" && A[I + 1].rfind("OMPI_MCA_pml", 0) == 0)
      return false;
  }
  for (const auto &[Name, Value] : Spec.Env)
    if (Name == "OMPI_MCA_pml")
      return false;
  Spec.Env.emplace_back("OMPI_MCA_pml", "ob1");
  return true;
}

bool hurryFailedJobs() {
  bool Set = false;
  for (const char *Name :
       {"OMPI_MCA_odls_base_sigkill_timeout", "PRTE_MCA_odls_base_sigkill_timeout"})
    if (std::getenv(Name) == nullptr)
      Set = setenv(Name, "0", 0) == 0 || Set;
  return Set;
}

bool ranksRunHere(const LaunchSpec &Spec) {
  std::vector<std::string> Argv = shellSplit(Spec.Launcher);
  if (!Argv.empty() && kindOf(Argv.front()) == LauncherKind::Forward)
    return false;
  static const std::set<std::string_view> HostOptions = {
      "-H",        "--host", "-host",    "--hostfile",   "-hostfile",          "--machinefile",
      "-f",        "-hosts", "-machine", "-machinefile", "--default-hostfile", "-rf",
      "--rankfile"};
  for (const std::string &A : Spec.LauncherArgs)
    if (HostOptions.count(A.substr(0, A.find('='))))
      return false;
  return true;
}

int runLaunch(const LaunchSpec &Spec, double TimeoutSeconds) {
  // Also in our own environment: launchers that forward it (srun) need it, and local ranks of
  // the others see it either way.
  for (const auto &[Name, Value] : Spec.Env)
    setenv(Name.c_str(), Value.c_str(), 1);
  return runProcess(launchArgv(Spec), TimeoutSeconds);
}

std::string parseProbeCommandLine(const std::vector<std::string> &Args,
                                  const std::vector<ProbeOption> &Own, bool WantProgram,
                                  ProbeCommandLine &Out) {
  auto FindOwn = [&](std::string_view Name) -> const ProbeOption * {
    for (const ProbeOption &O : Own)
      if (O.Name == Name)
        return &O;
    return nullptr;
  };
  std::vector<std::string> &LArgs = Out.Launch.LauncherArgs;
  bool LastWasUnknownOption = false;
  size_t I = 0;
  for (; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--") {
      ++I;
      break;
    }
    if (!isOption(A)) {
      if (WantProgram)
        break;
      if (LastWasUnknownOption) {
        LArgs.push_back(A);
        LastWasUnknownOption = false;
        continue;
      }
      return "unexpected argument '" + A + "'";
    }
    LastWasUnknownOption = false;
    std::string Name = A, Value;
    bool HasEq = false;
    if (size_t Eq = A.find('='); Eq != std::string::npos && A.rfind("-x", 0) != 0) {
      Name = A.substr(0, Eq);
      Value = A.substr(Eq + 1);
      HasEq = true;
    }
    auto TakeValue = [&](std::string &V) -> bool {
      if (HasEq)
        return true;
      if (I + 1 >= Args.size())
        return false;
      V = Args[++I];
      return true;
    };
    if (Name == "-h" || Name == "--help") {
      Out.Help = true;
      continue;
    }
    if (Name == "-np" || Name == "--np" || Name == "-n" || Name == "--n") {
      if (!TakeValue(Value))
        return "'" + Name + "' needs a rank count";
      if (!isPositiveInt(Value))
        return "invalid rank count '" + Value + "' for '" + Name + "'";
      Out.Launch.Np = std::atoi(Value.c_str());
      continue;
    }
    // srun style `-n4`.
    if (A.size() > 2 && A.rfind("-n", 0) == 0 && isPositiveInt(std::string_view(A).substr(2))) {
      Out.Launch.Np = std::atoi(A.c_str() + 2);
      continue;
    }
    if (Name == "--launcher") {
      if (!TakeValue(Value) || Value.empty())
        return "'--launcher' needs a launcher name";
      Out.Launch.Launcher = Value;
      continue;
    }
    if (const ProbeOption *O = FindOwn(Name)) {
      if (O->TakesValue) {
        if (!TakeValue(Value))
          return "'" + Name + "' needs a value";
      } else if (HasEq) {
        return "'" + Name + "' takes no value";
      }
      Out.Options.emplace_back(Name, Value);
      continue;
    }
    // Everything else is the launcher's, with the values it needs.
    LArgs.push_back(A);
    if (HasEq)
      continue;
    if (launcherOptionTakesTwoValues(A)) {
      if (I + 2 >= Args.size())
        return "launcher option '" + A + "' needs two values";
      LArgs.push_back(Args[++I]);
      LArgs.push_back(Args[++I]);
    } else if (launcherOptionTakesValue(A)) {
      if (I + 1 >= Args.size())
        return "launcher option '" + A + "' needs a value";
      LArgs.push_back(Args[++I]);
    } else {
      LastWasUnknownOption = true;
    }
  }
  if (I < Args.size()) {
    if (!WantProgram)
      return "unexpected argument '" + Args[I] + "'";
    Out.Launch.Program.assign(Args.begin() + static_cast<std::ptrdiff_t>(I), Args.end());
  } else if (WantProgram && !Out.Help) {
    return "no program given";
  }
  return {};
}

} // namespace mpiete
