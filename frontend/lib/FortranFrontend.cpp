// Builds the program model of a Fortran unit from Flang's parse tree (after semantics): which
// procedures communicate, how their bodies split into compute blocks (seed 004 section 2.3.2),
// and every MPI call site, with byte offsets into the original file found through provenance.
#include "mpiete/frontend/FortranFrontend.h"

#include "mpiete/frontend/BlockPartition.h"
#include "mpiete/frontend/MpiRoutines.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Hash.h"

#include "flang/Parser/parse-tree-visitor.h"
#include "flang/Parser/parse-tree.h"
#include "flang/Parser/parsing.h"
#include "flang/Parser/provenance.h"
#include "flang/Semantics/scope.h"
#include "flang/Semantics/symbol.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace p = Fortran::parser;

namespace mpiete {
namespace {

std::string lower(std::string_view S) {
  std::string Out(S);
  for (char &C : Out)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Out;
}

bool isMpiName(const std::string &Lower) {
  return Lower.rfind("mpi_", 0) == 0 || Lower.rfind("pmpi_", 0) == 0;
}

/// MPI_SEND -> MPI_Send: the C spelling the routine tables use.
std::string canonicalMpi(const std::string &Lower) {
  bool Profiling = Lower[0] == 'p';
  std::string Rest = Lower.substr(Profiling ? 5 : 4);
  if (!Rest.empty())
    Rest[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(Rest[0])));
  return std::string(Profiling ? "PMPI_" : "MPI_") + Rest;
}

/// The name a procedure reference resolves to: through use association and renames.
std::string calleeName(const p::Name &N) {
  if (N.symbol)
    return lower(N.symbol->GetUltimate().name().ToString());
  return lower(N.ToString());
}

/// The module a use-associated procedure comes from, or empty.
std::string moduleOf(const p::Name &N) {
  if (!N.symbol)
    return "";
  const Fortran::semantics::Symbol &U = N.symbol->GetUltimate();
  const Fortran::semantics::Scope &Owner = U.owner();
  if (Owner.IsModule() && Owner.symbol())
    return lower(Owner.symbol()->name().ToString());
  return "";
}

const p::Name *designatorName(const p::Call &C) {
  return std::get_if<p::Name>(&std::get<p::ProcedureDesignator>(C.t).u);
}

/// Maps cooked characters back to the original file: offsets, lines and columns.
class SourceMap {
public:
  SourceMap(const p::AllCookedSources &Cooked, const std::string &UnitPath)
      : Cooked(Cooked), UnitPath(UnitPath) {
    if (auto R = Cooked.allSources().GetFirstFileProvenance())
      Main = Cooked.allSources().GetSourceFile(R->start());
  }

  const p::SourceFile *main() const { return Main; }

  /// Offset in the main file of one cooked character, or nothing when it comes from another
  /// file (an include) or from no file.
  std::optional<unsigned> offsetOf(const char *P) const {
    auto R = Cooked.GetProvenanceRange(p::CharBlock{P, 1});
    if (!R)
      return std::nullopt;
    std::size_t Off = 0;
    const p::SourceFile *F = Cooked.allSources().GetSourceFile(R->start(), &Off);
    if (!F || F != Main)
      return std::nullopt;
    return static_cast<unsigned>(Off);
  }
  std::optional<unsigned> beginOf(p::CharBlock B) const {
    return B.empty() ? std::nullopt : offsetOf(B.begin());
  }
  /// One past the last character of B.
  std::optional<unsigned> endOf(p::CharBlock B) const {
    if (B.empty())
      return std::nullopt;
    const char *Last = B.end() - 1;
    while (Last > B.begin() && *Last == ' ')
      --Last;
    auto O = offsetOf(Last);
    return O ? std::optional<unsigned>(*O + 1) : std::nullopt;
  }

  DiagLoc loc(p::CharBlock B) const {
    if (!B.empty())
      if (auto R = Cooked.GetSourcePositionRange(B)) {
        const p::SourcePosition &P = R->first;
        std::string File = &*P.sourceFile == Main ? UnitPath : std::string(*P.path);
        return {File, static_cast<unsigned>(P.line), static_cast<unsigned>(P.column)};
      }
    return {UnitPath, 0, 0};
  }
  unsigned line(p::CharBlock B, bool End = false) const {
    if (!B.empty())
      if (auto R = Cooked.GetSourcePositionRange(B))
        return static_cast<unsigned>(End ? R->second.line : R->first.line);
    return 0;
  }

private:
  const p::AllCookedSources &Cooked;
  const std::string &UnitPath;
  const p::SourceFile *Main = nullptr;
};

/// The span of a parse-tree node: from the first to the last character of its statements.
struct SpanWalker {
  const char *Begin = nullptr, *End = nullptr;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &S) {
    add(S.source);
    return true;
  }
  template <typename T> bool Pre(const p::UnlabeledStatement<T> &S) {
    add(S.source);
    return true;
  }
  void add(p::CharBlock B) {
    if (B.empty())
      return;
    if (!Begin || B.begin() < Begin)
      Begin = B.begin();
    if (!End || B.end() > End)
      End = B.end();
  }
  p::CharBlock block() const { return Begin ? p::CharBlock{Begin, End} : p::CharBlock{}; }
};

template <typename T> p::CharBlock spanOf(const T &Node) {
  SpanWalker W;
  p::Walk(Node, W);
  return W.block();
}

/// Labels that are targets of jumps (GOTO, computed and arithmetic IF, ASSIGN, alternate
/// returns, ERR=/END=/EOR=): control can arrive there from elsewhere, so a block cannot
/// span them.
struct TargetCollector {
  std::set<p::Label> Targets;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::GotoStmt &S) {
    Targets.insert(S.v);
    return true;
  }
  bool Pre(const p::ComputedGotoStmt &S) {
    for (p::Label L : std::get<std::list<p::Label>>(S.t))
      Targets.insert(L);
    return true;
  }
  bool Pre(const p::ArithmeticIfStmt &S) {
    Targets.insert(std::get<1>(S.t));
    Targets.insert(std::get<2>(S.t));
    Targets.insert(std::get<3>(S.t));
    return true;
  }
  bool Pre(const p::AssignStmt &S) {
    Targets.insert(std::get<p::Label>(S.t));
    return true;
  }
  bool Pre(const p::AltReturnSpec &S) {
    Targets.insert(S.v);
    return true;
  }
  bool Pre(const p::ErrLabel &S) {
    Targets.insert(S.v);
    return true;
  }
  bool Pre(const p::EndLabel &S) {
    Targets.insert(S.v);
    return true;
  }
  bool Pre(const p::EorLabel &S) {
    Targets.insert(S.v);
    return true;
  }
};

