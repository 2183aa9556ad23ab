// The C rules of sampled loops (ComputeEdits::SampledLoop, issue 15): which `for` statements
// the timing probe may sample, as far as the loop's own text and its function tell.
#ifndef MPIETE_FRONTEND_LIB_SAMPLEDLOOPRULES_H
#define MPIETE_FRONTEND_LIB_SAMPLEDLOOPRULES_H

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/PPCallbacks.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

namespace clang {
class Expr;
class FieldDecl;
class ForStmt;
class SourceManager;
class Stmt;
class VarDecl;
} // namespace clang

namespace mpiete {

/// Remembers where every `#pragma` and `_Pragma` is: the statement after one is its (OpenMP,
/// `GCC unroll`, `ivdep`), so no hook may come between them.
class PragmaCollector : public clang::PPCallbacks {
public:
  explicit PragmaCollector(std::vector<clang::SourceLocation> &Pragmas) : Pragmas(Pragmas) {}
  void PragmaDirective(clang::SourceLocation Loc, clang::PragmaIntroducerKind) override {
    Pragmas.push_back(Loc);
  }

private:
  std::vector<clang::SourceLocation> &Pragmas;
};

/// A `for` statement is sampled when, besides what the caller judges from its calls (no MPI
/// call, nothing the unit cannot see, nothing that never returns), it is counted (its condition
/// and increment read only scalar locals and parameters whose address the function never takes
/// and that its body never assigns, and arithmetic fields of a local struct or through a local
/// pointer, g->n, which its body cannot change: it calls nothing but math functions and stores
/// to no lvalue a field's type or a character type could alias), its body is a compound statement
/// written in the main file that holds another loop, nothing leaves it but its end (no break of its
/// own, return, goto, label, asm, setjmp/longjmp) and no pragma governs it. Conservative: in doubt,
/// no.
class SampledLoopRules {
public:
  SampledLoopRules(const clang::SourceManager &SM, const clang::LangOptions &LO,
                   const std::vector<clang::SourceLocation> &Pragmas)
      : SM(SM), LO(LO), Pragmas(Pragmas) {}

  /// Starts a function: the locals whose address its body takes.
  void startFunction(const clang::Stmt *Body);

  bool eligible(const clang::ForStmt *For) const;

private:
  using VarSet = llvm::SmallPtrSet<const clang::VarDecl *, 4>;
  using FieldSet = llvm::SmallPtrSet<const clang::FieldDecl *, 4>;
  bool controlExpr(const clang::Expr *E, VarSet &Vars, FieldSet &Fields) const;
  bool underPragma(clang::SourceLocation LoopBegin) const;

  const clang::SourceManager &SM;
  const clang::LangOptions &LO;
  const std::vector<clang::SourceLocation> &Pragmas;
  llvm::DenseSet<const clang::VarDecl *> AddressTaken;
};

} // namespace mpiete

#endif
