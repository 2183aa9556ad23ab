// The `mpiete` driver's subcommands: each is a function taking the arguments after its name and
// returning the process exit status, so the driver's main stays a dispatch table and each
// command is testable on its own.
#ifndef MPIETE_TOOLS_COMMANDS_H
#define MPIETE_TOOLS_COMMANDS_H

#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

using CommandArgs = std::vector<std::string>;

int runProbeComm(const CommandArgs &Args);    ///< mpiete probe-comm      (communication base data)
int runProbeCompute(const CommandArgs &Args); ///< mpiete probe-compute   (compute base data)
int runProbeProgram(const CommandArgs &Args); ///< mpiete probe-program   (program base data)
int runTraceDump(const CommandArgs &Args);    ///< mpiete trace dump FILE (readable trace)
int runEstimate(const CommandArgs &Args);     ///< mpiete estimate        (the prediction)
int runWhatIf(const CommandArgs &Args);       ///< mpiete whatif          (what to fix)
int runReport(const CommandArgs &Args);       ///< mpiete report          (the HTML page)
int runDemo(const CommandArgs &Args);         ///< mpiete demo            (the bundled example)
int runModel(const CommandArgs &Args);        ///< mpiete model           (scaling models)
int runSurface(const CommandArgs &Args);      ///< mpiete surface         (efficiency surface)
int runBestConfig(const CommandArgs &Args);   ///< mpiete best-config     (heterogeneous cluster)
/// mpiete estimate --ranks N --model model.yaml [--cluster cluster.yaml]: the extrapolated
/// replay (lib/Model.cpp); NetworkPath or ClusterPath may be empty. Format text, yaml or json
/// (the last two record the tool and Command), to Output or, when null, standard output.
int runScaledEstimate(const std::string &ModelPath, int Ranks, double Size,
                      const std::string &NetworkPath, const std::string &ClusterPath,
                      const std::string &Format, const std::string *Output,
                      const std::string &Command);

} // namespace mpiete

#endif