/// One procedure of the unit with a body.
struct ProcInfo {
  std::string Name;
  std::vector<std::string> Aliases; ///< ENTRY names
  const p::SpecificationPart *Spec = nullptr;
  const p::ExecutionPart *Exec = nullptr;
  p::CharBlock UnitStmt; ///< SUBROUTINE / FUNCTION / PROGRAM statement, if any
  std::string Module;    ///< the module it belongs to, if a module procedure
  bool Direct = false;   ///< calls a rewritten MPI routine itself
  std::set<std::string> Callees;
};

/// Communication facts of module procedures defined in other files: <dir>/<module>.mpiete.
class ModuleFacts {
public:
  explicit ModuleFacts(const FortranFrontendOptions &Opts) : Opts(Opts) {}
  bool communicates(const std::string &Module, const std::string &Proc) {
    auto It = Cache.find(Module);
    if (It == Cache.end()) {
      std::set<std::string> Names;
      std::vector<std::string> Dirs;
      if (!Opts.ModuleDir.empty())
        Dirs.push_back(Opts.ModuleDir);
      Dirs.insert(Dirs.end(), Opts.ModuleSearchDirs.begin(), Opts.ModuleSearchDirs.end());
      for (const std::string &D : Dirs) {
        std::ifstream IS(std::filesystem::path(D) / (Module + ".mpiete"));
        if (!IS)
          continue;
        for (std::string L; std::getline(IS, L);)
          if (!L.empty() && L[0] != '#')
            Names.insert(L);
        break;
      }
      It = Cache.emplace(Module, std::move(Names)).first;
    }
    return It->second.count(Proc) != 0;
  }

private:
  const FortranFrontendOptions &Opts;
  std::map<std::string, std::set<std::string>> Cache;
};

/// The calls one procedure makes, and whether it calls a rewritten MPI routine itself.
struct CallsWalker {
  ProcInfo &P;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  void call(const p::Call &C) {
    if (const p::Name *N = designatorName(C)) {
      std::string L = calleeName(*N);
      if (isMpiName(L)) {
        if (findRewrittenRoutine(canonicalMpi(L)))
          P.Direct = true;
      } else {
        P.Callees.insert(L);
      }
    }
  }
  bool Pre(const p::CallStmt &S) {
    call(S.call);
    return true;
  }
  bool Pre(const p::FunctionReference &R) {
    call(R.v);
    return true;
  }
  bool Pre(const p::EntryStmt &E) {
    P.Aliases.push_back(lower(std::get<p::Name>(E.t).ToString()));
    return true;
  }
};

/// Collects the procedures of the program and the calls each one makes.
class ProcedureCollector {
public:
  std::vector<ProcInfo> Procs;
  std::set<std::string> Modules; ///< modules defined in this file

  void program(const p::Program &Prog) {
    for (const p::ProgramUnit &U : Prog.v)
      Fortran::common::visit([&](const auto &X) { unit(X); }, U.u);
  }

private:
  template <typename T> void unit(const T &) {}
  void unit(const Fortran::common::Indirection<p::MainProgram> &M) {
    const auto &Stmt = std::get<std::optional<p::Statement<p::ProgramStmt>>>(M.value().t);
    std::string Name = Stmt ? lower(Stmt->statement.v.ToString()) : "main";
    add(Name, std::get<p::SpecificationPart>(M.value().t), std::get<p::ExecutionPart>(M.value().t),
        Stmt ? Stmt->source : p::CharBlock{}, "");
    internals(std::get<std::optional<p::InternalSubprogramPart>>(M.value().t), "");
  }
  void unit(const Fortran::common::Indirection<p::SubroutineSubprogram> &S) { sub(S.value(), ""); }
  void unit(const Fortran::common::Indirection<p::FunctionSubprogram> &F) { fun(F.value(), ""); }
  void unit(const Fortran::common::Indirection<p::Module> &M) {
    std::string Mod =
        lower(std::get<p::Statement<p::ModuleStmt>>(M.value().t).statement.v.ToString());
    Modules.insert(Mod);
    if (const auto &Part = std::get<std::optional<p::ModuleSubprogramPart>>(M.value().t))
      for (const p::ModuleSubprogram &S : std::get<std::list<p::ModuleSubprogram>>(Part->t))
        Fortran::common::visit([&](const auto &X) { moduleSub(X, Mod); }, S.u);
  }
  void unit(const Fortran::common::Indirection<p::Submodule> &M) {
    if (const auto &Part = std::get<std::optional<p::ModuleSubprogramPart>>(M.value().t))
      for (const p::ModuleSubprogram &S : std::get<std::list<p::ModuleSubprogram>>(Part->t))
        Fortran::common::visit([&](const auto &X) { moduleSub(X, ""); }, S.u);
  }

  template <typename T> void moduleSub(const T &, const std::string &) {}
  void moduleSub(const Fortran::common::Indirection<p::SubroutineSubprogram> &S,
                 const std::string &Mod) {
    sub(S.value(), Mod);
  }
  void moduleSub(const Fortran::common::Indirection<p::FunctionSubprogram> &F,
                 const std::string &Mod) {
    fun(F.value(), Mod);
  }
  void moduleSub(const Fortran::common::Indirection<p::SeparateModuleSubprogram> &S,
                 const std::string &Mod) {
    const auto &Stmt = std::get<p::Statement<p::MpSubprogramStmt>>(S.value().t);
    add(lower(Stmt.statement.v.ToString()), std::get<p::SpecificationPart>(S.value().t),
        std::get<p::ExecutionPart>(S.value().t), Stmt.source, Mod);
    internals(std::get<std::optional<p::InternalSubprogramPart>>(S.value().t), Mod);
  }

