// YAML form of the block map: what a person reads to find a block, what the estimator checks.
#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/YamlParser.h"

#include <type_traits>

#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Hash.h"

#include <yaml-cpp/yaml.h>

#include <ctime>

namespace mpiete {

uint64_t BlockMap::fingerprint() const {
  Fnv1a64 H;
  for (const UnitModel &U : Units) {
    H.field(toHex(U.UnitId, 8));
    H.field(toHex(U.ContentHash, 16));
  }
  return H.value();
}

std::string isoDateNow() {
  std::time_t T = std::time(nullptr);
  std::tm Tm{};
  gmtime_r(&T, &Tm);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", &Tm);
  return Buf;
}

void writeBlockMap(std::ostream &OS, const BlockMap &Map) {
  YAML::Emitter E;
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-blocks";
  E << YAML::Key << "version" << YAML::Value << BlockMap::FormatVersion;
  E << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "program" << YAML::Value << Map.Program;
  E << YAML::Key << "tool" << YAML::Value << Map.Tool;
  E << YAML::Key << "date" << YAML::Value << Map.Date;
  if (!Map.Compiler.empty())
    E << YAML::Key << "compiler" << YAML::Value << Map.Compiler;
  E << YAML::EndMap;
  E << YAML::Key << "fingerprint" << YAML::Value << toHex(Map.fingerprint(), 16);
  E << YAML::Key << "units" << YAML::Value << YAML::BeginSeq;
  for (const UnitModel &U : Map.Units) {
    E << YAML::BeginMap;
    E << YAML::Key << "unit" << YAML::Value << toHex(U.UnitId, 8);
    E << YAML::Key << "source" << YAML::Value << U.Source;
    E << YAML::Key << "language" << YAML::Value << U.Language;
    E << YAML::Key << "defines" << YAML::Value << YAML::Flow << U.Defines;
    E << YAML::Key << "content_hash" << YAML::Value << toHex(U.ContentHash, 16);
    if (!U.Flags.empty())
      E << YAML::Key << "flags" << YAML::Value << YAML::Flow << U.Flags;
    E << YAML::Key << "procedures" << YAML::Value << YAML::Flow << U.Procedures;
    if (!U.PassedThrough.empty())
      E << YAML::Key << "passed_through" << YAML::Value << U.PassedThrough;
    E << YAML::Key << "loops" << YAML::Value << YAML::BeginSeq;
    for (size_t I = 0; I < U.Loops.size(); ++I) {
      const LoopInfo &L = U.Loops[I];
      E << YAML::Flow << YAML::BeginMap;
      E << YAML::Key << "loop" << YAML::Value << I;
      E << YAML::Key << "kind" << YAML::Value << L.Kind;
      E << YAML::Key << "procedure" << YAML::Value << L.Procedure;
      E << YAML::Key << "line" << YAML::Value << L.Line;
      E << YAML::Key << "parent" << YAML::Value << L.Parent;
      E << YAML::EndMap;
    }
    E << YAML::EndSeq;
    E << YAML::Key << "blocks" << YAML::Value << YAML::BeginSeq;
    for (const Block &B : U.Blocks) {
      E << YAML::BeginMap;
      E << YAML::Key << "id" << YAML::Value << formatBlockId(U.blockId(B.Index));
      E << YAML::Key << "kind" << YAML::Value << std::string(toString(B.Kind));
      if (!B.Phase.empty())
        E << YAML::Key << "phase" << YAML::Value << B.Phase;
      E << YAML::Key << "file" << YAML::Value << B.File;
      E << YAML::Key << "lines" << YAML::Value << YAML::Flow << YAML::BeginSeq << B.BeginLine
        << B.EndLine << YAML::EndSeq;
      E << YAML::Key << "col" << YAML::Value << B.BeginCol;
      E << YAML::Key << "procedure" << YAML::Value << B.Procedure;
      E << YAML::Key << "loops" << YAML::Value << YAML::Flow << B.Loops;
      if (B.Kind == BlockKind::Compute)
        E << YAML::Key << "timed" << YAML::Value << (B.WholeLoop ? "loop" : "block");
      if (!B.OpaqueCalls.empty())
        E << YAML::Key << "opaque_calls" << YAML::Value << YAML::Flow << B.OpaqueCalls;
      if (!B.Routine.empty()) {
        E << YAML::Key << "routine" << YAML::Value << B.Routine;
        E << YAML::Key << "call" << YAML::Value << YAML::DoubleQuoted << B.CallText;
      }
      E << YAML::EndMap;
    }
    E << YAML::EndSeq;
    E << YAML::EndMap;
  }
  E << YAML::EndSeq;
  E << YAML::EndMap;
  OS << E.c_str() << '\n';
}

namespace {

/// Reads one field, reporting a missing or malformed one against the record that holds it.
class Reader {
public:
  Reader(const std::string &Path, DiagnosticSink &Diags) : P{Path, Diags, "block-map"} {}

