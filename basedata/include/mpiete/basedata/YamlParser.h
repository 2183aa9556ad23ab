// Located errors for the YAML files mpiete reads (base data, cluster files).
#pragma once

#include "mpiete/support/Diagnostics.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
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
    } catch (const YAML::Exception &E) { // syntax errors, too deep nesting
      Diags.error({Name, unsigned(E.mark.line + 1), unsigned(E.mark.column + 1)}, E.msg, Category);
      return Ok = false;
    }
  }

  /// Reports Message at N (the file when N is undefined); returns false.
  bool error(const YAML::Node &N, const std::string &Message) {
    DiagLoc Loc{Name, 0, 0};
    if (N.IsDefined() && N.Mark().line >= 0) {
      Loc.Line = unsigned(N.Mark().line + 1);
      Loc.Col = unsigned(N.Mark().column + 1);
    }
    Diags.error(Loc, Message, Category);
    return Ok = false;
  }

  // Checked accessors: each looks Key up in Map without yaml-cpp's throwing paths (a missing
  // key of a const node, a scalar indexed as a map), converts without exceptions and reports a
  // located error naming the key and what was expected. Required keys report when missing;
  // optional ones leave Out as it was. Each returns false when it reported.

  /// Map[Key] if Map is a map that has Key (Out is left alone otherwise); never throws.
  static bool find(const YAML::Node &Map, const char *Key, YAML::Node &Out) {
    if (!Map.IsDefined() || !Map.IsMap())
      return false;
    for (const auto &KV : Map)
      if (KV.first.IsDefined() && KV.first.IsScalar() && KV.first.Scalar() == Key) {
        Out = KV.second;
        return true;
      }
    return false;
  }

  /// The value as a short quoted text for messages ('a list', 'a map', the scalar).
  static std::string shown(const YAML::Node &N) {
    if (!N.IsDefined() || N.IsNull())
      return "nothing";
    if (N.IsSequence())
      return "a list";
    if (N.IsMap())
      return "a map";
    std::string S = N.Scalar();
    if (S.size() > 40)
      S = S.substr(0, 40) + "...";
    return "'" + S + "'";
  }

  /// "'Key' must be What (got ...)" at N.
  bool expected(const YAML::Node &N, const char *Key, const std::string &What) {
    return error(N, std::string("'") + Key + "' must be " + What + " (got " + shown(N) + ")");
  }

  /// Key present (not null) in Map; reports a missing required key at Map.
  bool present(const YAML::Node &Map, const char *Key, YAML::Node &Out, bool Required) {
    if (find(Map, Key, Out) && !Out.IsNull())
      return true;
    if (Required)
      error(Map, std::string("missing '") + Key + "'");
    return false;
  }

  /// A map (Required: must be there).
  bool map(const YAML::Node &Parent, const char *Key, YAML::Node &Out, bool Required = true) {
    YAML::Node N;
    if (!present(Parent, Key, N, Required))
      return !Required;
    if (!N.IsMap())
      return expected(N, Key, "a map");
    Out = N;
    return true;
  }

  /// A list.
  bool list(const YAML::Node &Parent, const char *Key, YAML::Node &Out, bool Required = true) {
    YAML::Node N;
    if (!present(Parent, Key, N, Required))
      return !Required;
    if (!N.IsSequence())
      return expected(N, Key, "a list");
    Out = N;
    return true;
  }

  /// A scalar string.
  bool string(const YAML::Node &Map, const char *Key, std::string &Out, bool Required = true) {
    YAML::Node N;
    if (!present(Map, Key, N, Required))
      return !Required;
    if (!N.IsScalar())
      return expected(N, Key, "a string");
    Out = N.Scalar();
    return true;
  }

  /// true or false.
  bool boolean(const YAML::Node &Map, const char *Key, bool &Out, bool Required = true) {
    YAML::Node N;
    if (!present(Map, Key, N, Required))
      return !Required;
    bool V = false;
    if (!N.IsScalar() || !YAML::convert<bool>::decode(N, V))
      return expected(N, Key, "true or false");
    Out = V;
    return true;
  }

  /// A finite number in [Min, Max] (NaN, infinities and strings rejected).
  bool finite(const YAML::Node &Map, const char *Key, double &Out, double Min, double Max,
              bool Required = true) {
    YAML::Node N;
    if (!present(Map, Key, N, Required))
      return !Required;
    return finiteValue(N, Key, Out, Min, Max);
  }
  bool finiteValue(const YAML::Node &N, const char *Key, double &Out, double Min, double Max) {
    double V = 0;
    if (!N.IsScalar() || !YAML::convert<double>::decode(N, V) || !std::isfinite(V) || V < Min ||
        V > Max) {
      std::ostringstream W;
      W << "a finite number in [" << Min << ", " << Max << "]";
      return expected(N, Key, W.str());
    }
    Out = V;
    return true;
  }
  /// A finite number >= 0 and at most Max.
  bool nonNegative(const YAML::Node &Map, const char *Key, double &Out, double Max,
                   bool Required = true) {
    return finite(Map, Key, Out, 0, Max, Required);
  }

  /// A whole number in [Min, Max] (1.5, 1e300, strings rejected).
  bool integer(const YAML::Node &Map, const char *Key, int64_t &Out, int64_t Min, int64_t Max,
               bool Required = true) {
    YAML::Node N;
    if (!present(Map, Key, N, Required))
      return !Required;
    return integerValue(N, Key, Out, Min, Max);
  }
  bool integerValue(const YAML::Node &N, const char *Key, int64_t &Out, int64_t Min, int64_t Max) {
    long long V = 0;
    if (!N.IsScalar() || !YAML::convert<long long>::decode(N, V) || V < Min || V > Max)
      return expected(
          N, Key, "a whole number in [" + std::to_string(Min) + ", " + std::to_string(Max) + "]");
    Out = V;
    return true;
  }
  /// A whole number >= 1.
  bool positive(const YAML::Node &Map, const char *Key, int64_t &Out, int64_t Max,
                bool Required = true) {
    return integer(Map, Key, Out, 1, Max, Required);
  }
};

} // namespace mpiete
