// Located errors for the YAML files mpiete reads (base data, cluster files).
#pragma once

#include "mpiete/support/Diagnostics.h"

#include <yaml-cpp/yaml.h>

#include <string>

namespace mpiete::estimator {

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

} // namespace mpiete::estimator
