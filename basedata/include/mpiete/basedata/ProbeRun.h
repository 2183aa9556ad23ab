// probe.yaml (format mpiete-probe-run, version 1): what a probe run cost, beside the base data it
// produced (the trace directory): types, writer, reader.
#ifndef MPIETE_BASEDATA_PROBERUN_H
#define MPIETE_BASEDATA_PROBERUN_H

#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

struct ProbeRun {
  static constexpr int FormatVersion = 1;
  std::string Probe = "trace";  ///< which probe ran (trace)
  std::string Variant = "full"; ///< full, or skeleton (the sliced trace probe)
  std::string Program;
  std::vector<std::string> Arguments;
  int Ranks = 0;
  double WallSeconds = 0; ///< the whole job, launch included
  std::string Date, Tool;
};

void writeProbeRun(std::ostream &OS, const ProbeRun &Run);

/// Reads probe.yaml from Text (Name for diagnostics, tagged [mpiete-probe-run]); false
/// (reported) on error.
bool parseProbeRun(const std::string &Name, const std::string &Text, ProbeRun &Out,
                   DiagnosticSink &Diags);
/// The same from a file.
bool loadProbeRun(const std::string &Path, ProbeRun &Out, DiagnosticSink &Diags);

} // namespace mpiete

#endif