  void sub(const p::SubroutineSubprogram &S, const std::string &Mod) {
    const auto &Stmt = std::get<p::Statement<p::SubroutineStmt>>(S.t);
    add(lower(std::get<p::Name>(Stmt.statement.t).ToString()), std::get<p::SpecificationPart>(S.t),
        std::get<p::ExecutionPart>(S.t), Stmt.source, Mod);
    internals(std::get<std::optional<p::InternalSubprogramPart>>(S.t), Mod);
  }
  void fun(const p::FunctionSubprogram &F, const std::string &Mod) {
    const auto &Stmt = std::get<p::Statement<p::FunctionStmt>>(F.t);
    add(lower(std::get<p::Name>(Stmt.statement.t).ToString()), std::get<p::SpecificationPart>(F.t),
        std::get<p::ExecutionPart>(F.t), Stmt.source, Mod);
    internals(std::get<std::optional<p::InternalSubprogramPart>>(F.t), Mod);
  }
  void internals(const std::optional<p::InternalSubprogramPart> &Part, const std::string &) {
    if (!Part)
      return;
    for (const p::InternalSubprogram &S : std::get<std::list<p::InternalSubprogram>>(Part->t))
      Fortran::common::visit([&](const auto &X) { internal(X); }, S.u);
  }
  template <typename T> void internal(const T &) {}
  void internal(const Fortran::common::Indirection<p::SubroutineSubprogram> &S) {
    sub(S.value(), "");
  }
  void internal(const Fortran::common::Indirection<p::FunctionSubprogram> &F) {
    fun(F.value(), "");
  }

  void add(std::string Name, const p::SpecificationPart &Spec, const p::ExecutionPart &Exec,
           p::CharBlock UnitStmt, const std::string &Mod) {
    ProcInfo P;
    P.Name = std::move(Name);
    P.Spec = &Spec;
    P.Exec = &Exec;
    P.UnitStmt = UnitStmt;
    P.Module = Mod;
    CallsWalker C{P};
    p::Walk(Exec, C);
    Procs.push_back(std::move(P));
  }
};

/// Which procedures communicate, directly or through calls (a fixed point over the call graph).
class CommunicationAnalysis {
public:
  CommunicationAnalysis(const std::vector<ProcInfo> &Procs, ModuleFacts &Facts) : Facts(Facts) {
    for (const ProcInfo &P : Procs) {
      Defined.insert(P.Name);
      for (const std::string &A : P.Aliases)
        Defined.insert(A);
    }
    std::vector<bool> Comm(Procs.size());
    for (size_t I = 0; I < Procs.size(); ++I)
      Comm[I] = Procs[I].Direct;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (size_t I = 0; I < Procs.size(); ++I) {
        if (Comm[I])
          continue;
        for (size_t J = 0; J < Procs.size() && !Comm[I]; ++J) {
          if (!Comm[J])
            continue;
          bool Calls = Procs[I].Callees.count(Procs[J].Name) != 0;
          for (const std::string &A : Procs[J].Aliases)
            Calls = Calls || Procs[I].Callees.count(A) != 0;
          if (Calls) {
            Comm[I] = true;
            Changed = true;
          }
        }
      }
    }
    for (size_t I = 0; I < Procs.size(); ++I)
      if (Comm[I]) {
        Communicating.insert(Procs[I].Name);
        for (const std::string &A : Procs[I].Aliases)
          Communicating.insert(A);
      }
  }

  /// A call to a procedure of this unit, or of a module compiled earlier, that communicates.
  bool communicates(const p::Name &Callee) const {
    std::string Name = calleeName(Callee);
    if (Communicating.count(Name))
      return true;
    std::string Mod = moduleOf(Callee);
    return !Mod.empty() && !Defined.count(Name) && Facts.communicates(Mod, Name);
  }
  bool communicates(const std::string &Name) const { return Communicating.count(Name) != 0; }
  bool defined(const std::string &Name) const { return Defined.count(Name) != 0; }

private:
  ModuleFacts &Facts;
  std::set<std::string> Defined, Communicating;
};

/// What a statement contains, as far as the block partition cares.
struct StmtFacts {
  bool MpiCall = false;            ///< a rewritten MPI routine
  bool CommunicatingCall = false;  ///< a procedure that communicates
  bool Jump = false;               ///< GOTO, RETURN, STOP, EXIT, CYCLE, ERR=, alternate return...
  std::vector<std::string> Opaque; ///< callees whose bodies the unit cannot see
};

struct FactsWalker {
  const CommunicationAnalysis &CA;
  StmtFacts &F;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  void call(const p::Call &C) {
    const p::Name *N = designatorName(C);
    if (!N) {
      addOpaque("(procedure component)");
      return;
    }
    std::string L = calleeName(*N);
    if (isMpiName(L)) {
      if (findRewrittenRoutine(canonicalMpi(L)))
        F.MpiCall = true;
      return;
    }
    if (CA.communicates(*N)) {
      F.CommunicatingCall = true;
      return;
    }
    if (CA.defined(L))
      return;
    // Intrinsics are no calls worth naming.
    if (N->symbol && N->symbol->GetUltimate().attrs().test(Fortran::semantics::Attr::INTRINSIC))
      return;
    addOpaque(L);
  }
  bool Pre(const p::CallStmt &S) {
    call(S.call);
    return true;
  }
  bool Pre(const p::FunctionReference &R) {
    call(R.v);
    return true;
  }
#define MPIETE_JUMP(Type)                                                                          \
  bool Pre(const p::Type &) {                                                                      \
    F.Jump = true;                                                                                 \
    return true;                                                                                   \
  }
  MPIETE_JUMP(GotoStmt)
  MPIETE_JUMP(ComputedGotoStmt)
  MPIETE_JUMP(AssignedGotoStmt)
  MPIETE_JUMP(ArithmeticIfStmt)
  MPIETE_JUMP(ReturnStmt)
  MPIETE_JUMP(StopStmt)
  MPIETE_JUMP(FailImageStmt)
  MPIETE_JUMP(ExitStmt)
  MPIETE_JUMP(CycleStmt)
  MPIETE_JUMP(ErrLabel)
  MPIETE_JUMP(EndLabel)
  MPIETE_JUMP(EorLabel)
  MPIETE_JUMP(AltReturnSpec)
#undef MPIETE_JUMP

  void addOpaque(std::string Name) {
    if (std::find(F.Opaque.begin(), F.Opaque.end(), Name) == F.Opaque.end())
      F.Opaque.push_back(std::move(Name));
  }
};