  /// N[Key] converted to T; a missing key, a record that is no map, or a value of another
  /// type is reported at its line (never a yaml-cpp exception).
  template <typename T>
  bool get(const YAML::Node &N, const char *Key, T &Out, const std::string &Record) {
    if (!N.IsDefined() || !N.IsMap()) {
      fail(Record + ": a map expected, found " + YamlParser::shown(N), N);
      return false;
    }
    YAML::Node V;
    if (!YamlParser::find(N, Key, V)) {
      fail(Record + ": missing '" + Key + "'", N);
      return false;
    }
    try {
      if constexpr (std::is_same_v<T, std::string>) {
        if (!V.IsScalar())
          throw YAML::BadConversion(V.Mark());
      }
      Out = V.template as<T>();
    } catch (const YAML::Exception &) {
      fail(Record + ": malformed '" + Key + "' (got " + YamlParser::shown(V) + ")", V);
      return false;
    }
    return true;
  }
  /// An optional key: absent is fine, present must convert.
  template <typename T>
  bool optional(const YAML::Node &N, const char *Key, T &Out, const std::string &Record) {
    YAML::Node V;
    return !YamlParser::find(N, Key, V) || get(N, Key, Out, Record);
  }
  /// An optional list (loops, blocks, units): absent is empty.
  bool list(const YAML::Node &N, const char *Key, YAML::Node &Out, const std::string &Record) {
    YAML::Node V;
    if (!YamlParser::find(N, Key, V) || V.IsNull()) {
      Out = YAML::Node(YAML::NodeType::Sequence);
      return true;
    }
    if (!V.IsSequence()) {
      fail(Record + ": '" + Key + "' must be a list (got " + YamlParser::shown(V) + ")", V);
      return false;
    }
    Out = V;
    return true;
  }

