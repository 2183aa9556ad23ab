// Builds the program model of a Fortran unit from Flang's parse tree (after semantics): which
// procedures communicate (here), how their bodies split into compute blocks (seed 004 section
// 2.3.2, FortranBlocks.cpp), and every MPI call site, with byte offsets into the original file
// found through provenance.
#include "FortranAnalysis.h"
#include "FortranSlice.h"

#include "mpiete/frontend/FortranSkeleton.h"

#include "mpiete/support/Hash.h"

#include <filesystem>
#include <fstream>
#include <map>

namespace mpiete {
using namespace fortran;

namespace fortran {

/// Communication facts of module procedures defined in other files: <dir>/<module>.mpiete, a
/// line per procedure that communicates, and `? name` per one that may, through calls its unit
/// could not see.
class ModuleFacts {
public:
  explicit ModuleFacts(const FortranFrontendOptions &Opts) : Opts(Opts) {}
  bool communicates(const std::string &Module, const std::string &Proc) {
    return facts(Module).Communicating.count(Proc) != 0;
  }
  bool hides(const std::string &Module, const std::string &Proc) {
    return facts(Module).Hiding.count(Proc) != 0;
  }
  /// The module's facts were found (it was compiled with mpiete-fc).
  bool known(const std::string &Module) {
    facts(Module);
    return Found.count(Module) != 0;
  }

private:
  struct Names {
    std::set<std::string> Communicating, Hiding;
  };
  const Names &facts(const std::string &Module) {
    auto It = Cache.find(Module);
    if (It == Cache.end()) {
      Names N;
      std::vector<std::string> Dirs;
      if (!Opts.ModuleDir.empty())
        Dirs.push_back(Opts.ModuleDir);
      Dirs.insert(Dirs.end(), Opts.ModuleSearchDirs.begin(), Opts.ModuleSearchDirs.end());
      for (const std::string &D : Dirs) {
        std::ifstream IS(std::filesystem::path(D) / (Module + ".mpiete"));
        if (!IS)
          continue;
        for (std::string L; std::getline(IS, L);)
          if (L.rfind("? ", 0) == 0)
            N.Hiding.insert(L.substr(2));
          else if (!L.empty() && L[0] != '#')
            N.Communicating.insert(L);
        Found.insert(Module);
        break;
      }
      It = Cache.emplace(Module, std::move(N)).first;
    }
    return It->second;
  }