/// The end of the last statement (in the main file) of a list of statements.
struct LastStatementWalker {
  const SourceMap &SM;
  std::optional<unsigned> &After;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &S) {
    if (auto E = SM.endOf(S.source); E && SM.beginOf(S.source))
      if (!After || *E > *After)
        After = E;
    return false;
  }
};

/// Every CALL statement under a node.
template <typename Fn> struct CallStmtFinder {
  Fn F;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::CallStmt &C) {
    F(C);
    return true;
  }
};

/// `use mpi_f08` and its profiling twin, which mpiete does not support; modules whose first
/// module file on the search path is not Flang's (gfortran's, from a build without mpiete-fc),
/// which Flang would fail to read with a flood of errors.
struct UseWalker {
  const SourceMap &SM;
  const std::vector<std::string> &Dirs;
  DiagnosticSink &Diags;
  /// Not null: a module file Flang cannot read is reported here (the first one, with where it
  /// is used) instead of as an error.
  ForeignModule *Foreign = nullptr;
  /// Modules this file defines before the current point: Flang resolves a USE of them from the
  /// file itself and never reads a module file, so gfortran's file of the same name (written
  /// by the native compile of this very file) does not matter.
  std::set<std::string> Defined;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::Module &Mod) {
    Defined.insert(lower(std::get<p::Statement<p::ModuleStmt>>(Mod.t).statement.v.ToString()));
    return true;
  }
  bool Pre(const p::UseStmt &U) {
    std::string M = lower(U.moduleName.ToString());
    if (Defined.count(M))
      return false;
    if (M == "mpi_f08" || M == "pmpi_f08") {
      Diags.error(SM.loc(U.moduleName.source),
                  "'use " + M +
                      "' is not supported: mpiete instruments programs written against "
                      "'use mpi' or 'include \"mpif.h\"'",
                  "unsupported");
      return false;
    }
    for (const std::string &D : Dirs) {
      std::filesystem::path Path = std::filesystem::path(D) / (M + ".mod");
      std::ifstream IS(Path, std::ios::binary);
      if (!IS)
        continue;
      char Head[8] = {};
      IS.read(Head, sizeof Head);
      // Flang's module files are text starting with "!mod$" (after a byte-order mark).
      std::string_view H(Head, static_cast<size_t>(IS.gcount()));
      if (H.find("!mod$") != std::string_view::npos)
        break;
      if (Foreign) {
        if (Foreign->Module.empty())
          *Foreign = {M, Path.string(), SM.loc(U.moduleName.source)};
      } else {
        Diags.error(SM.loc(U.moduleName.source),
                    "module '" + M + "': '" + Path.string() +
                        "' is not a Flang module file (built by gfortran without mpiete-fc?); "
                        "compile the file that defines the module with mpiete-fc first",
                    "module");
      }
      break;
    }
    return false;
  }
};

/// Partitions the bodies of communicating procedures into blocks and records every MPI call.
class UnitBuilder {
public:
  UnitBuilder(const SourceMap &SM, const std::string &Main, const CommunicationAnalysis &CA,
              const FortranFrontendOptions &Opts, UnitModel &Model, DiagnosticSink &Diags)
      : SM(SM), Main(Main), CA(CA), Opts(Opts), Model(Model), Diags(Diags),
        Segments(Opts.Mode == Partition::Segments) {}

  void procedure(const ProcInfo &P) {
    Procedure = P.Name;
    Model.Procedures.push_back(Procedure);
    LoopStack.clear();
    TerminalStack.clear();
    Counters.clear();
    TargetCollector TC;
    p::Walk(*P.Exec, TC);
    Targets = std::move(TC.Targets);
    sequence(P.Exec->v, std::nullopt);
    if (!Counters.empty())
      counterDecl(P);
  }

private:
  // ---- classification ----------------------------------------------------------------------

  template <typename T> StmtFacts facts(const T &Node) const {
    StmtFacts F;
    FactsWalker W{CA, F};
    p::Walk(Node, W);
    return F;
  }
  static StmtTraits traitsOf(const StmtFacts &F) {
    StmtTraits T;
    T.Communicates = F.MpiCall || F.CommunicatingCall;
    T.Jumps = F.Jump;
    return T;
  }

  /// An action statement for the partition policy: a jump target (or the terminal statement of
  /// an enclosing labelled DO, Terminal) is entered from elsewhere; CONTINUE executes nothing.
  StmtTraits actionTraits(const p::Statement<p::ActionStmt> &S, const StmtFacts &F,
                          std::optional<p::Label> Terminal) const {
    StmtTraits T = traitsOf(F);
    T.Entered = S.label && (Targets.count(*S.label) || (Terminal && *S.label == *Terminal));
    T.NoCode = std::holds_alternative<p::ContinueStmt>(S.statement.u);
    return T;
  }

  /// Any other construct: DO, IF and SELECT CASE are the partition's loops and branches;
  /// WHERE, FORALL and the others compute like one statement when nothing in them
  /// communicates or jumps; a compiler directive binds to the statement after it.
  StmtTraits constructTraits(const p::ExecutableConstruct &EC, StmtFacts &F) const {
    using Fortran::common::Indirection;
    F = Fortran::common::visit([&](const auto &X) { return facts(X); }, EC.u);
    StmtTraits T = traitsOf(F);
    T.Directive = std::holds_alternative<Indirection<p::CompilerDirective>>(EC.u);
    T.Structured = std::holds_alternative<Indirection<p::DoConstruct>>(EC.u) ||
                   std::holds_alternative<Indirection<p::IfConstruct>>(EC.u) ||
                   std::holds_alternative<Indirection<p::CaseConstruct>>(EC.u);
    return T;
  }

  /// ENTRY, and what the parser could not read: control may arrive there from outside.
  static bool isEntry(const p::ExecutionPartConstruct &EPC) {
    return std::holds_alternative<p::Statement<Fortran::common::Indirection<p::EntryStmt>>>(
               EPC.u) ||
           std::holds_alternative<p::ErrorRecovery>(EPC.u);
  }

  // ---- the partition ---------------------------------------------------------------------

  struct Run {
    std::vector<p::CharBlock> Stmts;
    std::vector<StmtTraits> Traits;
    std::vector<std::string> Opaque;
    bool empty() const { return Stmts.empty(); }
  };

