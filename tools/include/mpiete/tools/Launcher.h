// How the probes are started: mpirun by default, any launcher (srun, mpiexec) on request, with
// the user's launcher options passed through and mpiete's settings given to every rank.
#ifndef MPIETE_TOOLS_LAUNCHER_H
#define MPIETE_TOOLS_LAUNCHER_H

#include <string>
#include <utility>
#include <vector>

namespace mpiete {

/// The launcher of the MPI library mpiete was built with: mpirun (Open MPI), mpiexec.mpich, ...
const char *defaultLauncher();

struct LaunchSpec {
  std::string Launcher = defaultLauncher(); ///< --launcher NAME
  std::vector<std::string> LauncherArgs;    ///< the user's launcher options, before the program
  int Np = 0;                               ///< -np R (0: let the launcher decide)
  std::vector<std::string> Program;         ///< the program path, then its own arguments
  /// Variables every rank must see (MPIETE_OUTDIR, ...): exported with `-x` for Open MPI's
  /// mpirun/mpiexec, through the environment for launchers that forward it (srun).
  std::vector<std::pair<std::string, std::string>> Env;
};

/// The full command line for Spec (for running, and for --verbose / error messages).
std::vector<std::string> launchArgv(const LaunchSpec &Spec);

/// Names Open MPI's ob1 point-to-point layer for a probe's ranks (OMPI_MCA_pml=ob1 in
/// Spec.Env) unless the user chose a layer (OMPI_MCA_pml in the environment, `--mca pml X` or
/// `-x OMPI_MCA_pml...` among the launcher options) or the launcher is MPICH's hydra. Left to
/// choose, Open MPI 4.1's MPI_Init opens every layer it has, libfabric's among them, which took
/// 0.2 of the 0.42 s a 3-rank `mpirun` of an empty program takes on the development VM; the
/// trace and timing probes pass no message through Open MPI that ob1 cannot carry (one node,
/// or TCP between nodes). Never for probe-comm, which measures the library as the user runs
/// it. Returns whether it was added (docs/probes.md, "Launch").
bool preferLeanPml(LaunchSpec &Spec, const char *UserPml);

/// For the probes' launches: Open MPI's launcher, once a rank exits with a non-zero status,
/// waits odls_base_sigkill_timeout (1 s) between stopping each of the others and killing it;
/// a capped timing probe whose program then fails its own check of results (after
/// MPI_Finalize, every timing file written) waited 2 s for nothing. Sets the parameter to 0 in
/// this process's environment, which the launcher inherits (an unknown parameter is ignored),
/// unless the user set it. Returns whether it was set (docs/probes.md, "Launch").
bool hurryFailedJobs();

/// Whether the job's ranks run on this machine as descendants of the launcher: mpirun or
/// hydra without host options (-H, --host, --hostfile, -f, -hosts, -machinefile...). Not for
/// srun and the like, whose ranks run under the resource manager's daemons, maybe elsewhere.
bool ranksRunHere(const LaunchSpec &Spec);

/// Runs the job; returns the launcher's exit status. TimeoutSeconds > 0 stops it after that
/// long (runProcess: the launcher's process group, so every local rank): -1 when stopped.
int runLaunch(const LaunchSpec &Spec, double TimeoutSeconds = 0);

/// One of a probe command's own options (`-o DIR`, `--max-size N`, ...).
struct ProbeOption {
  std::string Name;        ///< with its dashes: "-o", "--max-size"
  bool TakesValue = false; ///< its value is the next word, or follows '='
};

/// A probe command line taken apart.
struct ProbeCommandLine {
  LaunchSpec Launch; ///< launcher, -np, launcher options, program and its arguments
  /// The command's own options in the order given (value "" for a flag).
  std::vector<std::pair<std::string, std::string>> Options;
  bool Help = false; ///< -h / --help
};

/// Splits `[mpiete options] -np R [launcher options] PROGRAM ARGS...`. The command's own options
/// (Own, plus --launcher NAME and -h/--help) and -np/-n/--np R are recognised before the program;
/// other options go to the launcher, keeping the value of the launcher options known to take one
/// (`--hostfile F`, `--map-by X`, `-H h1,h2`, `--mca K V`; any option written `--opt=value`).
/// The first other word is the program (`--` forces it) and everything after it is the
/// program's. Without WantProgram, a word after an unknown launcher option is its value and any
/// other word is an error. Returns an error message, empty on success.
std::string parseProbeCommandLine(const std::vector<std::string> &Args,
                                  const std::vector<ProbeOption> &Own, bool WantProgram,
                                  ProbeCommandLine &Out);

} // namespace mpiete

#endif
