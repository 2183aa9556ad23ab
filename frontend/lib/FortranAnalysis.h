// The parts of the Fortran frontend that its Flang-facing files share: name helpers, the map
// from Flang's cooked characters back to the file, the procedures of a unit and which of them
// communicate, and the parse-tree walkers the block partition uses. Internal to frontend/lib
// (FortranFrontend.cpp: the analysis; FortranBlocks.cpp: the block partition;
// FortranSampling.cpp: which loops the timing probe may sample).
#ifndef MPIETE_FRONTEND_LIB_FORTRANANALYSIS_H
#define MPIETE_FRONTEND_LIB_FORTRANANALYSIS_H

#include "mpiete/frontend/FortranFrontend.h"
#include "mpiete/frontend/MpiRoutines.h"
#include "mpiete/support/Diagnostics.h"

#include "flang/Parser/parse-tree-visitor.h"
#include "flang/Parser/parse-tree.h"
#include "flang/Parser/parsing.h"
#include "flang/Parser/provenance.h"
#include "flang/Semantics/scope.h"
#include "flang/Semantics/symbol.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mpiete::fortran {

namespace p = Fortran::parser;

inline std::string lower(std::string_view S) {
  std::string Out(S);
  for (char &C : Out)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Out;
}

inline bool isMpiName(const std::string &Lower) {
  return Lower.rfind("mpi_", 0) == 0 || Lower.rfind("pmpi_", 0) == 0;
}

/// MPI_SEND -> MPI_Send: the C spelling the routine tables use.
inline std::string canonicalMpi(const std::string &Lower) {
  bool Profiling = Lower[0] == 'p';
  std::string Rest = Lower.substr(Profiling ? 5 : 4);
  if (!Rest.empty())
    Rest[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(Rest[0])));
  return std::string(Profiling ? "PMPI_" : "MPI_") + Rest;
}

/// The name a procedure reference resolves to: through use association and renames.
inline std::string calleeName(const p::Name &N) {
  if (N.symbol)
    return lower(N.symbol->GetUltimate().name().ToString());
  return lower(N.ToString());
}

/// The module a use-associated procedure comes from, or empty.
inline std::string moduleOf(const p::Name &N) {
  if (!N.symbol)
    return "";
  const Fortran::semantics::Symbol &U = N.symbol->GetUltimate();
  const Fortran::semantics::Scope &Owner = U.owner();
  if (Owner.IsModule() && Owner.symbol())
    return lower(Owner.symbol()->name().ToString());
  return "";
}

inline const p::Name *designatorName(const p::Call &C) {
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
  bool Pure = false;     ///< PURE or ELEMENTAL: it may call no hook (no sampled loops)
  /// The scope its unit statement opens (its symbols and its hosts'); null for a main program
  /// without a PROGRAM statement.
  const Fortran::semantics::Scope *Scope = nullptr;
  std::set<std::string> Callees;
};

class ModuleFacts;

/// Which procedures communicate, directly or through calls (a fixed point over the call graph).
class CommunicationAnalysis {
public:
  CommunicationAnalysis(const std::vector<ProcInfo> &Procs, ModuleFacts &Facts);

  /// A call to a procedure of this unit, or of a module compiled earlier, that communicates.
  bool communicates(const p::Name &Callee) const;
  bool communicates(const std::string &Name) const { return Communicating.count(Name) != 0; }
  bool defined(const std::string &Name) const { return Defined.count(Name) != 0; }
  /// A procedure of a module compiled earlier whose facts say it does not communicate, not
  /// even through calls its unit could not see.
  bool silent(const p::Name &Callee) const;
  /// A procedure of this unit that does not communicate as far as the unit can see, but calls
  /// (directly or through the unit's procedures) what it cannot see, which may.
  bool hides(const std::string &Name) const { return Hiding.count(Name) != 0; }

private:
  ModuleFacts &Facts;
  std::set<std::string> Defined, Communicating, Hiding;
};

/// What a statement contains, as far as the block partition cares.
struct StmtFacts {
  bool MpiCall = false;            ///< a rewritten MPI routine
  bool CommunicatingCall = false;  ///< a procedure that communicates
  bool Jump = false;               ///< GOTO, RETURN, STOP, EXIT, CYCLE, ERR=, alternate return...
  bool LeavesUnit = false;         ///< RETURN, STOP, ERROR STOP, FAIL IMAGE, alternate return
  std::vector<std::string> Opaque; ///< callees whose bodies the unit cannot see
  /// A CALL of a subroutine the unit cannot see that may communicate: an external one, or one
  /// of a module without facts (a module procedure whose facts say it does not is no such call;
  /// nor is a function reference, which may sit in an expression evaluated per element).
  bool HiddenCall = false;
  /// The same of a function reference (a procedure pointer's or dummy's too; a statement
  /// function's is none): only the sampled loops care (FortranSampling.cpp).
  bool HiddenFunction = false;
};

