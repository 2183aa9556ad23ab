// What the C frontend knows of calls (CommunicationAnalysis.h).
#include "CommunicationAnalysis.h"

#include "mpiete/frontend/MpiRoutines.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

using namespace clang;

namespace mpiete::c {

bool isMpiName(StringRef Name) { return Name.starts_with("MPI_") || Name.starts_with("PMPI_"); }

const FunctionDecl *mpiCallee(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (FD && FD->getIdentifier() && isMpiName(FD->getName()))
    return FD;
  return nullptr;
}

void CommunicationAnalysis::run(ASTContext &Ctx) {
  struct Collector : RecursiveASTVisitor<Collector> {
    CommunicationAnalysis &A;
    const FunctionDecl *Current = nullptr;
    explicit Collector(CommunicationAnalysis &A) : A(A) {}
    bool TraverseFunctionDecl(FunctionDecl *FD) {
      if (!FD->doesThisDeclarationHaveABody())
        return true;
      const FunctionDecl *Saved = Current;
      Current = FD->getCanonicalDecl();
      A.Defined.insert(Current);
      bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
      Current = Saved;
      return R;
    }
    bool VisitCallExpr(CallExpr *CE) {
      if (!Current)
        return true;
      if (const FunctionDecl *M = mpiCallee(CE)) {
        if (findRewrittenRoutine(M->getName()))
          A.Direct.insert(Current);
        return true;
      }
      if (const FunctionDecl *FD = CE->getDirectCallee())
        A.Calls[Current].insert(FD->getCanonicalDecl());
      else
        A.Hidden.insert(Current); // a call through a pointer
      return true;
    }
  } C(*this);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  Communicating = Direct;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[Caller, Callees] : Calls) {
      if (Communicating.count(Caller))
        continue;
      for (const FunctionDecl *Callee : Callees)
        if (Communicating.count(Callee)) {
          Communicating.insert(Caller);
          Changed = true;
          break;
        }
    }
  }
  // Procedures that may communicate through code the unit cannot see: a call through a
  // pointer, or into a procedure with no body here (another unit's) that is no library's.
  const SourceManager &SM = Ctx.getSourceManager();
  for (auto &[Caller, Callees] : Calls)
    for (const FunctionDecl *Callee : Callees)
      if (hidden(Callee, SM))
        Hidden.insert(Caller);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[Caller, Callees] : Calls) {
      if (Hidden.count(Caller))
        continue;
      for (const FunctionDecl *Callee : Callees)
        if (Hidden.count(Callee)) {
          Hidden.insert(Caller);
          Changed = true;
          break;
        }
    }
  }
}

bool CommunicationAnalysis::hidden(const FunctionDecl *FD, const SourceManager &SM) const {
  return !defined(FD) && !FD->getBuiltinID() &&
         !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
}

namespace {

class FactsVisitor : public RecursiveASTVisitor<FactsVisitor> {
public:
  FactsVisitor(const CommunicationAnalysis &CA, const SourceManager &SM, StmtFacts &F)
      : CA(CA), SM(SM), F(F) {}

  bool VisitCallExpr(CallExpr *CE) {
    if (const FunctionDecl *M = mpiCallee(CE)) {
      if (findRewrittenRoutine(M->getName()))
        F.MpiCall = true;
      return true;
    }
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) {
      F.HiddenCall = true;
      addOpaque("(indirect call)");
      return true;
    }
    if (FD->isNoReturn() || FD->hasAttr<NoReturnAttr>() || FD->hasAttr<CXX11NoReturnAttr>())
      F.NoReturnCall = true;
    if (CA.communicates(FD)) {
      F.CommunicatingCall = true;
    } else if (CA.hidden(FD, SM)) {
      F.HiddenCall = true;
      addOpaque(FD->getNameAsString());
    } else if (CA.reachesHidden(FD)) {
      F.HiddenCall = true;
    }
    return true;
  }
  bool TraverseReturnStmt(ReturnStmt *S) {
    F.EscapingJump = true;
    return RecursiveASTVisitor::TraverseReturnStmt(S);
  }
  bool VisitGotoStmt(GotoStmt *) {
    F.EscapingJump = true;
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
    F.EscapingJump = true;
    return true;
  }
  bool VisitBreakStmt(BreakStmt *) {
    if (BreakDepth == 0)
      F.EscapingJump = true;
    return true;
  }
  bool VisitContinueStmt(ContinueStmt *) {
    if (LoopDepth == 0)
      F.EscapingJump = true;
    return true;
  }
#define MPIETE_LOOP_TRAVERSE(Type)                                                                 \
  bool Traverse##Type(Type *S) {                                                                   \
    F.Loop = true;                                                                                 \
    ++LoopDepth;                                                                                   \
    ++BreakDepth;                                                                                  \
    bool R = RecursiveASTVisitor::Traverse##Type(S);                                               \
    --LoopDepth;                                                                                   \
    --BreakDepth;                                                                                  \
    return R;                                                                                      \
  }
  MPIETE_LOOP_TRAVERSE(ForStmt)
  MPIETE_LOOP_TRAVERSE(WhileStmt)
  MPIETE_LOOP_TRAVERSE(DoStmt)
#undef MPIETE_LOOP_TRAVERSE
  bool TraverseSwitchStmt(SwitchStmt *S) {
    ++BreakDepth;
    ++SwitchDepth;
    bool R = RecursiveASTVisitor::TraverseSwitchStmt(S);
    --SwitchDepth;
    --BreakDepth;
    return R;
  }
  bool VisitLabelStmt(LabelStmt *) {
    F.JumpTarget = true;
    return true;
  }
  bool VisitSwitchCase(SwitchCase *) {
    if (SwitchDepth == 0)
      F.JumpTarget = true;
    return true;
  }

private:
  void addOpaque(std::string Name) {
    if (std::find(F.Opaque.begin(), F.Opaque.end(), Name) == F.Opaque.end())
      F.Opaque.push_back(std::move(Name));
  }

  const CommunicationAnalysis &CA;
  const SourceManager &SM;
  StmtFacts &F;
  unsigned LoopDepth = 0;
  unsigned BreakDepth = 0;
  unsigned SwitchDepth = 0;
};

} // namespace

StmtFacts factsOf(Stmt *S, const CommunicationAnalysis &CA, const SourceManager &SM) {
  StmtFacts F;
  FactsVisitor V(CA, SM, F);
  V.TraverseStmt(S);
  return F;
}

} // namespace mpiete::c
