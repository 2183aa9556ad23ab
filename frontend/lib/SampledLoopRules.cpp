// The C rules of sampled loops (SampledLoopRules.h).
#include "SampledLoopRules.h"
#include "CommunicationAnalysis.h"

#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpiete {
namespace {

const VarDecl *varOf(const Expr *E) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

/// What a loop body does that rules out skipping its iterations.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  explicit BodyScan(const llvm::SmallPtrSetImpl<const VarDecl *> &Control) : Control(Control) {}

  bool Refused = false;
  bool Loop = false; ///< it holds another loop

#define MPIETE_NESTED(Type, IsLoop)                                                                \
  bool Traverse##Type(Type *S) {                                                                   \
    Loop = Loop || IsLoop;                                                                         \
    ++BreakDepth;                                                                                  \
    SwitchDepth += !IsLoop;                                                                        \
    bool R = RecursiveASTVisitor::Traverse##Type(S);                                               \
    SwitchDepth -= !IsLoop;                                                                        \
    --BreakDepth;                                                                                  \
    return R;                                                                                      \
  }
  MPIETE_NESTED(ForStmt, true)
  MPIETE_NESTED(WhileStmt, true)
  MPIETE_NESTED(DoStmt, true)
  MPIETE_NESTED(SwitchStmt, false)
#undef MPIETE_NESTED

  bool VisitBreakStmt(BreakStmt *) { return refuse(BreakDepth == 0); }
  bool VisitReturnStmt(ReturnStmt *) { return refuse(); }
  bool VisitGotoStmt(GotoStmt *) { return refuse(); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return refuse(); }
  bool VisitLabelStmt(LabelStmt *) { return refuse(); }
  bool VisitAsmStmt(AsmStmt *) { return refuse(); }
  bool VisitSwitchCase(SwitchCase *) { return refuse(SwitchDepth == 0); }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return refuse();
    StringRef Name = FD->getName();
    return refuse(c::isMpiName(Name) || Name.contains("setjmp") || Name.contains("longjmp"));
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    return refuse(B->isAssignmentOp() && Control.count(varOf(B->getLHS())));
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    return refuse(U->isIncrementDecrementOp() && Control.count(varOf(U->getSubExpr())));
  }

private:
  bool refuse(bool If = true) {
    Refused = Refused || If;
    return !Refused;
  }

  const llvm::SmallPtrSetImpl<const VarDecl *> &Control;
  unsigned BreakDepth = 0;
  unsigned SwitchDepth = 0;
};

} // namespace

void SampledLoopRules::startFunction(const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    llvm::DenseSet<const VarDecl *> &Out;
    explicit Finder(llvm::DenseSet<const VarDecl *> &Out) : Out(Out) {}
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_AddrOf)
        if (const VarDecl *V = varOf(U->getSubExpr()))
          Out.insert(V);
      return true;
    }
  };
  AddressTaken.clear();
  Finder F(AddressTaken);
  F.TraverseStmt(const_cast<Stmt *>(Body));
}

/// A condition or increment that reads only literals and scalar locals or parameters (no
/// call, no dereference, no field, no global): Vars receives the locals.
bool SampledLoopRules::controlExpr(const Expr *E, VarSet &Vars) const {
  E = E->IgnoreParens();
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral>(E))
    return true;
  if (const auto *T = dyn_cast<UnaryExprOrTypeTraitExpr>(E))
    return !T->getTypeOfArgument()->isVariablyModifiedType(); // sizeof of a VLA is run-time
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(D->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V || !V->hasLocalStorage() || V->getType().isVolatileQualified() ||
        !(V->getType()->isArithmeticType() || V->getType()->isPointerType()) ||
        AddressTaken.contains(V))
      return false;
    Vars.insert(V);
    return true;
  }
  if (const auto *C = dyn_cast<CastExpr>(E))
    return controlExpr(C->getSubExpr(), Vars);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return U->getOpcode() != UO_AddrOf && U->getOpcode() != UO_Deref &&
           controlExpr(U->getSubExpr(), Vars);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return controlExpr(B->getLHS(), Vars) && controlExpr(B->getRHS(), Vars);
  if (const auto *C = dyn_cast<ConditionalOperator>(E))
    return controlExpr(C->getCond(), Vars) && controlExpr(C->getTrueExpr(), Vars) &&
           controlExpr(C->getFalseExpr(), Vars);
  return false;
}

/// Whether the first code after some pragma (past it, and past any directive lines that
/// follow it) is the loop's first token.
bool SampledLoopRules::underPragma(SourceLocation LoopBegin) const {
  const auto [FID, LoopOff] = SM.getDecomposedLoc(LoopBegin);
  const StringRef Buf = SM.getBufferData(FID);
  for (SourceLocation P : Pragmas) {
    // A _Pragma from a macro: the code resumes after the macro's invocation.
    const bool FromMacro = P.isMacroID();
    SourceLocation At = FromMacro ? SM.getExpansionRange(P).getEnd() : P;
    auto [PFID, Off] = SM.getDecomposedLoc(At);
    if (PFID != FID || Off >= LoopOff)
      continue;
    Lexer Raw(SM.getLocForStartOfFile(FID), LO, Buf.begin(), Buf.begin() + Off, Buf.end());
    Token T;
    bool End = Raw.LexFromRawLexer(T);
    if (FromMacro) {
      End = Raw.LexFromRawLexer(T); // past the invocation's last token
    } else if (T.is(tok::raw_identifier) && T.getRawIdentifier() == "_Pragma") {
      while (!End && T.isNot(tok::r_paren))
        End = Raw.LexFromRawLexer(T);
      End = End || Raw.LexFromRawLexer(T);
    }
    // Directive lines (`#pragma` itself, more pragmas, #if) carry no code.
    while (!End && T.is(tok::hash) && T.isAtStartOfLine()) {
      do
        End = Raw.LexFromRawLexer(T);
      while (!End && !T.isAtStartOfLine());
    }
    if (!End && SM.getFileOffset(T.getLocation()) == LoopOff)
      return true;
  }
  return false;
}

bool SampledLoopRules::eligible(const ForStmt *For) const {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(For->getBody());
  if (!Body || !For->getCond() || !For->getInc() || For->getConditionVariable())
    return false;
  // Every edit position is in the main file's own text, none inside a macro.
  for (SourceLocation L :
       {For->getBeginLoc(), For->getEndLoc(), Body->getLBracLoc(), Body->getRBracLoc()})
    if (L.isInvalid() || L.isMacroID() || !SM.isWrittenInMainFile(L))
      return false;
  VarSet Control;
  if (!controlExpr(For->getCond(), Control) || !controlExpr(For->getInc(), Control))
    return false;
  BodyScan Scan(Control);
  Scan.TraverseStmt(const_cast<CompoundStmt *>(Body));
  return !Scan.Refused && Scan.Loop && !underPragma(For->getBeginLoc());
}

} // namespace mpiete