  const FortranFrontendOptions &Opts;
  std::map<std::string, Names> Cache;
  std::set<std::string> Found;
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
        Stmt ? Stmt->source : p::CharBlock{}, "", Stmt ? Stmt->statement.v.symbol : nullptr);
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
        std::get<p::ExecutionPart>(S.value().t), Stmt.source, Mod, Stmt.statement.v.symbol);
    // Its prefixes are its interface's: the symbol has them.
    if (const Fortran::semantics::Symbol *Sym = Stmt.statement.v.symbol) {
      using Fortran::semantics::Attr;
      const Fortran::semantics::Attrs &A = Sym->GetUltimate().attrs();
      Procs.back().Pure = A.test(Attr::PURE) || (A.test(Attr::ELEMENTAL) && !A.test(Attr::IMPURE));
    }
    internals(std::get<std::optional<p::InternalSubprogramPart>>(S.value().t), Mod);
  }

  void sub(const p::SubroutineSubprogram &S, const std::string &Mod) {
    const auto &Stmt = std::get<p::Statement<p::SubroutineStmt>>(S.t);
    add(lower(std::get<p::Name>(Stmt.statement.t).ToString()), std::get<p::SpecificationPart>(S.t),
        std::get<p::ExecutionPart>(S.t), Stmt.source, Mod,
        std::get<p::Name>(Stmt.statement.t).symbol);
    Procs.back().Pure = pure(std::get<std::list<p::PrefixSpec>>(Stmt.statement.t));
    internals(std::get<std::optional<p::InternalSubprogramPart>>(S.t), Mod);
  }
  void fun(const p::FunctionSubprogram &F, const std::string &Mod) {
    const auto &Stmt = std::get<p::Statement<p::FunctionStmt>>(F.t);
    add(lower(std::get<p::Name>(Stmt.statement.t).ToString()), std::get<p::SpecificationPart>(F.t),
        std::get<p::ExecutionPart>(F.t), Stmt.source, Mod,
        std::get<p::Name>(Stmt.statement.t).symbol);
    Procs.back().Pure = pure(std::get<std::list<p::PrefixSpec>>(Stmt.statement.t));
    internals(std::get<std::optional<p::InternalSubprogramPart>>(F.t), Mod);
  }
  /// PURE, or ELEMENTAL without IMPURE.
  static bool pure(const std::list<p::PrefixSpec> &Prefixes) {
    auto Has = [&Prefixes](auto Kind) {
      return std::any_of(Prefixes.begin(), Prefixes.end(), [](const p::PrefixSpec &S) {
        return std::holds_alternative<decltype(Kind)>(S.u);
      });
    };
    return Has(p::PrefixSpec::Pure{}) ||
           (Has(p::PrefixSpec::Elemental{}) && !Has(p::PrefixSpec::Impure{}));
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
           p::CharBlock UnitStmt, const std::string &Mod, const Fortran::semantics::Symbol *Unit) {
    ProcInfo P;
    P.Scope = Unit ? Unit->scope() : nullptr;
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

/// Marks every procedure that calls a marked one (through its name or an ENTRY's), to a fixed
/// point over the call graph.
static void markCallers(const std::vector<ProcInfo> &Procs, std::vector<bool> &Marked) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I < Procs.size(); ++I) {
      if (Marked[I])
        continue;
      for (size_t J = 0; J < Procs.size() && !Marked[I]; ++J) {
        if (!Marked[J])
          continue;
        bool Calls = Procs[I].Callees.count(Procs[J].Name) != 0;
        for (const std::string &A : Procs[J].Aliases)
          Calls = Calls || Procs[I].Callees.count(A) != 0;
        if (Calls) {
          Marked[I] = true;
          Changed = true;
        }
      }
    }
  }
}

CommunicationAnalysis::CommunicationAnalysis(const std::vector<ProcInfo> &Procs, ModuleFacts &Facts)
    : Facts(Facts) {
  for (const ProcInfo &P : Procs) {
    Defined.insert(P.Name);
    for (const std::string &A : P.Aliases)
      Defined.insert(A);
  }
  auto Insert = [&Procs](const std::vector<bool> &Marked, std::set<std::string> &Into) {
    for (size_t I = 0; I < Procs.size(); ++I)
      if (Marked[I]) {
        Into.insert(Procs[I].Name);
        Into.insert(Procs[I].Aliases.begin(), Procs[I].Aliases.end());
      }
  };
  std::vector<bool> Comm(Procs.size());
  for (size_t I = 0; I < Procs.size(); ++I)
    Comm[I] = Procs[I].Direct;
  markCallers(Procs, Comm);
  Insert(Comm, Communicating);
  // What the unit cannot see, once what communicates is known (FactsWalker asks).
  std::vector<bool> Hide(Procs.size());
  for (size_t I = 0; I < Procs.size(); ++I) {
    StmtFacts F;
    FactsWalker W{*this, F};
    p::Walk(*Procs[I].Exec, W);
    Hide[I] = !Comm[I] && (F.HiddenCall || F.HiddenFunction);
  }
  markCallers(Procs, Hide);
  for (size_t I = 0; I < Procs.size(); ++I)
    Hide[I] = Hide[I] && !Comm[I];
  Insert(Hide, Hiding);
}

bool CommunicationAnalysis::communicates(const p::Name &Callee) const {
  std::string Name = calleeName(Callee);
  if (Communicating.count(Name))
    return true;
  std::string Mod = moduleOf(Callee);
  return !Mod.empty() && !Defined.count(Name) && Facts.communicates(Mod, Name);
}

bool CommunicationAnalysis::silent(const p::Name &Callee) const {
  const std::string Name = calleeName(Callee), Mod = moduleOf(Callee);
  return !Mod.empty() && !Defined.count(Name) && Facts.known(Mod) &&
         !Facts.communicates(Mod, Name) && !Facts.hides(Mod, Name);
}

} // namespace fortran

