// Abstract memory and the effects of C statements for the skeleton slice (SliceEffects.h).
#include "SliceEffects.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace mpiete::slice {

// ---- memory classes ---------------------------------------------------------------------------

Memory::Memory() {
  External = fresh();
  LibState = fresh();
  IoState = fresh();
}

ClassId Memory::fresh() {
  Parent.push_back(ClassId(Parent.size()));
  Pointee.push_back(-1);
  return ClassId(Parent.size() - 1);
}

ClassId Memory::find(ClassId C) {
  while (Parent[C] != C) {
    Parent[C] = Parent[Parent[C]];
    C = Parent[C];
  }
  return C;
}

void Memory::join(ClassId A, ClassId B) {
  A = find(A);
  B = find(B);
  if (A == B)
    return;
  Parent[B] = A;
  // Steensgaard: what the two point to becomes one class too.
  const int PA = Pointee[A], PB = Pointee[B];
  if (PA < 0)
    Pointee[A] = PB;
  else if (PB >= 0)
    join(ClassId(PA), ClassId(PB));
}

ClassId Memory::pointee(ClassId C) {
  C = find(C);
  if (Pointee[C] < 0) {
    const ClassId P = fresh();
    Pointee[C] = int(P);
  }
  return find(ClassId(Pointee[C]));
}

ClassId Memory::var(const VarDecl *VD) {
  VD = VD->getCanonicalDecl();
  auto [It, New] = Vars.try_emplace(VD, 0);
  if (New) {
    It->second = fresh();
    if (VD->hasGlobalStorage() && !VD->isStaticLocal())
      Globals.push_back(VD);
  }
  return find(It->second);
}

ClassId Memory::returned(const FunctionDecl *FD) {
  auto [It, New] = Returns.try_emplace(FD->getCanonicalDecl(), 0);
  if (New)
    It->second = fresh();
  return find(It->second);
}

bool MpiCall::PointToPoint() const {
  const std::string Lower = StringRef(Routine).lower();
  return Lower.find("send") != std::string::npos || Lower.find("recv") != std::string::npos;
}

void Effects::add(const Effects &E) {
  Defs.insert(E.Defs.begin(), E.Defs.end());
  Uses.insert(E.Uses.begin(), E.Uses.end());
  Calls.insert(Calls.end(), E.Calls.begin(), E.Calls.end());
  Criterion |= E.Criterion;
  Mpi |= E.Mpi;
}

// ---- locations and pointer values -------------------------------------------------------------

namespace {

bool isMpiName(StringRef Name) { return Name.starts_with("MPI_") || Name.starts_with("PMPI_"); }

bool carriesPointers(QualType T) {
  T = T.getCanonicalType();
  return T->isPointerType() || T->isRecordType() || T->isArrayType();
}

/// Library routines without hidden state or output: their effects are their arguments'.
const llvm::StringSet<> &stateless() {
  static const llvm::StringSet<> S = {
      "sqrt",   "sqrtf",   "fabs",   "fabsf",   "exp",     "expf",     "log",    "logf",
      "log10",  "log2",    "pow",    "powf",    "sin",     "sinf",     "cos",    "cosf",
      "tan",    "atan",    "atan2",  "asin",    "acos",    "sinh",     "cosh",   "tanh",
      "floor",  "ceil",    "round",  "lround",  "trunc",   "fmod",     "fmin",   "fmax",
      "hypot",  "cbrt",    "abs",    "labs",    "llabs",   "malloc",   "calloc", "realloc",
      "free",   "memset",  "memcpy", "memmove", "memcmp",  "strlen",   "strcmp", "strncmp",
      "strcpy", "strncpy", "strcat", "strchr",  "strrchr", "strstr",   "atoi",   "atol",
      "atoll",  "atof",    "strtol", "strtoul", "strtoll", "strtoull", "strtod", "strtof",
      "isnan",  "isinf",   "ldexp",  "frexp"};
  return S;
}

/// Library routines that only write to the output streams: nothing the skeleton needs (its
/// own output is not required; a program that reads back what it wrote is not modelled).
const llvm::StringSet<> &outputOnly() {
  static const llvm::StringSet<> S = {"printf", "fprintf", "puts",   "fputs",   "putchar", "fputc",
                                      "putc",   "fflush",  "perror", "vprintf", "vfprintf"};
  return S;
}

/// Library routines that read input: their order matters (one stream position).
const llvm::StringSet<> &input() {
  static const llvm::StringSet<> S = {"scanf",   "fscanf",  "sscanf", "fgets",   "gets",
                                      "getchar", "getc",    "fgetc",  "fread",   "getline",
                                      "read",    "fopen",   "fclose", "rewind",  "fseek",
                                      "vscanf",  "vfscanf", "ungetc", "freopen", "open"};
  return S;
}

} // namespace