  void sequence(const p::Block &B, std::optional<p::Label> Terminal) {
    Run R;
    for (const p::ExecutionPartConstruct &EPC : B) {
      if (const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u)) {
        construct(*EC, R, Terminal);
      } else if (isEntry(EPC)) {
        // ENTRY: control arrives here from outside; a block cannot span it.
        flush(R);
      }
      // FORMAT, DATA, NAMELIST: not executed; they do not break a run.
    }
    flush(R);
  }

  void construct(const p::ExecutableConstruct &EC, Run &R, std::optional<p::Label> Terminal) {
    if (const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC.u)) {
      action(*S, R, Terminal);
      return;
    }
    p::CharBlock Span = Fortran::common::visit([&](const auto &X) { return spanOf(X); }, EC.u);
    StmtFacts F;
    StmtTraits T = constructTraits(EC, F);
    if (Segments && !T.Communicates)
      return; // nothing to rewrite, and no hooks where no MPI call runs
    if (Policy.isComputation(T) && !Span.empty()) {
      add(R, Span, T, F);
      return;
    }
    flush(R);
    if (const auto *D = std::get_if<Fortran::common::Indirection<p::DoConstruct>>(&EC.u)) {
      loop(D->value());
      return;
    }
    if (const auto *I = std::get_if<Fortran::common::Indirection<p::IfConstruct>>(&EC.u)) {
      const p::IfConstruct &If = I->value();
      sequence(std::get<p::Block>(If.t), std::nullopt);
      for (const auto &EI : std::get<std::list<p::IfConstruct::ElseIfBlock>>(If.t))
        sequence(std::get<p::Block>(EI.t), std::nullopt);
      if (const auto &E = std::get<std::optional<p::IfConstruct::ElseBlock>>(If.t))
        sequence(std::get<p::Block>(E->t), std::nullopt);
      return;
    }
    if (const auto *C = std::get_if<Fortran::common::Indirection<p::CaseConstruct>>(&EC.u)) {
      for (const auto &Case : std::get<std::list<p::CaseConstruct::Case>>(C->value().t))
        sequence(std::get<p::Block>(Case.t), std::nullopt);
      return;
    }
    if (T.Directive || !T.Communicates)
      return;
    using Fortran::common::Indirection;
    if (std::holds_alternative<Indirection<p::WhereConstruct>>(EC.u) ||
        std::holds_alternative<Indirection<p::ForallConstruct>>(EC.u)) {
      Fortran::common::visit([&](const auto &X) { collectCalls(X); }, EC.u);
      return;
    }
    // Constructs whose blocks run like a sequence of statements: partition them in place.
    if (const auto *A = std::get_if<Indirection<p::AssociateConstruct>>(&EC.u)) {
      sequence(std::get<p::Block>(A->value().t), std::nullopt);
      return;
    }
    if (const auto *B = std::get_if<Indirection<p::BlockConstruct>>(&EC.u)) {
      sequence(std::get<p::Block>(B->value().t), std::nullopt);
      return;
    }
    if (const auto *C = std::get_if<Indirection<p::CriticalConstruct>>(&EC.u)) {
      sequence(std::get<p::Block>(C->value().t), std::nullopt);
      return;
    }
    if (const auto *T = std::get_if<Indirection<p::SelectTypeConstruct>>(&EC.u)) {
      for (const auto &Case : std::get<std::list<p::SelectTypeConstruct::TypeCase>>(T->value().t))
        sequence(std::get<p::Block>(Case.t), std::nullopt);
      return;
    }
    if (const auto *R = std::get_if<Indirection<p::SelectRankConstruct>>(&EC.u)) {
      for (const auto &Case : std::get<std::list<p::SelectRankConstruct::RankCase>>(R->value().t))
        sequence(std::get<p::Block>(Case.t), std::nullopt);
      return;
    }
    Diags.error(SM.loc(Span),
                "MPI communication inside this construct (CHANGE TEAM, OpenMP or OpenACC) is "
                "not supported",
                "unsupported");
  }

  void action(const p::Statement<p::ActionStmt> &S, Run &R, std::optional<p::Label> Terminal) {
    // A jump target or the terminal statement of a labelled DO keeps its label and stays
    // outside every block: a hook before it would be skipped by the jump (or, for the
    // terminal, land outside the loop) and leave the timing unbalanced.
    StmtFacts F = facts(S.statement);
    StmtTraits T = actionTraits(S, F, Terminal);
    if (Policy.isComputation(T)) {
      add(R, S.source, T, F);
      return;
    }
    flush(R);
    collectCalls(S);
  }

  void add(Run &R, p::CharBlock Src, const StmtTraits &T, const StmtFacts &F) {
    R.Stmts.push_back(Src);
    R.Traits.push_back(T);
    for (const std::string &N : F.Opaque)
      if (std::find(R.Opaque.begin(), R.Opaque.end(), N) == R.Opaque.end())
        R.Opaque.push_back(N);
  }

  void flush(Run &R) {
    if (R.empty())
      return;
    Run Cur = std::move(R);
    R = Run();
    if (Segments)
      return; // computation is timed between MPI calls by the runtime
    // Leading and trailing CONTINUE statements are no work (BlockPartition.h).
    BlockRange Range = Policy.blockOf(Cur.Traits);
    if (Range.empty())
      return; // only CONTINUE: no work, no block
    p::CharBlock B = Cur.Stmts[Range.First], E = Cur.Stmts[Range.Last - 1];
    auto Begin = SM.beginOf(B);
    auto End = SM.endOf(E);
    if (!Begin || !End || *End < *Begin) {
      Diags.error(SM.loc(B),
                  "statements of procedure '" + Procedure +
                      "' that come from an included file or a macro cannot be instrumented",
                  "unsupported");
      return;
    }
    ComputeEdits CE;
    CE.Begin = *Begin;
    CE.End = *End;
    Block Blk = newBlock(BlockKind::Compute, B, E);
    Blk.OpaqueCalls = Cur.Opaque;
    Blk.Compute = Model.Computes.size();
    Model.Computes.push_back(CE);
    Model.Blocks.push_back(std::move(Blk));
  }

  void loop(const p::DoConstruct &D) {
    const auto &DoS = std::get<p::Statement<p::NonLabelDoStmt>>(D.t);
    const p::Block &Body = std::get<p::Block>(D.t);
    std::optional<p::Label> Lab = doLabel(DoS);

    LoopInfo Info;
    Info.Kind = D.IsDoWhile() ? "do-while" : D.IsDoConcurrent() ? "do-concurrent" : "do";
    Info.Procedure = Procedure;
    DiagLoc L = SM.loc(DoS.source);
    Info.Line = L.Line;
    Info.Col = L.Col;
    Info.Parent = LoopStack.empty() ? -1 : static_cast<int>(LoopStack.back());
    unsigned LoopIndex = Model.Loops.size();
    Model.Loops.push_back(Info);

    if (Segments)
      loopSite(D, DoS, Lab);
    else if (wholeLoop(D, DoS, Body, Lab, LoopIndex))
      return;
    LoopStack.push_back(LoopIndex);
    TerminalStack.push_back(Lab);
    sequence(Body, Lab);
    TerminalStack.pop_back();
    LoopStack.pop_back();
  }

  /// The label of a labelled DO (`DO 10 I = 1, N`), which canonicalization turned into a DO
  /// construct: read from the statement's cooked text, where digits right after DO can only
  /// be a label.
  static std::optional<p::Label> doLabel(const p::Statement<p::NonLabelDoStmt> &S) {
    if (auto L = std::get<std::optional<p::Label>>(S.statement.t))
      return L;
    std::string_view T(S.source.begin(), S.source.size());
    size_t I = 0;
    if (std::get<std::optional<p::Name>>(S.statement.t)) {
      size_t Colon = T.find(':');
      if (Colon == std::string_view::npos)
        return std::nullopt;
      I = Colon + 1;
    }
    while (I < T.size() && T[I] == ' ')
      ++I;
    if (T.substr(I, 2) != "do")
      return std::nullopt;
    I += 2;
    while (I < T.size() && T[I] == ' ')
      ++I;
    p::Label L = 0;
    size_t Digits = 0;
    while (I < T.size() && std::isdigit(static_cast<unsigned char>(T[I]))) {
      L = L * 10 + (T[I++] - '0');
      ++Digits;
    }
    return Digits ? std::optional<p::Label>(L) : std::nullopt;
  }

  /// Segments: a DO loop that contains MPI calls is a site of kind loop: its iteration hook
  /// goes after the DO statement, its exit hook after the loop's last statement, except when
  /// that statement is the terminal statement an enclosing labelled DO shares (`do 10 j` /
  /// `do 10 i` / `10 continue`): there is no place after the inner loop only, and the runtime
  /// discovers the exit lazily.
  void loopSite(const p::DoConstruct &D, const p::Statement<p::NonLabelDoStmt> &DoS,
                std::optional<p::Label> Lab) {
    p::CharBlock Span = spanOf(D);
    auto LB = SM.beginOf(DoS.source), BB = SM.endOf(DoS.source), LE = SM.endOf(Span);
    if (!LB || !BB || !LE || *LB >= *BB || *BB > *LE)
      return; // from an included file or a macro: no hooks
    bool Shared =
        Lab && std::find(TerminalStack.begin(), TerminalStack.end(), Lab) != TerminalStack.end();
    ComputeEdits E;
    E.LoopBegin = E.Begin = *LB;
    E.BodyBegin = *BB;
    E.LoopEnd = E.End = E.BodyEnd = Shared ? 0 : *LE;
    Block B = newBlock(BlockKind::Loop, DoS.source, Span);
    B.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
  }

  /// Seed 004 section 3.1.1: a loop whose body is exactly one compute block is timed whole.
  bool wholeLoop(const p::DoConstruct &D, const p::Statement<p::NonLabelDoStmt> &DoS,
                 const p::Block &Body, std::optional<p::Label> Lab, unsigned LoopIndex) {
    // A terminal statement shared with an enclosing labelled DO ends both loops on one line:
    // there is no place after the inner loop only.
    if (Lab && std::find(TerminalStack.begin(), TerminalStack.end(), Lab) != TerminalStack.end())
      return false;
    // A DO's control is no work of the program's: a DO of only CONTINUE is no block. A jump
    // to the DO statement would skip the hooks before it.
    StmtTraits Header = traitsOf(facts(DoS.statement));
    Header.Entered = DoS.label && Targets.count(*DoS.label);
    Header.NoCode = true;
    std::vector<StmtTraits> Traits;
    std::vector<std::string> Opaque;
    for (const p::ExecutionPartConstruct &EPC : Body) {
      const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u);
      StmtFacts F;
      if (!EC) {
        if (isEntry(EPC))
          Traits.push_back(StmtTraits{.Entered = true});
        continue; // FORMAT, DATA, NAMELIST: not executed
      }
      // The loop's own terminal statement is inside the whole loop's hooks.
      if (const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC->u))
        Traits.push_back(actionTraits(*S, F = facts(S->statement), std::nullopt));
      else
        Traits.push_back(constructTraits(*EC, F));
      for (std::string &N : F.Opaque)
        if (std::find(Opaque.begin(), Opaque.end(), N) == Opaque.end())
          Opaque.push_back(std::move(N));
    }
    if (!Policy.timedWhole(Header, Traits))
      return false;
    p::CharBlock Span = spanOf(D);
    auto LB = SM.beginOf(DoS.source), BB = SM.endOf(DoS.source), LE = SM.endOf(Span);
    if (!LB || !BB || !LE || *LB >= *BB || *BB > *LE)
      return false;
    ComputeEdits E;
    E.WholeLoop = true;
    E.LoopBegin = E.Begin = *LB;
    E.LoopEnd = E.End = *LE;
    E.BodyBegin = *BB;
    E.BodyEnd = *LE;
    LoopStack.push_back(LoopIndex);
    Block B = newBlock(BlockKind::Compute, DoS.source, Span);
    LoopStack.pop_back();
    B.WholeLoop = true;
    B.OpaqueCalls = std::move(Opaque);
    B.Compute = Model.Computes.size();
    Counters.push_back(B.Index);
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
    return true;
  }

  /// The counters go at the end of the USE / IMPORT / IMPLICIT statements, which every
  /// declaration may follow; without those, after the procedure's first statement.
  void counterDecl(const ProcInfo &P) {
    CounterDecl D;
    D.Blocks = Counters;
    std::optional<unsigned> After;
    LastStatementWalker W{SM, After};
    const p::SpecificationPart &Spec = *P.Spec;
    p::Walk(std::get<std::list<p::Statement<Fortran::common::Indirection<p::UseStmt>>>>(Spec.t), W);
    p::Walk(std::get<std::list<p::Statement<Fortran::common::Indirection<p::ImportStmt>>>>(Spec.t),
            W);
    p::Walk(std::get<p::ImplicitPart>(Spec.t), W);
    if (!After)
      After = SM.endOf(P.UnitStmt);
    if (After) {
      D.Offset = *After;
      D.After = true;
    } else {
      // A main program without a PROGRAM statement: before its first statement.
      p::CharBlock First = spanOf(Spec);
      if (First.empty())
        First = spanOf(*P.Exec);
      auto B = SM.beginOf(First);
      if (!B) {
        Diags.error(SM.loc(First),
                    "cannot find where to declare the loop counters of procedure '" + Procedure +
                        "'",
                    "unsupported");
        return;
      }
      D.Offset = *B;
      D.After = false;
    }
    Model.CounterDecls.push_back(std::move(D));
  }

  Block newBlock(BlockKind K, p::CharBlock Begin, p::CharBlock End) {
    Block B;
    B.Index = Model.Blocks.size();
    B.Kind = K;
    B.Procedure = Procedure;
    DiagLoc L = SM.loc(Begin);
    B.File = L.File;
    B.BeginLine = L.Line;
    B.BeginCol = L.Col;
    B.EndLine = SM.line(End, true);
    B.Loops = LoopStack;
    return B;
  }

  // ---- MPI call sites --------------------------------------------------------------------

  template <typename T> void collectCalls(const T &Node) {
    auto Fn = [this](const p::CallStmt &C) { site(C); };
    CallStmtFinder<decltype(Fn)> F{Fn};
    p::Walk(Node, F);
  }

  void site(const p::CallStmt &C) {
    const p::Name *N = designatorName(C.call);
    if (!N)
      return;
    std::string L = calleeName(*N);
    if (!isMpiName(L))
      return;
    std::string Name = canonicalMpi(L);
    const MpiRoutineInfo *Info = findRewrittenRoutine(Name);
    if (!Info)
      return; // local, passed through or rejected: reported by the checker
    auto NB = SM.beginOf(N->source), NE = SM.endOf(N->source);
    bool Written = NB && NE && *NE - *NB == N->source.size() &&
                   lower(std::string_view(Main).substr(*NB, *NE - *NB)) == N->ToString();
    if (!Written) {
      Diags.error(SM.loc(N->source),
                  "the name of this call to '" + Name +
                      "' is split across lines, comes from an included file or a macro; "
                      "mpiete can only rewrite names written whole in the source file",
                  "unsupported");
      return;
    }
    // The '(' after the name, in the cooked text (blanks are insignificant in fixed form).
    const char *Q = N->source.end();
    const char *StmtEnd = C.source.end();
    while (Q < StmtEnd && *Q == ' ')
      ++Q;
    std::optional<unsigned> LParen = Q < StmtEnd && *Q == '(' ? SM.offsetOf(Q) : std::nullopt;
    if (!LParen || Main[*LParen] != '(') {
      Diags.error(SM.loc(N->source), "cannot find the argument list of this call to '" + Name + "'",
                  "unsupported");
      return;
    }
    const char *A = Q + 1;
    while (A < StmtEnd && *A == ' ')
      ++A;

    CallSite CS;
    CS.Routine = Name;
    CS.RuntimeName = std::string(Info->RuntimeName);
    CS.Role = Info->Role;
    CS.FirstBlock = Model.Blocks.size();
    CS.Edits.CalleeBegin = *NB;
    CS.Edits.CalleeEnd = *NE;
    CS.Edits.ArgsBegin = *LParen + 1;
    CS.Edits.HasArgs = !(A < StmtEnd && *A == ')');
    unsigned SiteIndex = Model.Sites.size();
    Model.Sites.push_back(CS);

    std::string Text = callText(*N, C);
    unsigned Count = blocksForRole(Info->Role);
    for (unsigned I = 0; I < Count; ++I) {
      RoleBlock RB = roleBlock(Info->Role, I);
      Block B = newBlock(RB.Kind, N->source, C.source);
      B.Phase = RB.Phase;
      B.Routine = Name;
      B.CallText = Text;
      B.Site = SiteIndex;
      Model.Blocks.push_back(std::move(B));
    }
  }

  /// The call as written, on one line: continuation marks and comments removed.
  std::string callText(const p::Name &N, const p::CallStmt &C) const {
    auto B = SM.beginOf(N.source), E = SM.endOf(C.source);
    if (!B || !E || *E <= *B)
      return N.ToString();
    std::string Raw = Main.substr(*B, *E - *B), Out;
    bool Space = false, LineStart = false, InComment = false;
    unsigned Col = 0;
    char Quote = 0;
    for (size_t I = 0; I < Raw.size(); ++I) {
      char Ch = Raw[I];
      if (Ch == '\n') {
        LineStart = true;
        InComment = false;
        Col = 0;
        Space = true;
        continue;
      }
      ++Col;
      if (LineStart) {
        if (Opts.FixedForm) {
          if (Col <= 6)
            continue; // label field and continuation mark
          LineStart = false;
        } else if (Ch == ' ' || Ch == '\t') {
          continue;
        } else {
          LineStart = false;
          if (Ch == '&')
            continue;
        }
      }
      if (InComment)
        continue;
      if (!Quote && Ch == '!') {
        InComment = true;
        continue;
      }
      if (!Opts.FixedForm && !Quote && Ch == '&')
        continue;
      if (Ch == '\'' || Ch == '"')
        Quote = Quote == Ch ? 0 : (Quote ? Quote : Ch);
      if (!Quote && (Ch == ' ' || Ch == '\t' || Ch == '\r')) {
        Space = true;
        continue;
      }
      if (Space && !Out.empty() && Out.back() != '(' && Ch != ')' && Ch != ',')
        Out += ' ';
      Space = false;
      Out += Ch;
    }
    return Out;
  }

  const SourceMap &SM;
  const std::string &Main;
  const CommunicationAnalysis &CA;
  const FortranFrontendOptions &Opts;
  UnitModel &Model;
  DiagnosticSink &Diags;
  std::string Procedure;
  std::vector<unsigned> LoopStack;
  std::vector<std::optional<p::Label>> TerminalStack;
  std::set<p::Label> Targets;
  std::vector<uint32_t> Counters;
  /// Fortran's partition is seed 004's: every DO, IF and SELECT CASE ends a compute block.
  PartitionPolicy Policy{/*SeedBlocks=*/true};
  bool Segments; ///< no compute blocks: only DO loops with MPI calls get (iteration) hooks
};