struct FactsWalker {
  const CommunicationAnalysis &CA;
  StmtFacts &F;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  void call(const p::Call &C, bool Subroutine) {
    const p::Name *N = designatorName(C);
    if (!N) {
      addOpaque("(procedure component)");
      hidden(Subroutine);
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
    const Fortran::semantics::Symbol *S = N->symbol ? &N->symbol->GetUltimate() : nullptr;
    const auto *Sub = S ? S->detailsIf<Fortran::semantics::SubprogramDetails>() : nullptr;
    if (!CA.silent(*N) && !(Sub && Sub->stmtFunction()))
      hidden(Subroutine);
  }
  void hidden(bool Subroutine) { (Subroutine ? F.HiddenCall : F.HiddenFunction) = true; }
  bool Pre(const p::CallStmt &S) {
    call(S.call, /*Subroutine=*/true);
    return true;
  }
  bool Pre(const p::FunctionReference &R) {
    call(R.v, /*Subroutine=*/false);
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
#define MPIETE_LEAVE(Type)                                                                         \
  bool Pre(const p::Type &) {                                                                      \
    F.Jump = F.LeavesUnit = true;                                                                  \
    return true;                                                                                   \
  }
  MPIETE_LEAVE(ReturnStmt)
  MPIETE_LEAVE(StopStmt)
  MPIETE_LEAVE(FailImageStmt)
  MPIETE_JUMP(ExitStmt)
  MPIETE_JUMP(CycleStmt)
  MPIETE_JUMP(ErrLabel)
  MPIETE_JUMP(EndLabel)
  MPIETE_JUMP(EorLabel)
  MPIETE_LEAVE(AltReturnSpec)
#undef MPIETE_JUMP
#undef MPIETE_LEAVE

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

/// Partitions the bodies of the procedures of Procs that communicate into blocks and records
/// every MPI call; in segment mode, also finds the sampled loops of every procedure
/// (FortranBlocks.cpp).
void buildProcedureBlocks(const SourceMap &SM, const std::string &MainText,
                          const CommunicationAnalysis &CA, const std::vector<ProcInfo> &Procs,
                          const FortranFrontendOptions &Opts, UnitModel &Model,
                          DiagnosticSink &Diags);

/// Where a task directive's sentinel `!$mpiete` starts on a line (the column of its comment
/// character, from 1), or npos: a comment line whose first characters are the sentinel (in fixed
/// form column 1 is C, c, * or !), followed by no letter or digit.
size_t taskSentinel(std::string_view Line, bool FixedForm);

/// The task markers of the main file (`!$mpiete task(params)` .. `!$mpiete end task`,
/// docs/taskfarm.md) into Model.Tasks, each with the declaration of its procedure's hook
/// (Model.CounterDecls); a located error for a directive the probes cannot honour: unpaired or
/// nested, not enclosing whole statements of one block, a body that calls MPI or is left
/// other than at its end (FortranBlocks.cpp).
void findTaskRegions(const SourceMap &SM, const std::string &MainText,
                     const CommunicationAnalysis &CA, const std::vector<ProcInfo> &Procs,
                     const p::Program &Prog, const FortranFrontendOptions &Opts, UnitModel &Model,
                     DiagnosticSink &Diags);

/// Seed 004 section 3.1.1, issue 15: whether nothing stops the timing probe from sampling D
/// (ComputeEdits::SampledLoop), as far as D itself and the jumps of its procedure (Exec, whose
/// jump targets are Targets) tell: a counted DO with no MPI call, no call that communicates or
/// that the unit cannot see, no exit but its end, no jump into it from outside, and another
/// loop in its body (FortranSampling.cpp). Where D sits is the caller's question.
bool sampleable(const p::DoConstruct &D, const CommunicationAnalysis &CA,
                const p::ExecutionPart &Exec, const std::set<p::Label> &Targets);

} // namespace mpiete::fortran

#endif // MPIETE_FRONTEND_LIB_FORTRANANALYSIS_H
