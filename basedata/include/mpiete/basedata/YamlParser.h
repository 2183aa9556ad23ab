// Located errors for the YAML files mpiete reads (base data, cluster files).
#pragma once

#include "mpiete/support/Diagnostics.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <string>

namespace mpiete {

/// The whole text of a base data file; `Path: error: cannot open the <What> file` (tagged
/// What) if it cannot be read.
inline bool readBaseDataText(const std::string &Path, const char *What, std::string &Text,
                             DiagnosticSink &Diags) {
  std::ifstream In(Path);
  if (!In) {
    Diags.error({Path, 0, 0}, std::string("cannot open the ") + What + " file", What);
    return false;
  }
  std::ostringstream S;
  S << In.rdbuf();
  Text = S.str();
  return true;
}

/// yaml-cpp parsing and lookups with located errors, tagged Category.
struct YamlParser {
  const std::string &Name;
  DiagnosticSink &Diags;
  const char *Category;
  bool Ok = true;

  /// Parses Text into Root; a syntax error is reported at its place.
  bool load(const std::string &Text, YAML::Node &Root) {
    try {
      Root = YAML::Load(Text);
      return true;
    } catch (const YAML::ParserException &E) {
      Diags.error({Name, unsigned(E.mark.line + 1), unsigned(E.mark.column + 1)}, E.msg, Category);
      return Ok = false;
    }
  }

  /// Reports Message at N (the file when N is undefined); returns false.
  bool error(const YAML::Node &N, const std::string &Message) {
    DiagLoc Loc{Name, 0, 0};
    if (N.IsDefined()) {
      Loc.Line = unsigned(N.Mark().line + 1);
      Loc.Col = unsigned(N.Mark().column + 1);
    }
    Diags.error(Loc, Message, Category);
    return Ok = false;
  }

  double number(const YAML::Node &Map, const char *Key) {
    YAML::Node N = Map[Key];
    if (!N.IsDefined() || !N.IsScalar()) {
      error(Map, std::string("missing number '") + Key + "'");
      return 0;
    }
    try {
      return N.as<double>();
    } catch (const YAML::Exception &) {
      error(N, std::string("'") + Key + "' is not a number");
      return 0;
    }
  }
};

} // namespace mpiete
