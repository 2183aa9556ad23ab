// Runs child processes (the native compiler, the instrumenter) without a shell.
#ifndef MPIETE_SUPPORT_PROCESS_H
#define MPIETE_SUPPORT_PROCESS_H

#include <optional>
#include <string>
#include <vector>

namespace mpiete {

/// Runs Argv (Argv[0] looked up in PATH) and returns its exit status; 127 if it cannot start,
/// 128+N if killed by signal N. Stdout and stderr are inherited. With TimeoutSeconds > 0 the
/// child runs in its own process group and is stopped after that long (the group gets SIGTERM,
/// then SIGKILL three seconds later): -1 when stopped.
int runProcess(const std::vector<std::string> &Argv, double TimeoutSeconds = 0);

/// Runs Argv and returns what it wrote on stdout, or nothing if it failed.
std::optional<std::string> captureProcess(const std::vector<std::string> &Argv);

/// Quotes Argv for display (verbose mode, error messages), the way a shell would read it.
std::string shellJoin(const std::vector<std::string> &Argv);

/// Splits a command line printed by a tool (e.g. `mpicc -showme:compile`) into words;
/// single and double quotes and backslashes are honoured.
std::vector<std::string> shellSplit(const std::string &Line);

} // namespace mpiete

#endif