  void fail(const std::string &Message, const YAML::Node &At = YAML::Node()) {
    P.error(At, Message);
  }

private:
  YamlParser P;
};

bool readUnit(const YAML::Node &N, size_t Ordinal, Reader &R, UnitModel &U) {
  std::string Rec = "unit " + std::to_string(Ordinal);
  std::string UnitHex, Content;
  if (!R.get(N, "unit", UnitHex, Rec) || !R.get(N, "source", U.Source, Rec) ||
      !R.get(N, "language", U.Language, Rec) || !R.get(N, "content_hash", Content, Rec))
    return false;
  Rec = "unit " + UnitHex + " ('" + U.Source + "')";
  try {
    U.UnitId = static_cast<uint32_t>(std::stoul(UnitHex, nullptr, 16));
    U.ContentHash = std::stoull(Content, nullptr, 16);
  } catch (const std::exception &) {
    R.fail(Rec + ": malformed unit id or content hash");
    return false;
  }
  YAML::Node LoopList, BlockList;
  if (!R.optional(N, "defines", U.Defines, Rec) || !R.optional(N, "flags", U.Flags, Rec) ||
      !R.optional(N, "procedures", U.Procedures, Rec) ||
      !R.optional(N, "passed_through", U.PassedThrough, Rec) ||
      !R.list(N, "loops", LoopList, Rec) || !R.list(N, "blocks", BlockList, Rec))
    return false;
  for (const YAML::Node &L : LoopList) {
    LoopInfo Info;
    std::string LRec = Rec + " loop " + std::to_string(U.Loops.size());
    if (!R.get(L, "kind", Info.Kind, LRec) || !R.get(L, "procedure", Info.Procedure, LRec) ||
        !R.get(L, "line", Info.Line, LRec) || !R.get(L, "parent", Info.Parent, LRec))
      return false;
    U.Loops.push_back(std::move(Info));
  }
  for (const YAML::Node &BN : BlockList) {
    Block B;
    std::string Id, Kind;
    std::string BRec = Rec + " block " + std::to_string(U.Blocks.size());
    if (!R.get(BN, "id", Id, BRec))
      return false;
    BRec = "block " + Id;
    auto Parsed = parseBlockId(Id);
    if (!Parsed || (*Parsed >> 32) != U.UnitId) {
      R.fail(BRec + ": id does not belong to unit " + UnitHex);
      return false;
    }
    B.Index = static_cast<uint32_t>(*Parsed);
    if (!R.get(BN, "kind", Kind, BRec))
      return false;
    auto K = parseBlockKind(Kind);
    if (!K) {
      R.fail(BRec + ": unknown kind '" + Kind + "'");
      return false;
    }
    B.Kind = *K;
    std::vector<unsigned> Lines;
    if (!R.get(BN, "file", B.File, BRec) || !R.get(BN, "lines", Lines, BRec) ||
        !R.get(BN, "procedure", B.Procedure, BRec))
      return false;
    if (Lines.size() != 2) {
      R.fail(BRec + ": 'lines' must be [first, last]");
      return false;
    }
    B.BeginLine = Lines[0];
    B.EndLine = Lines[1];
    std::string Timed;
    if (!R.optional(BN, "col", B.BeginCol, BRec) || !R.optional(BN, "phase", B.Phase, BRec) ||
        !R.optional(BN, "loops", B.Loops, BRec) || !R.optional(BN, "timed", Timed, BRec) ||
        !R.optional(BN, "opaque_calls", B.OpaqueCalls, BRec) ||
        !R.optional(BN, "routine", B.Routine, BRec) || !R.optional(BN, "call", B.CallText, BRec))
      return false;
    B.WholeLoop = Timed == "loop";
    U.Blocks.push_back(std::move(B));
  }
  return true;
}

} // namespace

bool readBlockMap(const std::string &Path, BlockMap &Map, DiagnosticSink &Diags) {
  Reader R(Path, Diags);
  YAML::Node Root;
  try {
    Root = YAML::LoadFile(Path);
  } catch (const YAML::BadFile &) {
    R.fail("cannot read the block map");
    return false;
  } catch (const YAML::Exception &Ex) {
    Diags.error(
        {Path, static_cast<unsigned>(Ex.mark.line + 1), static_cast<unsigned>(Ex.mark.column + 1)},
        "not valid YAML: " + Ex.msg, "block-map");
    return false;
  }
  std::string Format;
  int Version = 0;
  if (!R.get(Root, "format", Format, "header") || !R.get(Root, "version", Version, "header"))
    return false;
  if (Format != "mpiete-blocks") {
    R.fail("header: format is '" + Format + "', expected 'mpiete-blocks'");
    return false;
  }
  if (Version != BlockMap::FormatVersion) {
    R.fail("header: format version " + std::to_string(Version) + " is not supported (expected " +
           std::to_string(BlockMap::FormatVersion) + ")");
    return false;
  }
  YAML::Node P, Units;
  if (YamlParser::find(Root, "provenance", P)) {
    if (!R.optional(P, "program", Map.Program, "provenance") ||
        !R.optional(P, "tool", Map.Tool, "provenance") ||
        !R.optional(P, "date", Map.Date, "provenance") ||
        !R.optional(P, "compiler", Map.Compiler, "provenance"))
      return false;
  }
  if (!R.list(Root, "units", Units, "header"))
    return false;
  size_t Ordinal = 0;
  for (const YAML::Node &UN : Units) {
    UnitModel U;
    if (!readUnit(UN, Ordinal++, R, U))
      return false;
    Map.Units.push_back(std::move(U));
  }
  return true;
}

} // namespace mpiete
