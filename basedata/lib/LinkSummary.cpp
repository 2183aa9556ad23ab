// Link summaries and unit recipes written from and read into their types (LinkSummary.h).
#include "mpiete/basedata/LinkSummary.h"
#include "mpiete/basedata/YamlParser.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace mpiete {

const ProcedureSummary *LinkSummary::find(const std::string &Name) const {
  for (const ProcedureSummary &P : Procedures)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

namespace {

template <class Set> void flowList(YAML::Emitter &E, const char *Key, const Set &S) {
  E << YAML::Key << Key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto &V : S)
    E << V;
  E << YAML::EndSeq;
}

/// A list of scalars under Key (optional; absent is empty).
bool stringList(YamlParser &P, const YAML::Node &Map, const char *Key, std::set<std::string> &Out) {
  YAML::Node L;
  if (!P.list(Map, Key, L, false))
    return false;
  for (const YAML::Node &N : L) {
    if (!N.IsScalar())
      return P.error(N, std::string("'") + Key + "' holds names");
    Out.insert(N.Scalar());
  }
  return true;
}

bool stringVector(YamlParser &P, const YAML::Node &Map, const char *Key,
                  std::vector<std::string> &Out) {
  YAML::Node L;
  if (!P.list(Map, Key, L, false))
    return false;
  for (const YAML::Node &N : L) {
    if (!N.IsScalar())
      return P.error(N, std::string("'") + Key + "' holds words");
    Out.push_back(N.Scalar());
  }
  return true;
}

bool indexList(YamlParser &P, const YAML::Node &Map, const char *Key, std::set<unsigned> &Out) {
  YAML::Node L;
  if (!P.list(Map, Key, L, false))
    return false;
  for (const YAML::Node &N : L) {
    int64_t V = 0;
    if (!P.integerValue(N, Key, V, 0, 1 << 16))
      return false;
    Out.insert(unsigned(V));
  }
  return true;
}

/// Parameter indices to field names, as a flow map: {0: [n, f*]}.
void fieldsValue(YAML::Emitter &E, const FieldsByParam &F) {
  E << YAML::Flow << YAML::BeginMap;
  for (const auto &[I, Names] : F) {
    E << YAML::Key << I << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string &N : Names)
      E << N;
    E << YAML::EndSeq;
  }
  E << YAML::EndMap;
}

void fieldsMap(YAML::Emitter &E, const char *Key, const FieldsByParam &F) {
  if (F.empty())
    return;
  E << YAML::Key << Key << YAML::Value;
  fieldsValue(E, F);
}

/// A map from parameter indices to field names, M (Key names it in messages).
bool fieldsNode(YamlParser &P, const YAML::Node &M, const char *Key, FieldsByParam &Out) {
  if (!M.IsMap())
    return P.error(M, std::string("'") + Key + "' maps parameter numbers to field names");
  for (const auto &KV : M) {
    int64_t I = 0;
    if (!P.integerValue(KV.first, Key, I, 0, 1 << 16))
      return false;
    std::set<std::string> &Names = Out[unsigned(I)];
    if (!KV.second.IsSequence())
      return P.error(KV.second, std::string("'") + Key + "' maps parameter numbers to field names");
    for (const YAML::Node &N : KV.second) {
      if (!N.IsScalar() || N.Scalar().empty())
        return P.error(N, std::string("'") + Key + "' holds field names");
      Names.insert(N.Scalar());
    }
  }
  return true;
}

/// The same under Key of Map (optional; absent is empty).
bool fieldsMap(YamlParser &P, const YAML::Node &Map, const char *Key, FieldsByParam &Out) {
  YAML::Node M;
  if (!YamlParser::find(Map, Key, M) || M.IsNull())
    return true;
  return fieldsNode(P, M, Key, Out);
}

bool header(YamlParser &P, const YAML::Node &Root, const char *Format, int64_t &Version,
            int64_t Latest = 1) {
  std::string F;
  if (!P.string(Root, "format", F))
    return false;
  if (F != Format)
    return P.error(Root["format"], std::string("not a ") + Format + " file (format '" + F + "')");
  return P.integer(Root, "version", Version, 1, Latest);
}
bool header(YamlParser &P, const YAML::Node &Root, const char *Format) {
  int64_t Version = 0;
  return header(P, Root, Format, Version);
}

/// Version 2 records the unit's language.
constexpr int64_t RecipeVersion = 3;

} // namespace

