// How the probes are started: mpirun by default, any launcher (srun, mpiexec) on request, with
// the user's launcher options passed through and mpiete's settings given to every rank.
#ifndef MPIETE_TOOLS_LAUNCHER_H
#define MPIETE_TOOLS_LAUNCHER_H

#include <string>
#include <utility>
#include <vector>

namespace mpiete {

struct LaunchSpec {
  std::string Launcher = "mpirun";       ///< --launcher NAME
  std::vector<std::string> LauncherArgs; ///< the user's launcher options, before the program
  int Np = 0;                            ///< -np R (0: let the launcher decide)
  std::vector<std::string> Program;      ///< the program path, then its own arguments
  /// Variables every rank must see (MPIETE_OUTDIR, ...): exported with `-x` for Open MPI's
  /// mpirun/mpiexec, through the environment for launchers that forward it (srun).
  std::vector<std::pair<std::string, std::string>> Env;
};

/// The full command line for Spec (for running, and for --verbose / error messages).
std::vector<std::string> launchArgv(const LaunchSpec &Spec);

/// Runs the job; returns the launcher's exit status.
int runLaunch(const LaunchSpec &Spec);

} // namespace mpiete

#endif