bool UnitEffects::defined(const FunctionDecl *FD) const { return FD && FD->hasBody(); }

ClassId UnitEffects::loc(const Expr *E) {
  E = E->IgnoreParens();
  if (auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      return Mem.var(VD);
    return Mem.fresh();
  }
  if (auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    return points(AS->getBase());
  if (auto *ME = dyn_cast<MemberExpr>(E))
    return ME->isArrow() ? points(ME->getBase()) : loc(ME->getBase());
  if (auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Deref)
      return points(UO->getSubExpr());
    if (UO->getOpcode() == UO_Real || UO->getOpcode() == UO_Imag)
      return loc(UO->getSubExpr());
  }
  if (auto *CE = dyn_cast<CastExpr>(E))
    return loc(CE->getSubExpr());
  if (isa<CompoundLiteralExpr, StringLiteral, PredefinedExpr>(E))
    return Mem.fresh();
  return Mem.External;
}

ClassId UnitEffects::points(const Expr *E) {
  E = E->IgnoreParens();
  if (auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
    switch (ICE->getCastKind()) {
    case CK_LValueToRValue:
      return Mem.pointee(loc(ICE->getSubExpr()));
    case CK_ArrayToPointerDecay:
      return loc(ICE->getSubExpr());
    case CK_FunctionToPointerDecay:
      return Mem.External;
    default:
      return points(ICE->getSubExpr());
    }
  }
  if (auto *CE = dyn_cast<CastExpr>(E))
    return points(CE->getSubExpr());
  if (auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_AddrOf)
      return loc(UO->getSubExpr());
    if (UO->isIncrementDecrementOp())
      return Mem.pointee(loc(UO->getSubExpr()));
  }
  if (auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp() || BO->getOpcode() == BO_Comma)
      return points(BO->getRHS());
    if (BO->isAdditiveOp())
      return points(BO->getLHS()->getType()->isPointerType() ? BO->getLHS() : BO->getRHS());
    return Mem.fresh();
  }
  if (auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
    const ClassId A = points(CO->getTrueExpr()), B = points(CO->getFalseExpr());
    Mem.join(A, B);
    return Mem.find(A);
  }
  if (auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (defined(FD))
      return Mem.returned(FD);
    const SourceManager &SM = Ctx.getSourceManager();
    if (FD && (FD->getBuiltinID() || SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()))))
      return Mem.fresh(); // malloc and friends: new memory
    return Mem.External;
  }
  if (E->isGLValue())
    return Mem.pointee(loc(E));
  return Mem.fresh();
}

void UnitEffects::unify(const Expr *, ClassId TargetLoc, const Expr *Value) {
  if (!Value || !carriesPointers(Value->getType()))
    return;
  if (auto *IL = dyn_cast<InitListExpr>(Value->IgnoreParens())) {
    for (const Expr *Init : IL->inits())
      unify(nullptr, TargetLoc, Init);
    return;
  }
  Mem.join(Mem.pointee(TargetLoc), points(Value));
}

// ---- pass 1: pointer unification over every body ---------------------------------------------

namespace {

class UnifyVisitor : public RecursiveASTVisitor<UnifyVisitor> {
public:
  explicit UnifyVisitor(UnitEffects &U) : U(U) {}
  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Saved = Current;
    Current = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Current = Saved;
    return R;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      U.unify(BO->getLHS(), U.loc(BO->getLHS()), BO->getRHS());
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasInit())
      U.unify(nullptr, U.Mem.var(VD), VD->getInit());
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee(), *Def = nullptr;
    if (!FD || !FD->hasBody(Def))
      return true;
    for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I)
      U.unify(nullptr, U.Mem.var(Def->getParamDecl(I)), CE->getArg(I));
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *RS) {
    if (Current && RS->getRetValue() && carriesPointers(RS->getRetValue()->getType()))
      U.Mem.join(U.Mem.returned(Current), U.points(RS->getRetValue()));
    return true;
  }