/// Reports MPI routines that cannot be rewritten: unsupported ones and profiling entry points.
class MpiUseChecker {
public:
  MpiUseChecker(const SourceMap &SM, const CommunicationAnalysis &CA,
                const FortranFrontendOptions &Opts, UnitModel &Model, DiagnosticSink &Diags)
      : SM(SM), CA(CA), Opts(Opts), Model(Model), Diags(Diags) {}

  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::CallStmt &C) {
    check(C.call);
    return true;
  }
  bool Pre(const p::FunctionReference &R) {
    check(R.v);
    return true;
  }

private:
  void check(const p::Call &C) {
    const p::Name *N = designatorName(C);
    if (!N)
      return;
    std::string L = calleeName(*N);
    if (!isMpiName(L) || CA.defined(L))
      return;
    std::string Name = canonicalMpi(L);
    if (findRewrittenRoutine(Name) || isLocalRoutine(Name))
      return;
    diagnoseUnhandledRoutine(Name, SM.loc(N->source), Opts.PassThrough, Opts.PassThroughAll, Model,
                             Diags);
  }

  const SourceMap &SM;
  const CommunicationAnalysis &CA;
  const FortranFrontendOptions &Opts;
  UnitModel &Model;
  DiagnosticSink &Diags;
};

} // namespace