void writeLinkSummary(std::ostream &OS, const LinkSummary &S) {
  YAML::Emitter E;
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-link-summary";
  E << YAML::Key << "version" << YAML::Value << LinkSummary::FormatVersion;
  E << YAML::Key << "kind" << YAML::Value
    << (S.SummaryKind == LinkSummary::Kind::Unit ? "unit" : "program");
  if (S.SummaryKind == LinkSummary::Kind::Unit) {
    char Hash[24];
    std::snprintf(Hash, sizeof Hash, "%016llx", static_cast<unsigned long long>(S.ContentHash));
    E << YAML::Key << "unit" << YAML::Value << S.Unit;
    E << YAML::Key << "content_hash" << YAML::Value << Hash;
    flowList(E, "external_calls", S.ExternalCalls);
    flowList(E, "address_taken", S.AddressTaken);
    E << YAML::Key << "demands" << YAML::Value << YAML::BeginMap;
    for (const auto &[Name, Params] : S.Demands) {
      E << YAML::Key << Name;
      E << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (unsigned I : Params)
        E << I;
      E << YAML::EndSeq;
    }
    E << YAML::EndMap;
    if (!S.DemandFields.empty()) {
      E << YAML::Key << "demand_fields" << YAML::Value << YAML::BeginMap;
      for (const auto &[Name, Fields] : S.DemandFields) {
        E << YAML::Key << Name << YAML::Value;
        fieldsValue(E, Fields);
      }
      E << YAML::EndMap;
    }
  }
  flowList(E, "steered", S.Steered);
  if (!S.DemandedGlobals.empty())
    flowList(E, "demanded_globals", S.DemandedGlobals);
  E << YAML::Key << "procedures" << YAML::Value << YAML::BeginSeq;
  for (const ProcedureSummary &P : S.Procedures) {
    E << YAML::BeginMap;
    E << YAML::Key << "name" << YAML::Value << P.Name;
    E << YAML::Key << "communicates" << YAML::Value << P.Communicates;
    if (S.SummaryKind == LinkSummary::Kind::Unit)
      flowList(E, "calls", P.Calls);
    flowList(E, "writes_params", P.WritesParams);
    flowList(E, "reads_params", P.ReadsParams);
    flowList(E, "escapes_params", P.EscapesParams);
    fieldsMap(E, "writes_fields", P.WritesFields);
    fieldsMap(E, "reads_fields", P.ReadsFields);
    if (!P.StorageReadsParams.empty() || !P.StorageWritesParams.empty()) {
      flowList(E, "storage_reads_params", P.StorageReadsParams);
      flowList(E, "storage_writes_params", P.StorageWritesParams);
    }
    flowList(E, "writes_globals", P.WritesGlobals);
    flowList(E, "reads_globals", P.ReadsGlobals);
    E << YAML::Key << "hidden_state" << YAML::Value << P.HiddenState;
    flowList(E, "send_kinds", P.SendKinds);
    if (P.ValuesKnown) {
      flowList(E, "value_params", P.ValueParams);
      E << YAML::Key << "values_known" << YAML::Value << P.ValuesKnown;
    }
    if (S.SummaryKind == LinkSummary::Kind::Program) {
      flowList(E, "demanded_params", P.DemandedParams);
      fieldsMap(E, "demanded_fields", P.DemandedFields);
      E << YAML::Key << "callers_known" << YAML::Value << P.CallersKnown;
    }
    E << YAML::EndMap;
  }
  E << YAML::EndSeq << YAML::EndMap;
  OS << "# mpiete link summary: what other units' skeleton slices may assume of these "
        "procedures\n# (docs/skeleton.md, \"Whole program\").\n"
     << E.c_str() << "\n";
}

bool parseLinkSummary(const std::string &Name, const std::string &Text, LinkSummary &Out,
                      DiagnosticSink &Diags) {
  YamlParser P{Name, Diags, "link-summary"};
  YAML::Node Root;
  if (!P.load(Text, Root) || !header(P, Root, "mpiete-link-summary"))
    return false;
  std::string Kind;
  if (!P.string(Root, "kind", Kind))
    return false;
  if (Kind != "unit" && Kind != "program")
    return P.error(Root["kind"], "'kind' is unit or program, not '" + Kind + "'");
  Out = LinkSummary();
  Out.SummaryKind = Kind == "unit" ? LinkSummary::Kind::Unit : LinkSummary::Kind::Program;
  if (Out.SummaryKind == LinkSummary::Kind::Unit) {
    std::string Hash;
    if (!P.string(Root, "unit", Out.Unit) || !P.string(Root, "content_hash", Hash))
      return false;
    char *End = nullptr;
    Out.ContentHash = std::strtoull(Hash.c_str(), &End, 16);
    if (Hash.empty() || *End)
      return P.error(Root["content_hash"], "'content_hash' is a hexadecimal number");
    if (!stringList(P, Root, "external_calls", Out.ExternalCalls) ||
        !stringList(P, Root, "address_taken", Out.AddressTaken))
      return false;
    YAML::Node Demands;
    if (YamlParser::find(Root, "demands", Demands) && !Demands.IsNull()) {
      if (!Demands.IsMap())
        return P.error(Demands, "'demands' maps procedure names to parameter lists");
      for (const auto &KV : Demands) {
        std::set<unsigned> &Params = Out.Demands[KV.first.as<std::string>("")];
        if (!KV.second.IsSequence())
          return P.error(KV.second, "'demands' maps procedure names to parameter lists");
        for (const YAML::Node &N : KV.second) {
          int64_t V = 0;
          if (!P.integerValue(N, "demands", V, 0, 1 << 16))
            return false;
          Params.insert(unsigned(V));
        }
      }
    }
    YAML::Node Fields;
    if (YamlParser::find(Root, "demand_fields", Fields) && !Fields.IsNull()) {
      if (!Fields.IsMap())
        return P.error(Fields, "'demand_fields' maps procedure names to parameters' fields");
      for (const auto &KV : Fields)
        if (!fieldsNode(P, KV.second, "demand_fields",
                        Out.DemandFields[KV.first.as<std::string>("")]))
          return false;
    }
  }
  if (!stringList(P, Root, "steered", Out.Steered) ||
      !stringList(P, Root, "demanded_globals", Out.DemandedGlobals))
    return false;
  YAML::Node Procs;
  if (!P.list(Root, "procedures", Procs, false))
    return false;
  for (const YAML::Node &N : Procs) {
    ProcedureSummary S;
    if (!P.string(N, "name", S.Name) || !P.boolean(N, "communicates", S.Communicates) ||
        !stringList(P, N, "calls", S.Calls) || !indexList(P, N, "writes_params", S.WritesParams) ||
        !indexList(P, N, "reads_params", S.ReadsParams) ||
        !indexList(P, N, "escapes_params", S.EscapesParams) ||
        !fieldsMap(P, N, "writes_fields", S.WritesFields) ||
        !fieldsMap(P, N, "reads_fields", S.ReadsFields) ||
        !fieldsMap(P, N, "demanded_fields", S.DemandedFields) ||
        !indexList(P, N, "storage_reads_params", S.StorageReadsParams) ||
        !indexList(P, N, "storage_writes_params", S.StorageWritesParams) ||
        !stringList(P, N, "writes_globals", S.WritesGlobals) ||
        !stringList(P, N, "reads_globals", S.ReadsGlobals) ||
        !P.boolean(N, "hidden_state", S.HiddenState, false) ||
        !stringList(P, N, "send_kinds", S.SendKinds) ||
        !indexList(P, N, "value_params", S.ValueParams) ||
        !P.boolean(N, "values_known", S.ValuesKnown, false) ||
        !indexList(P, N, "demanded_params", S.DemandedParams) ||
        !P.boolean(N, "callers_known", S.CallersKnown, false))
      return false;
    Out.Procedures.push_back(std::move(S));
  }
  return P.Ok;
}

