// The C rules of sampled loops (SampledLoopRules.h).
#include "SampledLoopRules.h"
#include "CommunicationAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace mpiete {
namespace {

const VarDecl *varOf(const Expr *E) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

/// Math functions that write no memory the caller sees (errno aside).
bool mathFunction(StringRef Name) {
  static const llvm::StringSet<> Names = {
      "sqrt",  "sqrtf", "exp",   "expf", "exp2", "log",   "logf", "log2",  "log10", "sin",
      "sinf",  "cos",   "cosf",  "tan",  "asin", "acos",  "atan", "atan2", "sinh",  "cosh",
      "tanh",  "fabs",  "fabsf", "pow",  "powf", "floor", "ceil", "fmod",  "fmin",  "fmax",
      "round", "trunc", "hypot", "cbrt", "abs",  "labs",  "llabs"};
  return Names.contains(Name);
}

/// What a loop body does that rules out skipping its iterations. Fields: the struct fields its
/// condition or increment reads (through a local pointer or struct, g->n): then the body may
/// also not assign them, store to any lvalue of a field's type or of a character type (either
/// might alias one), copy a whole struct, or call anything but a math function.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  BodyScan(const llvm::SmallPtrSetImpl<const VarDecl *> &Control,
           const llvm::SmallPtrSetImpl<const FieldDecl *> &Fields)
      : Control(Control), Fields(Fields) {}

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
    return refuse(c::isMpiName(Name) || Name.contains("setjmp") || Name.contains("longjmp") ||
                  (!Fields.empty() && !mathFunction(Name)));
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    return refuse(B->isAssignmentOp() && writes(B->getLHS()));
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    return refuse(U->isIncrementDecrementOp() && writes(U->getSubExpr()));
  }

private:
  bool refuse(bool If = true) {
    Refused = Refused || If;
    return !Refused;
  }
  /// A store to LHS may change the loop's count.
  bool writes(const Expr *LHS) const {
    if (Control.count(varOf(LHS)))
      return true;
    if (Fields.empty())
      return false;
    if (const auto *M = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts()))
      if (const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl()); F && Fields.count(F))
        return true;
    if (varOf(LHS)) // a local by name: the fields are no locals
      return false;
    const QualType T = LHS->getType().getCanonicalType().getUnqualifiedType();
    if (T->isRecordType() || T->isAnyCharacterType())
      return true;
    for (const FieldDecl *F : Fields)
      if (aliasClass(F->getASTContext(), F->getType()) == aliasClass(F->getASTContext(), T))
        return true;
    return false;
  }
  /// The type an lvalue of type Q may alias under C's rules: signed and unsigned variants (and
  /// an enumeration's integer type) alias each other.
  static QualType aliasClass(const ASTContext &Ctx, QualType Q) {
    Q = Q.getCanonicalType().getUnqualifiedType();
    if (const auto *E = Q->getAs<EnumType>())
      Q = E->getDecl()->getIntegerType().getCanonicalType().getUnqualifiedType();
    if (Q->isSignedIntegerType() && !Q->isBooleanType())
      Q = Ctx.getCorrespondingUnsignedType(Q);
    return Q;
  }

  const llvm::SmallPtrSetImpl<const VarDecl *> &Control;
  const llvm::SmallPtrSetImpl<const FieldDecl *> &Fields;
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

/// A condition or increment that reads only literals, scalar locals or parameters, and
/// arithmetic fields of a local struct or of what a local pointer points to (g->n, s.n; no
/// call, no other dereference, no global): Vars receives the locals, Fields the fields.
bool SampledLoopRules::controlExpr(const Expr *E, VarSet &Vars, FieldSet &Fields) const {
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
  if (const auto *M = dyn_cast<MemberExpr>(E)) {
    const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl());
    const VarDecl *Base = varOf(M->getBase());
    if (!F || F->isBitField() || !F->getType()->isArithmeticType() ||
        F->getType().isVolatileQualified() || !Base || !Base->hasLocalStorage() ||
        Base->getType().isVolatileQualified() || AddressTaken.contains(Base))
      return false;
    const QualType BT = Base->getType();
    if (M->isArrow() ? !(BT->isPointerType() && BT->getPointeeType()->isRecordType())
                     : !BT->isRecordType())
      return false;
    Vars.insert(Base);
    Fields.insert(F);
    return true;
  }
  if (const auto *C = dyn_cast<CastExpr>(E))
    return controlExpr(C->getSubExpr(), Vars, Fields);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return U->getOpcode() != UO_AddrOf && U->getOpcode() != UO_Deref &&
           controlExpr(U->getSubExpr(), Vars, Fields);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return controlExpr(B->getLHS(), Vars, Fields) && controlExpr(B->getRHS(), Vars, Fields);
  if (const auto *C = dyn_cast<ConditionalOperator>(E))
    return controlExpr(C->getCond(), Vars, Fields) && controlExpr(C->getTrueExpr(), Vars, Fields) &&
           controlExpr(C->getFalseExpr(), Vars, Fields);
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
  FieldSet Fields;
  if (!controlExpr(For->getCond(), Control, Fields) || !controlExpr(For->getInc(), Control, Fields))
    return false;
  BodyScan Scan(Control, Fields);
  Scan.TraverseStmt(const_cast<CompoundStmt *>(Body));
  return !Scan.Refused && Scan.Loop && !underPragma(For->getBeginLoc());
}

} // namespace mpiete