bool checkFortranParseTree(p::Parsing &Parsing, const FortranFrontendOptions &Opts,
                           DiagnosticSink &Diags, ForeignModule *Foreign) {
  if (!Parsing.parseTree())
    return true;
  std::string Unit = Opts.UnitPath;
  SourceMap SM(Parsing.allCooked(), Unit);
  if (Unit.empty() && SM.main())
    Unit = SM.main()->path();
  unsigned Before = Diags.errorCount();
  std::vector<std::string> Dirs;
  if (!Opts.ModuleDir.empty())
    Dirs.push_back(Opts.ModuleDir);
  Dirs.insert(Dirs.end(), Opts.ModuleSearchDirs.begin(), Opts.ModuleSearchDirs.end());
  UseWalker W{SM, Dirs, Diags, Foreign};
  p::Walk(*Parsing.parseTree(), W);
  return Diags.errorCount() == Before;
}

/// Adds to the content hash every other user file the unit reads (INCLUDE lines, #include), in
/// order of first appearance, so that editing an include file changes the block map's
/// fingerprint as editing the main file does. Files under /usr (Open MPI's mpif.h) and module
/// files are not the user's text: a module's own source has its own unit.
static void hashIncludedFiles(const p::AllSources &All, const p::SourceFile *Main, Fnv1a64 &H) {
  std::vector<const p::SourceFile *> Seen{Main};
  for (std::size_t At = 1; All.IsValid(p::Provenance{At});) {
    std::size_t Off = 0;
    const p::SourceFile *F = All.GetSourceFile(p::Provenance{At}, &Off);
    if (!F || Off >= F->bytes()) {
      ++At;
      continue;
    }
    At += F->bytes() - Off;
    if (std::find(Seen.begin(), Seen.end(), F) != Seen.end())
      continue;
    Seen.push_back(F);
    llvm::StringRef Path(F->path());
    if (Path.starts_with("/usr/") || Path.ends_with(".mod"))
      continue;
    llvm::ArrayRef<char> Text = F->content();
    H.field(std::string_view(Text.data(), Text.size()));
  }
}

