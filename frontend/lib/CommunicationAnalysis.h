// What the C frontend knows of calls: which procedures of the unit communicate, directly or
// through others, which may through code the unit cannot see, and what a statement holds.
#ifndef MPIETE_FRONTEND_LIB_COMMUNICATIONANALYSIS_H
#define MPIETE_FRONTEND_LIB_COMMUNICATIONANALYSIS_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class SourceManager;
class Stmt;
} // namespace clang

namespace mpiete::c {

bool isMpiName(llvm::StringRef Name);

/// The MPI (or PMPI) routine a call calls directly, or null.
const clang::FunctionDecl *mpiCallee(const clang::CallExpr *CE);

/// Facts about every function with a body in the unit: does it (transitively) communicate?
class CommunicationAnalysis {
public:
  void run(clang::ASTContext &Ctx);

  /// A callee the unit cannot see into: no body here, not a builtin, not from a system header.
  bool hidden(const clang::FunctionDecl *FD, const clang::SourceManager &SM) const;
  /// FD's body (or a procedure it calls, transitively) calls code the unit cannot see.
  bool reachesHidden(const clang::FunctionDecl *FD) const {
    return FD && Hidden.count(FD->getCanonicalDecl());
  }

  bool communicates(const clang::FunctionDecl *FD) const {
    return FD && Communicating.count(FD->getCanonicalDecl());
  }
  bool defined(const clang::FunctionDecl *FD) const {
    return FD && Defined.count(FD->getCanonicalDecl());
  }

private:
  llvm::DenseSet<const clang::FunctionDecl *> Defined, Direct, Communicating, Hidden;
  std::map<const clang::FunctionDecl *, std::set<const clang::FunctionDecl *>> Calls;
};

/// What a statement's subtree contains, as far as the block partition cares.
struct StmtFacts {
  bool MpiCall = false;           ///< a rewritten MPI routine
  bool CommunicatingCall = false; ///< a procedure of this unit that communicates
  bool HiddenCall = false;   ///< a call into code the unit cannot see (directly or through its own)
  bool Loop = false;         ///< a loop
  bool NoReturnCall = false; ///< exit(), abort(), ...
  bool EscapingJump = false; ///< return/goto, or break/continue leaving the statement
  bool JumpTarget = false;   ///< a label, or a case label outside its switch: a way in
  std::vector<std::string> Opaque; ///< callees whose bodies the unit cannot see
};

/// The facts of S's subtree.
StmtFacts factsOf(clang::Stmt *S, const CommunicationAnalysis &CA, const clang::SourceManager &SM);

} // namespace mpiete::c

#endif