bool loadLinkSummary(const std::string &Path, LinkSummary &Out, DiagnosticSink &Diags) {
  std::string Text;
  return readBaseDataText(Path, "link-summary", Text, Diags) &&
         parseLinkSummary(Path, Text, Out, Diags);
}

bool saveLinkSummary(const std::string &Path, const LinkSummary &S, DiagnosticSink &Diags) {
  std::ofstream OS(Path + ".tmp");
  writeLinkSummary(OS, S);
  OS.close();
  if (!OS || std::rename((Path + ".tmp").c_str(), Path.c_str()) != 0) {
    Diags.error({Path, 0, 0}, "cannot write file", "driver");
    return false;
  }
  return true;
}

void writeUnitRecipe(std::ostream &OS, const UnitRecipe &R) {
  YAML::Emitter E;
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-unit-recipe";
  E << YAML::Key << "version" << YAML::Value << RecipeVersion;
  E << YAML::Key << "source" << YAML::Value << R.Source;
  E << YAML::Key << "language" << YAML::Value << R.Language;
  E << YAML::Key << "directory" << YAML::Value << R.Directory;
  flowList(E, "options", R.Options);
  flowList(E, "instrument_flags", R.InstrumentFlags);
  flowList(E, "compile", R.Compile);
  E << YAML::EndMap;
  OS << "# mpiete unit recipe: how mpiete-cc re-slices this unit at link time.\n"
     << E.c_str() << "\n";
}

bool parseUnitRecipe(const std::string &Name, const std::string &Text, UnitRecipe &Out,
                     DiagnosticSink &Diags) {
  YamlParser P{Name, Diags, "link-summary"};
  YAML::Node Root;
  int64_t Version = 0;
  if (!P.load(Text, Root) || !header(P, Root, "mpiete-unit-recipe", Version, RecipeVersion))
    return false;
  if (Version < RecipeVersion) {
    // An object an older mpiete-cc compiled: not an error, its per-unit skeleton serves.
    Diags.note({Name, 0, 0},
               "written by an older mpiete-cc: rebuild the object for the whole-program skeleton",
               "link-summary");
    return false;
  }
  Out = UnitRecipe();
  if (!P.string(Root, "language", Out.Language))
    return false;
  if (Out.Language != "c" && Out.Language != "fortran")
    return P.error(Root["language"], "'language' is c or fortran, not '" + Out.Language + "'");
  return P.string(Root, "source", Out.Source) && P.string(Root, "directory", Out.Directory) &&
         stringVector(P, Root, "options", Out.Options) &&
         stringVector(P, Root, "instrument_flags", Out.InstrumentFlags) &&
         stringVector(P, Root, "compile", Out.Compile) && P.Ok;
}

bool loadUnitRecipe(const std::string &Path, UnitRecipe &Out, DiagnosticSink &Diags) {
  std::string Text;
  return readBaseDataText(Path, "link-summary", Text, Diags) &&
         parseUnitRecipe(Path, Text, Out, Diags);
}

} // namespace mpiete