private:
  UnitEffects &U;
  const FunctionDecl *Current = nullptr;
};

// ---- pass 2: what a statement reads and writes ------------------------------------------------

class EffectVisitor : public RecursiveASTVisitor<EffectVisitor> {
public:
  EffectVisitor(UnitEffects &U, Effects &E, std::set<const FunctionDecl *> &Callees)
      : U(U), E(E), Callees(Callees), SM(U.Ctx.getSourceManager()) {}

  bool VisitImplicitCastExpr(ImplicitCastExpr *ICE) {
    if (ICE->getCastKind() == CK_LValueToRValue)
      use(U.loc(ICE->getSubExpr()));
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      def(U.loc(BO->getLHS()));
    if (BO->isCompoundAssignmentOp())
      use(U.loc(BO->getLHS()));
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp()) {
      def(U.loc(UO->getSubExpr()));
      use(U.loc(UO->getSubExpr()));
    }
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasInit() || VD->getType()->isVariablyModifiedType())
      def(U.Mem.var(VD));
    return true;
  }
  bool VisitAsmStmt(AsmStmt *) {
    E.Criterion = true;
    world();
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) { // through a pointer: it may be anything, a communicating procedure included
      E.Criterion = true;
      world();
      pointerArgs(CE, nullptr, true);
      return true;
    }
    const std::string Name = FD->getNameAsString();
    if (isMpiName(Name)) {
      E.Criterion = E.Mpi = true;
      MpiCall &Call = E.Calls.emplace_back();
      Call.Routine = Name;
      for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
        const Expr *A = CE->getArg(I);
        if (!A->getType()->isPointerType())
          continue;
        const ClassId P = U.Mem.find(U.points(A));
        def(P);
        QualType Param = I < FD->getNumParams() ? FD->getParamDecl(I)->getType() : A->getType();
        if (Param->isPointerType() && Param->getPointeeType()->isVoidType()) {
          // A message buffer: its contents matter only when received data steers (Slice.cpp).
          Call.SendBuffers.insert(P);
          if (!Param->getPointeeType().isConstQualified())
            Call.RecvBuffers.insert(P);
        } else {
          use(P); // dims, requests, counts and displacements arrays: read by the call
        }
      }
      return true;
    }
    if (FD->isNoReturn() || FD->hasAttr<NoReturnAttr>())
      E.Criterion = true;
    const FunctionDecl *Def = nullptr;
    if (FD->hasBody(Def)) {
      Callees.insert(Def);
      for (const ParmVarDecl *P : Def->parameters())
        def(U.Mem.var(P));
      return true;
    }
    if (FD->getBuiltinID() || SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()))) {
      if (outputOnly().contains(Name)) {
        pointerArgs(CE, FD, false, /*Read=*/true, /*Write=*/false);
        return true;
      }
      pointerArgs(CE, FD, false);
      if (!stateless().contains(Name)) {
        def(U.Mem.LibState);
        use(U.Mem.LibState);
      }
      if (input().contains(Name)) {
        def(U.Mem.IoState);
        use(U.Mem.IoState);
      }
      return true;
    }
    // A procedure of another unit: it may communicate (its unit is instrumented too) and may
    // touch anything it can reach.
    E.Criterion = true;
    world();
    pointerArgs(CE, FD, true);
    return true;
  }