namespace {

/// `use pmpi_f08`, which mpiete does not support; modules whose first
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
    if (M == "pmpi_f08") {
      Diags.error(SM.loc(U.moduleName.source),
                  "'use pmpi_f08' is not supported: mpiete instruments programs written against "
                  "'use mpi_f08', 'use mpi' or 'include \"mpif.h\"'",
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

/// Makes a trailing `ierror=` of a rewritten MPI routine's call positional (before semantics,
/// so the name is the one written: a routine renamed on its USE keeps its keyword and Flang
/// rejects it, and mpiete-fc builds that file natively).
struct ErrorKeywordEraser {
  template <typename T> bool Pre(T &) { return true; }
  template <typename T> void Post(T &) {}
  void Post(p::Call &C) {
    const p::Name *N = designatorName(C);
    if (!N)
      return;
    const std::string Called = lower(N->ToString());
    if (!isMpiName(Called) || !findRewrittenRoutine(canonicalMpi(Called)))
      return;
    auto &Actuals = std::get<std::list<p::ActualArgSpec>>(C.t);
    unsigned Keywords = 0;
    for (const p::ActualArgSpec &A : Actuals)
      Keywords += std::get<std::optional<p::Keyword>>(A.t).has_value();
    if (Keywords != 1)
      return;
    auto &Last = std::get<std::optional<p::Keyword>>(Actuals.back().t);
    if (Last && lower(Last->v.ToString()) == "ierror")
      Last.reset();
  }
};

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
  UseWalker W{SM, Dirs, Diags, Foreign, {}};
  p::Walk(*Parsing.parseTree(), W);
  ErrorKeywordEraser E;
  p::Walk(*Parsing.parseTree(), E);
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

  // The tasks first: no loop of a task's body is sampled.
  findTaskRegions(SM, MainText, CA, PC.Procs, Prog, Opts, Model, Diags);
  buildProcedureBlocks(SM, MainText, CA, PC.Procs, Opts, Model, Diags);

  // Module procedures that communicate (or may: `? name`), for the units that use these modules.
  if (!Opts.ModuleDir.empty())
    for (const std::string &Mod : PC.Modules) {
      std::string Text = "# mpiete: procedures of module '" + Mod +
                         "' that communicate ('? ': may, through calls mpiete cannot see)\n";
      for (const ProcInfo &P : PC.Procs)
        if (P.Module == Mod && CA.communicates(P.Name))
          Text += P.Name + "\n";
      for (const ProcInfo &P : PC.Procs)
        if (P.Module == Mod && CA.hides(P.Name))
          Text += "? " + P.Name + "\n";
      std::filesystem::path Path = std::filesystem::path(Opts.ModuleDir) / (Mod + ".mpiete");
      std::ofstream OS(Path);
      OS << Text;
      if (!OS)
        Diags.error({Path.string(), 0, 0}, "cannot write module facts", "driver");
    }
  return Diags.errorCount() == Before;
}

bool sliceFortran(p::Parsing &Parsing, const FortranFrontendOptions &Opts, UnitModel &Model,
                  const std::string &MainText, DiagnosticSink &Diags, const LinkSummary *Program,
                  LinkSummary *Summary) {
  if (!Parsing.parseTree())
    return false;
  SourceMap SM(Parsing.allCooked(), Model.Source);
  if (!SM.main())
    return false;
  const p::Program &Prog = *Parsing.parseTree();
  ProcedureCollector PC;
  PC.program(Prog);
  ModuleFacts Facts(Opts);
  CommunicationAnalysis CA(PC.Procs, Facts);
  // A module procedure of another file whose module's facts (written when mpiete-fc compiled
  // it) say it does not communicate, not even through calls its unit could not see.
  auto Quiet = [&CA](const p::Name &Callee) { return CA.silent(Callee); };
  return sliceUnit(SM, MainText, CA, PC.Procs, Prog, Quiet, Model, Diags, Program, Summary);
}

} // namespace mpiete
