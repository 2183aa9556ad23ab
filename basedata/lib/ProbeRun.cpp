// probe.yaml written from and read into a ProbeRun.
#include "mpiete/basedata/ProbeRun.h"
#include "mpiete/basedata/YamlParser.h"

namespace mpiete {

void writeProbeRun(std::ostream &OS, const ProbeRun &Run) {
  YAML::Emitter E;
  E.SetDoublePrecision(6);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-probe-run";
  E << YAML::Key << "version" << YAML::Value << ProbeRun::FormatVersion;
  E << YAML::Key << "probe" << YAML::Value << Run.Probe;
  E << YAML::Key << "variant" << YAML::Value << Run.Variant;
  E << YAML::Key << "program" << YAML::Value << Run.Program;
  E << YAML::Key << "arguments" << YAML::Value << YAML::Flow << Run.Arguments;
  E << YAML::Key << "ranks" << YAML::Value << Run.Ranks;
  E << YAML::Key << "wall_seconds" << YAML::Value << Run.WallSeconds;
  E << YAML::Key << "date" << YAML::Value << Run.Date;
  E << YAML::Key << "tool" << YAML::Value << Run.Tool;
  E << YAML::EndMap;
  OS << "# mpiete probe run: the wall time of the probe that wrote this directory (a cost of\n"
        "# the prediction; mpiete estimate reports it against the predicted run time).\n"
     << E.c_str() << "\n";
}

bool parseProbeRun(const std::string &Name, const std::string &Text, ProbeRun &Out,
                   DiagnosticSink &Diags) {
  YamlParser P{Name, Diags, "probe-run"};
  YAML::Node Root;
  if (!P.load(Text, Root))
    return false;
  std::string Format;
  if (!P.string(Root, "format", Format))
    return false;
  if (Format != "mpiete-probe-run")
    return P.error(Root["format"], "not a probe run file (format '" + Format + "')");
  int64_t Version = 0, Ranks = 0;
  if (!P.integer(Root, "version", Version, 1, 1))
    return false;
  if (!P.string(Root, "probe", Out.Probe) || !P.string(Root, "variant", Out.Variant, false) ||
      !P.string(Root, "program", Out.Program, false) ||
      !P.integer(Root, "ranks", Ranks, 0, 1 << 24, false) ||
      !P.nonNegative(Root, "wall_seconds", Out.WallSeconds, 1e9) ||
      !P.string(Root, "date", Out.Date, false) || !P.string(Root, "tool", Out.Tool, false))
    return false;
  Out.Ranks = int(Ranks);
  YAML::Node Args;
  if (!P.list(Root, "arguments", Args, false))
    return false;
  for (const YAML::Node &A : Args)
    Out.Arguments.push_back(A.as<std::string>(""));
  return P.Ok;
}

bool loadProbeRun(const std::string &Path, ProbeRun &Out, DiagnosticSink &Diags) {
  std::string Text;
  return readBaseDataText(Path, "probe-run", Text, Diags) && parseProbeRun(Path, Text, Out, Diags);
}

} // namespace mpiete
