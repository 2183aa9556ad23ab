// A unit's link summary (format mpiete-link-summary, version 1): what the skeleton slice of a
// unit knows of its procedures that other units may call, and what the whole program's solve
// (tools/WholeProgram.h) tells each unit back at link time: types, writer, reader.
#ifndef MPIETE_BASEDATA_LINKSUMMARY_H
#define MPIETE_BASEDATA_LINKSUMMARY_H

#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

/// C: for some pointer parameters (by index), the fields of the record they point to that an
/// effect touches, by name: "f" the field's own storage, "f*" what the pointers in it reach.
/// A parameter absent here (but in the effect's parameter list) is touched whole.
using FieldsByParam = std::map<unsigned, std::set<std::string>>;

/// One procedure with external linkage, named as the linker sees it. Its effects are those a
/// caller can observe, over-approximated: what it writes or reads through its pointer (or
/// record) parameters, numbered from 0, in globals (by name; a unit's static storage as
/// "unit#name", which no other unit can name), and whether it touches state nobody can name
/// (library state such as rand()'s, input streams, memory reached through other units).
struct ProcedureSummary {
  std::string Name;
  /// In a unit's summary: the procedure may communicate or end the program by itself or
  /// through procedures of its unit (an MPI call, a call through a pointer, asm, exit);
  /// calls to other units are in Calls. In the program's summary: solved over every unit.
  bool Communicates = false;
  /// Unit summaries: the procedures of other units it calls, directly or through its unit's.
  std::set<std::string> Calls;
  std::set<unsigned> WritesParams, ReadsParams;
  /// C: of those parameters, the ones touched only in some fields (FieldsByParam). A C
  /// procedure sliced (ValuesKnown) reads what its skeleton's kept statements read.
  FieldsByParam WritesFields, ReadsFields;
  /// Parameters whose memory the procedure's unit keeps a pointer to (in a global): other
  /// calls may reach it later, as hidden state.
  std::set<unsigned> EscapesParams;
  std::set<std::string> WritesGlobals, ReadsGlobals;
  /// Fortran: the parameters whose storage (allocation, pointer association, shape), not
  /// their contents, it needs on entry (a message buffer, SIZE) or may change (ALLOCATE).
  /// A global's storage is named NAME#storage among the globals.
  std::set<unsigned> StorageReadsParams, StorageWritesParams;
  bool HiddenState = false;
  /// The kinds of MPI calls with message buffers it makes (PointToPointKind or a collective's
  /// name), directly or through its unit's procedures; in the program's summary through any
  /// unit's too, and AnyKind when it calls what no unit defines. When one of them is steered,
  /// what it sends (its written parameters and globals) is read by the call.
  std::set<std::string> SendKinds;
  /// Program summaries: the parameters whose memory some caller's kept statements read after
  /// a call (what the procedure leaves there must stay in its skeleton), and whether every
  /// call of it is seen (no unit takes its address). Unit summaries leave them empty.
  std::set<unsigned> DemandedParams;
  FieldsByParam DemandedFields; ///< C: of DemandedParams, those demanded only in some fields
  bool CallersKnown = false;
  /// C, a procedure sliced (ValuesKnown): the arithmetic parameters (passed by value) whose
  /// value its skeleton reads. A caller's skeleton passes 0 for the others and drops what
  /// computed the argument. Not ValuesKnown (Fortran, a procedure not sliced): every
  /// parameter may be read.
  std::set<unsigned> ValueParams;
  bool ValuesKnown = false;
  bool operator==(const ProcedureSummary &) const = default;
};

/// The kinds of message data that steer kept statements (docs/skeleton.md): any
/// point-to-point receive's, or a collective routine's (by name).
inline constexpr const char *PointToPointKind = "point-to-point";
inline constexpr const char *AnyKind = "any";
/// Among a unit's demands of a procedure (LinkSummary::Demands) and a program's
/// DemandedParams: its result, which some caller's kept statements use.
inline constexpr unsigned ResultDemand = 1u << 16;

struct LinkSummary {
  static constexpr int FormatVersion = 1;
  enum class Kind { Unit, Program };
  Kind SummaryKind = Kind::Unit;
  /// Unit summaries: the source path recorded for the unit and its content hash (the main
  /// file and the user headers it includes: UnitModel::ContentHash).
  std::string Unit;
  uint64_t ContentHash = 0;
  /// Unit summaries: the procedures of other units the unit calls. A unit whose skeleton
  /// called none of them and whose message kinds are all steered already is final as built.
  std::set<std::string> ExternalCalls;
  /// Message kinds whose data steers a kept statement: the unit's own, or (program) the union
  /// of every unit's, which each unit's sends must then keep.
  std::set<std::string> Steered;
  /// Unit summaries: for each procedure of another unit called by a statement the skeleton
  /// keeps, the parameters whose memory a kept statement reads (absent: none); and the
  /// procedures whose address the unit takes (their callers are unknown).
  std::map<std::string, std::set<unsigned>> Demands;
  /// C: of Demands, the parameters whose memory kept statements read only in some fields.
  std::map<std::string, FieldsByParam> DemandFields;
  /// Fortran: the globals (by name) kept statements read, the unit's own or (program) any
  /// unit's. With the whole program, a Fortran procedure leaves behind only these globals;
  /// empty in C summaries, whose procedures keep every global they write.
  std::set<std::string> DemandedGlobals;
  std::set<std::string> AddressTaken;
  std::vector<ProcedureSummary> Procedures;

  const ProcedureSummary *find(const std::string &Name) const;
  bool operator==(const LinkSummary &) const = default;
};

void writeLinkSummary(std::ostream &OS, const LinkSummary &S);

/// Reads a link summary from Text (Name for diagnostics, tagged [mpiete-link-summary]); false
/// (reported) on error.
bool parseLinkSummary(const std::string &Name, const std::string &Text, LinkSummary &Out,
                      DiagnosticSink &Diags);
/// The same from a file.
bool loadLinkSummary(const std::string &Path, LinkSummary &Out, DiagnosticSink &Diags);
/// Writes S to Path whole or not at all (a temporary beside it, renamed); false (reported) on
/// error.
bool saveLinkSummary(const std::string &Path, const LinkSummary &S, DiagnosticSink &Diags);

/// How the wrapper re-runs a unit's skeleton at link time: the source as compiled, the
/// instrumenter's arguments after the source (the user's flags and the MPI include flags) and
/// the native compile command of the skeleton variant (without its input and output).
struct UnitRecipe {
  std::string Source;         ///< as given to the compiler (the unit's path in ids and summaries)
  std::string Language = "c"; ///< c or fortran: a program of both is sliced per unit
  std::string Directory;      ///< the directory the compile ran in (absolute)
  std::vector<std::string> Options; ///< the instrumenter's own options (--pass-through=...)
  std::vector<std::string> InstrumentFlags;
  std::vector<std::string> Compile;
  bool operator==(const UnitRecipe &) const = default;
};

void writeUnitRecipe(std::ostream &OS, const UnitRecipe &R);
bool loadUnitRecipe(const std::string &Path, UnitRecipe &Out, DiagnosticSink &Diags);
bool parseUnitRecipe(const std::string &Name, const std::string &Text, UnitRecipe &Out,
                     DiagnosticSink &Diags);

} // namespace mpiete

#endif