private:
  void def(ClassId C) { E.Defs.insert(U.Mem.find(C)); }
  void use(ClassId C) { E.Uses.insert(U.Mem.find(C)); }
  void world() {
    for (ClassId C : {U.Mem.External, U.Mem.LibState, U.Mem.IoState}) {
      def(C);
      use(C);
    }
    for (size_t I = 0; I < U.Mem.Globals.size(); ++I) {
      const ClassId C = U.Mem.var(U.Mem.Globals[I]);
      def(C);
      use(C);
    }
  }
  /// Pointer arguments: what they point to is read, and written unless the parameter points
  /// to const (every pointer through `...` may be written: scanf).
  void pointerArgs(CallExpr *CE, const FunctionDecl *FD, bool WriteAll, bool Read = true,
                   bool Write = true) {
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I);
      if (!A->getType()->isPointerType())
        continue;
      const ClassId P = U.points(A);
      if (Read)
        use(P);
      if (!Write)
        continue;
      QualType Param = FD && I < FD->getNumParams() ? FD->getParamDecl(I)->getType() : QualType();
      const bool Const =
          !Param.isNull() && Param->isPointerType() && Param->getPointeeType().isConstQualified();
      if (WriteAll || !Const)
        def(P);
    }
  }

  UnitEffects &U;
  Effects &E;
  std::set<const FunctionDecl *> &Callees;
  const SourceManager &SM;
};

} // namespace

UnitEffects::UnitEffects(ASTContext &Ctx) : Ctx(Ctx) {
  UnifyVisitor V(*this);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  summarise();
}

void UnitEffects::summarise() {
  struct Bodies : RecursiveASTVisitor<Bodies> {
    std::vector<FunctionDecl *> List;
    bool VisitFunctionDecl(FunctionDecl *FD) {
      if (FD->doesThisDeclarationHaveABody())
        List.push_back(FD);
      return true;
    }
  } B;
  B.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (FunctionDecl *FD : B.List) {
    Summary &S = Summaries[FD];
    EffectVisitor V(*this, S.Local, S.Callees);
    V.TraverseStmt(FD->getBody());
    S.Communicates = S.Local.Criterion;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[FD, S] : Summaries)
      for (const FunctionDecl *Callee : S.Callees) {
        auto It = Summaries.find(Callee);
        if (It == Summaries.end() || It->first == FD)
          continue;
        const size_t Before = S.Local.Defs.size() + S.Local.Uses.size();
        S.Local.Defs.insert(It->second.Local.Defs.begin(), It->second.Local.Defs.end());
        S.Local.Uses.insert(It->second.Local.Uses.begin(), It->second.Local.Uses.end());
        const bool Comm = S.Communicates || It->second.Communicates;
        if (Before != S.Local.Defs.size() + S.Local.Uses.size() || Comm != S.Communicates)
          Changed = true;
        S.Communicates = Comm;
      }
  }
}

bool UnitEffects::mayCommunicate(const FunctionDecl *FD) const {
  auto It = Summaries.find(FD);
  return It != Summaries.end() && It->second.Communicates;
}

Effects UnitEffects::effects(const Stmt *S) {
  Effects E;
  if (!S)
    return E;
  std::set<const FunctionDecl *> Callees;
  EffectVisitor V(*this, E, Callees);
  V.TraverseStmt(const_cast<Stmt *>(S));
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : Callees) {
    auto It = Summaries.find(FD);
    if (It == Summaries.end())
      continue;
    const Summary &Sum = It->second;
    E.Defs.insert(Sum.Local.Defs.begin(), Sum.Local.Defs.end());
    // A communicating procedure of the main file is sliced itself: its kept statements are in
    // the graph with their own uses. Any other callee is kept whole: all it reads counts.
    const bool Sliced = Sum.Communicates && SM.isInMainFile(SM.getExpansionLoc(FD->getLocation()));
    if (!Sliced)
      E.Uses.insert(Sum.Local.Uses.begin(), Sum.Local.Uses.end());
    E.Criterion |= Sum.Communicates;
  }
  // Classes may have merged since the summaries were taken: resolve.
  std::set<ClassId> Defs, Uses;
  for (ClassId C : E.Defs)
    Defs.insert(Mem.find(C));
  for (ClassId C : E.Uses)
    Uses.insert(Mem.find(C));
  E.Defs.swap(Defs);
  E.Uses.swap(Uses);
  return E;
}

Effects UnitEffects::initEffects(const VarDecl *VD) {
  Effects E = effects(VD->getInit());
  E.Defs.insert(Mem.var(VD));
  return E;
}

} // namespace mpiete::slice