bool analyzeFortran(p::Parsing &Parsing, const FortranFrontendOptions &Opts, UnitModel &Model,
                    std::string &MainText, DiagnosticSink &Diags) {
  unsigned Before = Diags.errorCount();
  std::string UnitPath = Opts.UnitPath;
  SourceMap Probe(Parsing.allCooked(), UnitPath);
  if (!Probe.main() || !Parsing.parseTree()) {
    Diags.error({UnitPath, 0, 0}, "Flang produced no parse tree for this file", "parse");
    return false;
  }
  if (UnitPath.empty())
    UnitPath = Probe.main()->path();
  SourceMap SM(Parsing.allCooked(), UnitPath);
  llvm::ArrayRef<char> Content = SM.main()->content();
  MainText.assign(Content.begin(), Content.end());

  Model.Source = UnitPath;
  Model.Language = "fortran";
  Model.Defines = Opts.Defines;
  Model.UnitId = computeUnitId(Model.Source, Model.Defines);
  Model.FixedForm = Opts.FixedForm;
  Model.FixedColumns = Opts.FixedColumns;
  Fnv1a64 H;
  H.field(MainText);
  hashIncludedFiles(Parsing.allCooked().allSources(), SM.main(), H);
  Model.ContentHash = H.value();

  const p::Program &Prog = *Parsing.parseTree();
  ProcedureCollector PC;
  PC.program(Prog);
  ModuleFacts Facts(Opts);
  CommunicationAnalysis CA(PC.Procs, Facts);

  MpiUseChecker Checker(SM, CA, Opts, Model, Diags);
  p::Walk(Prog, Checker);

  UnitBuilder Builder(SM, MainText, CA, Opts, Model, Diags);
  for (const ProcInfo &P : PC.Procs) {
    if (!CA.communicates(P.Name))
      continue;
    auto B = SM.beginOf(spanOf(*P.Exec));
    if (!B && !spanOf(*P.Exec).empty())
      continue; // a procedure from an included file: its MPI calls cannot be rewritten
    Builder.procedure(P);
  }

  // Module procedures that communicate, for the units that use these modules.
  if (!Opts.ModuleDir.empty())
    for (const std::string &Mod : PC.Modules) {
      std::string Text = "# mpiete: procedures of module '" + Mod + "' that communicate\n";
      for (const ProcInfo &P : PC.Procs)
        if (P.Module == Mod && CA.communicates(P.Name))
          Text += P.Name + "\n";
      std::filesystem::path Path = std::filesystem::path(Opts.ModuleDir) / (Mod + ".mpiete");
      std::ofstream OS(Path);
      OS << Text;
      if (!OS)
        Diags.error({Path.string(), 0, 0}, "cannot write module facts", "driver");
    }
  return Diags.errorCount() == Before;
}

} // namespace mpiete
