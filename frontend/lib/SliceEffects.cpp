// Abstract memory and the effects of C statements for the skeleton slice (SliceEffects.h).
#include "SliceEffects.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

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
  Fields.emplace_back();
  Record.push_back(nullptr);
  Collapsed.push_back(0);
  Owner.push_back(-1);
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
  if (Owner[A] < 0)
    Owner[A] = Owner[B];
  const bool Collapse =
      Collapsed[A] || Collapsed[B] || (Record[A] && Record[B] && Record[A] != Record[B]);
  if (!Record[A])
    Record[A] = Record[B];
  std::map<const clang::FieldDecl *, ClassId> Moved;
  Moved.swap(Fields[B]);
  // Steensgaard: what the two point to becomes one class too.
  const int PA = Pointee[A], PB = Pointee[B];
  if (PA < 0)
    Pointee[A] = PB;
  else if (PB >= 0)
    join(ClassId(PA), ClassId(PB));
  // The same field of the two is one class (A may have been joined on meanwhile: its root).
  for (const auto &[F, C] : Moved) {
    const ClassId R = find(A);
    if (Collapsed[R]) {
      join(R, C);
      continue;
    }
    auto It = Fields[R].find(F);
    if (It == Fields[R].end())
      Fields[R].emplace(F, C);
    else
      join(It->second, C);
  }
  if (Collapse)
    collapse(A);
}

ClassId Memory::field(ClassId C, const clang::FieldDecl *F) {
  C = find(C);
  const clang::RecordDecl *RD = F->getParent();
  if (Collapsed[C] || RD->isUnion())
    return C;
  if (Record[C] && Record[C] != RD) {
    collapse(C);
    return find(C);
  }
  Record[C] = RD;
  if (auto It = Fields[C].find(F); It != Fields[C].end())
    return find(It->second);
  const ClassId P = pointee(C);
  const ClassId New = fresh();
  Pointee[New] = int(P); // a field's pointers point where the object's do
  Owner[New] = int(C);
  Fields[C].emplace(F, New);
  return New;
}

void Memory::members(ClassId C, std::set<ClassId> &Out) {
  C = find(C);
  if (!Out.insert(C).second)
    return;
  std::vector<ClassId> Children;
  for (const auto &[F, X] : Fields[C])
    Children.push_back(X);
  for (ClassId X : Children)
    members(X, Out);
}

void Memory::collapse(ClassId C) {
  C = find(C);
  if (Collapsed[C])
    return;
  Collapsed[C] = 1;
  std::map<const clang::FieldDecl *, ClassId> Moved;
  Moved.swap(Fields[C]);
  for (const auto &[F, X] : Moved)
    join(C, X);
}

int Memory::fieldIfMade(ClassId C, const clang::FieldDecl *F) {
  C = find(C);
  if (!hasFieldsOf(C, F->getParent()))
    return int(C);
  auto It = Fields[C].find(F);
  return It == Fields[C].end() ? -1 : int(find(It->second));
}

bool Memory::hasFieldsOf(ClassId C, const clang::RecordDecl *RD) {
  C = find(C);
  return !Collapsed[C] && !RD->isUnion() && (!Record[C] || Record[C] == RD);
}

int Memory::owner(ClassId C) { return Owner[find(C)]; }

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
    else if (VD->isStaticLocal())
      StaticLocals.push_back(VD);
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
  PlainUses.insert(E.PlainUses.begin(), E.PlainUses.end());
  Calls.insert(Calls.end(), E.Calls.begin(), E.Calls.end());
  Criterion |= E.Criterion;
  OwnCriterion |= E.OwnCriterion;
  Mpi |= E.Mpi;
  ExternalCalls.insert(E.ExternalCalls.begin(), E.ExternalCalls.end());
}

// ---- locations and pointer values -------------------------------------------------------------

bool isMpiHandle(QualType T) {
  T = T.getCanonicalType();
  const auto *PT = T->getAs<PointerType>();
  if (!PT)
    return false;
  const RecordDecl *RD = PT->getPointeeType()->getAsRecordDecl();
  if (!RD || RD->getDefinition())
    return false;
  if (RD->getName().starts_with("ompi_"))
    return true;
  const SourceManager &SM = RD->getASTContext().getSourceManager();
  return llvm::sys::path::filename(SM.getFilename(SM.getExpansionLoc(RD->getLocation()))) ==
         "mpi.h";
}

bool pointerValue(QualType T) { return T->isPointerType() && !isMpiHandle(T); }

bool carriesPointers(QualType T) {
  if (isMpiHandle(T))
    return false;
  T = T.getCanonicalType();
  return T->isPointerType() || T->isRecordType() || T->isArrayType();
}

namespace {

bool isMpiName(StringRef Name) { return Name.starts_with("MPI_") || Name.starts_with("PMPI_"); }

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
  if (auto *ME = dyn_cast<MemberExpr>(E)) {
    const ClassId Object = ME->isArrow() ? points(ME->getBase()) : loc(ME->getBase());
    if (auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      return Mem.field(Object, F);
    return Object;
  }
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
      return reinterpreted(ICE, points(ICE->getSubExpr()));
    }
  }
  if (auto *CE = dyn_cast<CastExpr>(E))
    return reinterpreted(CE, points(CE->getSubExpr()));
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

ClassId UnitEffects::reinterpreted(const CastExpr *CE, ClassId P) {
  // A pointer into a field taken as a pointer to another type (not void or char: those read
  // and write the field's own bytes) may reach the other fields: they are one class again.
  if (CE->getCastKind() != CK_BitCast || !CE->getType()->isPointerType() ||
      !CE->getSubExpr()->getType()->isPointerType())
    return P;
  const QualType To = CE->getType()->getPointeeType().getCanonicalType().getUnqualifiedType();
  const QualType From =
      CE->getSubExpr()->getType()->getPointeeType().getCanonicalType().getUnqualifiedType();
  if (To == From || To->isVoidType() || To->isCharType())
    return P;
  if (const int Owner = Mem.owner(P); Owner >= 0)
    Mem.collapse(ClassId(Owner));
  return Mem.find(P);
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
    if (FD && !FD->hasBody(Def) && U.Program && U.Program->find(FD->getNameAsString()) &&
        carriesPointers(CE->getType())) {
      // A pointer returned by a procedure of another unit may point where its arguments do:
      // what is written through it is written there (External stands for the rest).
      for (const Expr *A : CE->arguments())
        if (pointerValue(A->getType()))
          U.Mem.join(U.Mem.External, U.points(A));
      return true;
    }
    if (FD && !FD->hasBody(Def) && U.Program) {
      // An argument the callee's unit keeps a pointer to: later calls may reach it without
      // being given it (they then touch hidden state, which stands for it).
      if (const ProcedureSummary *Known = U.Program->find(FD->getNameAsString()))
        for (unsigned I : Known->EscapesParams)
          if (I < CE->getNumArgs() && carriesPointers(CE->getArg(I)->getType()))
            U.Mem.join(U.Mem.External, U.points(CE->getArg(I)));
      return true;
    }
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
  EffectVisitor(UnitEffects &U, Effects &E, std::set<const FunctionDecl *> &Callees,
                const Exclusions *Except = nullptr)
      : U(U), E(E), Callees(Callees), SM(U.Ctx.getSourceManager()), Except(Except) {}

  bool TraverseStmt(Stmt *S, DataRecursionQueue *Queue = nullptr) {
    if (S && Except && Except->Skipped.count(S))
      return true;
    return RecursiveASTVisitor::TraverseStmt(S, Queue);
  }

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
    E.Criterion = E.OwnCriterion = true;
    world();
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) { // through a pointer: it may be anything, a communicating procedure included
      E.Criterion = E.OwnCriterion = true;
      world();
      pointerArgs(CE, nullptr, true);
      return true;
    }
    const std::string Name = FD->getNameAsString();
    if (isMpiName(Name)) {
      E.Criterion = E.OwnCriterion = E.Mpi = true;
      MpiCall &Call = E.Calls.emplace_back();
      Call.Routine = Name;
      for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
        const Expr *A = CE->getArg(I);
        // A handle (Open MPI's are pointers to the library's objects) is read as a value;
        // what it points to only MPI calls touch, and every MPI call stays.
        if (!pointerValue(A->getType()))
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
      E.Criterion = E.OwnCriterion = true;
    const FunctionDecl *Def = nullptr;
    if (FD->hasBody(Def)) {
      Callees.insert(Def);
      for (const ParmVarDecl *P : Def->parameters())
        def(U.Mem.var(P));
      // Its result, unless the statement passes it on by a flow of its own (Slice.cpp).
      if (!CE->getType()->isVoidType() && !(Except && Except->ResultPassed.count(CE)))
        use(U.result(Def));
      return true;
    }
    if (FD->getBuiltinID() || SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()))) {
      if (Name == "free")
        return true; // reads nothing a later statement could see: the memory is gone
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
    // A procedure of another unit: what the link step knows of it (LinkSummary.h), or else
    // it may communicate (its unit is instrumented too) and may touch anything it can reach.
    E.ExternalCalls.insert(Name);
    const ProcedureSummary *Known =
        U.Program && !FD->isVariadic() ? U.Program->find(Name) : nullptr;
    if (!Known) {
      E.Criterion = true;
      world();
      pointerArgs(CE, FD, true);
      return true;
    }
    E.Criterion |= Known->Communicates;
    // Message data some rank's kept statements steer on: what it sends is read (its sends'
    // buffers are among what it writes: an MPI call defines its buffers).
    bool Sends = false;
    for (const std::string &K : Known->SendKinds)
      Sends |= K == AnyKind ? !U.Program->Steered.empty() : U.Program->Steered.count(K) > 0;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const bool W = Known->WritesParams.count(I), R = Known->ReadsParams.count(I) || (Sends && W);
      if ((!W && !R) || !carriesPointers(CE->getArg(I)->getType()))
        continue;
      const ClassId P = U.points(CE->getArg(I));
      std::set<ClassId> Reach = U.reachFrom(P);
      Reach.insert(P);
      // Some fields only, where the summary says which (and this unit's record has them).
      const RecordDecl *RD = I < FD->getNumParams()
                                 ? UnitEffects::pointedRecord(FD->getParamDecl(I)->getType())
                                 : nullptr;
      auto part = [&](const FieldsByParam &Fields) {
        std::set<ClassId> Some;
        auto It = Fields.find(I);
        return RD && It != Fields.end() && U.fieldsReach(P, RD, It->second, Some) ? Some : Reach;
      };
      const std::set<ClassId> Written = W ? part(Known->WritesFields) : std::set<ClassId>();
      for (ClassId C : Written)
        def(C);
      if (Known->ReadsParams.count(I))
        for (ClassId C : part(Known->ReadsFields))
          use(C);
      if (Sends) // what it sends, among what it writes
        for (ClassId C : Written)
          E.Uses.insert(U.Mem.find(C));
    }
    for (const std::string &G : Known->WritesGlobals)
      for (ClassId C : globalReach(G))
        def(C);
    for (const std::string &G : Known->ReadsGlobals)
      for (ClassId C : globalReach(G))
        use(C);
    if (Sends)
      for (const std::string &G : Known->WritesGlobals)
        for (ClassId C : globalReach(G))
          E.Uses.insert(U.Mem.find(C));
    if (Known->HiddenState)
      for (ClassId C : {U.Mem.External, U.Mem.LibState, U.Mem.IoState}) {
        def(C);
        use(C);
      }
    return true;
  }

private:
  std::set<ClassId> globalReach(const std::string &Name) {
    const ClassId G = U.named(Name);
    std::set<ClassId> Reach = U.reachFrom(G);
    Reach.insert(G);
    return Reach;
  }
  void def(ClassId C) { E.Defs.insert(U.Mem.find(C)); }
  void use(ClassId C) {
    E.Uses.insert(U.Mem.find(C));
    E.PlainUses.insert(U.Mem.find(C));
  }
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
      if (!pointerValue(A->getType()))
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
  const Exclusions *Except;
};

} // namespace

UnitEffects::UnitEffects(ASTContext &Ctx, const LinkSummary *Program, std::string Unit)
    : Program(Program), Unit(std::move(Unit)), Ctx(Ctx) {
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
    S.OwnCriterion = S.Local.OwnCriterion;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[FD, S] : Summaries)
      for (const FunctionDecl *Callee : S.Callees) {
        auto It = Summaries.find(Callee);
        if (It == Summaries.end() || It->first == FD)
          continue;
        const Summary &C = It->second;
        const size_t Before =
            S.Local.Defs.size() + S.Local.Uses.size() + S.Local.ExternalCalls.size();
        S.Local.Defs.insert(C.Local.Defs.begin(), C.Local.Defs.end());
        S.Local.Uses.insert(C.Local.Uses.begin(), C.Local.Uses.end());
        S.Local.ExternalCalls.insert(C.Local.ExternalCalls.begin(), C.Local.ExternalCalls.end());
        const bool Comm = S.Communicates || C.Communicates;
        const bool Own = S.OwnCriterion || C.OwnCriterion;
        if (Before != S.Local.Defs.size() + S.Local.Uses.size() + S.Local.ExternalCalls.size() ||
            Comm != S.Communicates || Own != S.OwnCriterion)
          Changed = true;
        S.Communicates = Comm;
        S.OwnCriterion = Own;
      }
  }
}

bool UnitEffects::mayCommunicate(const FunctionDecl *FD) const {
  auto It = Summaries.find(FD);
  return It != Summaries.end() && It->second.Communicates;
}

ClassId UnitEffects::result(const FunctionDecl *FD) {
  auto [It, New] = Results.try_emplace(FD->getCanonicalDecl(), 0);
  if (New)
    It->second = Mem.fresh();
  return Mem.find(It->second);
}

Effects UnitEffects::effects(const Stmt *S, const Exclusions *Except) {
  Effects E;
  if (!S)
    return E;
  std::set<const FunctionDecl *> Callees;
  EffectVisitor V(*this, E, Callees, Except);
  V.TraverseStmt(const_cast<Stmt *>(S));
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : Callees) {
    auto It = Summaries.find(FD);
    if (It == Summaries.end())
      continue;
    const Summary &Sum = It->second;
    E.Defs.insert(Sum.Local.Defs.begin(), Sum.Local.Defs.end());
    // A procedure of the main file is sliced itself: its kept statements are in the graph with
    // their own uses. Any other callee (a header's) is kept whole: all it reads counts.
    const bool Sliced = SM.isInMainFile(SM.getExpansionLoc(FD->getLocation()));
    if (!Sliced) {
      E.Uses.insert(Sum.Local.Uses.begin(), Sum.Local.Uses.end());
      E.PlainUses.insert(Sum.Local.Uses.begin(), Sum.Local.Uses.end());
    }
    E.Criterion |= Sum.Communicates;
  }
  // Classes may have merged since the summaries were taken: resolve.
  std::set<ClassId> Defs, Uses;
  for (ClassId C : E.Defs)
    Defs.insert(Mem.find(C));
  for (ClassId C : E.Uses)
    Uses.insert(Mem.find(C));
  std::set<ClassId> Plain;
  for (ClassId C : E.PlainUses)
    Plain.insert(Mem.find(C));
  E.Defs.swap(Defs);
  E.Uses.swap(Uses);
  E.PlainUses.swap(Plain);
  return E;
}

std::set<ClassId> UnitEffects::reachFrom(ClassId C) {
  // C's members, then what they point to and its members, to four levels.
  std::set<ClassId> Out;
  Mem.members(C, Out);
  Out.erase(Mem.find(C));
  for (int Depth = 0; Depth < 4; ++Depth) {
    C = Mem.pointee(C);
    const size_t Before = Out.size();
    Mem.members(C, Out);
    if (Out.size() == Before)
      break;
  }
  return Out;
}

std::set<ClassId> UnitEffects::whole(const std::set<ClassId> &Classes) {
  std::set<ClassId> Out;
  for (ClassId C : Classes)
    Mem.members(C, Out);
  return Out;
}

namespace {

/// Whether a value of type T holds pointers the program may follow (not MPI handles): a
/// pointer, or an array or record of them, to a few levels of records.
bool holdsPointers(QualType T, int Depth = 0) {
  T = T.getCanonicalType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  if (T->isPointerType())
    return !isMpiHandle(T);
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD || !(RD = RD->getDefinition()))
    return false;
  if (Depth > 4)
    return true;
  for (const FieldDecl *F : RD->fields())
    if (holdsPointers(F->getType(), Depth + 1))
      return true;
  return false;
}

bool meetsAny(const std::set<ClassId> &A, const std::set<ClassId> &B) {
  for (ClassId C : A)
    if (B.count(C))
      return true;
  return false;
}

} // namespace

const RecordDecl *UnitEffects::pointedRecord(QualType T) {
  T = T.getCanonicalType();
  if (!pointerValue(T))
    return nullptr;
  const RecordDecl *RD = T->getPointeeType()->getAsRecordDecl();
  RD = RD ? RD->getDefinition() : nullptr;
  return RD && !RD->isUnion() ? RD : nullptr;
}

bool UnitEffects::fieldsMeeting(ClassId Obj, const RecordDecl *RD, const std::set<ClassId> &Set,
                                std::set<std::string> &Out) {
  Obj = Mem.find(Obj);
  if (!Mem.hasFieldsOf(Obj, RD))
    return false;
  std::set<ClassId> Hit;
  {
    std::set<ClassId> All = reachFrom(Obj);
    All.insert(Obj);
    for (ClassId C : Set)
      if (All.count(Mem.find(C)))
        Hit.insert(Mem.find(C));
  }
  std::set<ClassId> Covered;
  // What every pointer field reaches: a field's pointers point where the object's do.
  std::optional<std::set<ClassId>> Deep;
  for (const FieldDecl *F : RD->fields()) {
    if (F->getName().empty())
      return false; // an anonymous member: no name to give
    std::set<ClassId> Own;
    if (const int C = Mem.fieldIfMade(Obj, F); C >= 0)
      Mem.members(ClassId(C), Own);
    if (meetsAny(Own, Hit))
      Out.insert(F->getNameAsString());
    Covered.insert(Own.begin(), Own.end());
    if (!holdsPointers(F->getType()))
      continue;
    if (!Deep) {
      const ClassId P = Mem.pointee(Obj);
      Deep = reachFrom(P);
      Deep->insert(P);
      Covered.insert(Deep->begin(), Deep->end());
    }
    if (meetsAny(*Deep, Hit))
      Out.insert(F->getNameAsString() + "*");
  }
  for (ClassId C : Hit)
    if (!Covered.count(C))
      return false;
  return true;
}

bool UnitEffects::paramMeets(const ParmVarDecl *Param, const std::set<ClassId> &Set,
                             std::optional<std::set<std::string>> &Fields) {
  Fields.reset();
  const ClassId Obj = Mem.pointee(Mem.var(Param));
  std::set<ClassId> Reach = reachFrom(Obj);
  Reach.insert(Mem.find(Obj));
  if (!meetsAny(Reach, Set))
    return false;
  std::set<std::string> Names;
  if (const RecordDecl *RD = pointedRecord(Param->getType());
      RD && fieldsMeeting(Obj, RD, Set, Names))
    Fields = std::move(Names);
  return true;
}

bool UnitEffects::fieldsReach(ClassId Obj, const RecordDecl *RD, const std::set<std::string> &Names,
                              std::set<ClassId> &Out) {
  Obj = Mem.find(Obj);
  if (!Mem.hasFieldsOf(Obj, RD))
    return false;
  std::set<ClassId> R;
  for (const std::string &Name : Names) {
    const bool Deep = !Name.empty() && Name.back() == '*';
    const StringRef Base = StringRef(Name).drop_back(Deep ? 1 : 0);
    const FieldDecl *Found = nullptr;
    for (const FieldDecl *F : RD->fields())
      if (F->getName() == Base)
        Found = F;
    if (!Found || Base.empty())
      return false;
    const ClassId C = Mem.field(Obj, Found);
    if (Mem.find(C) == Mem.find(Obj))
      return false;
    if (!Deep) {
      Mem.members(C, R);
    } else if (holdsPointers(Found->getType())) {
      const ClassId P = Mem.pointee(C);
      std::set<ClassId> Reach = reachFrom(P);
      R.insert(Reach.begin(), Reach.end());
      R.insert(Mem.find(P));
    }
  }
  Out.insert(R.begin(), R.end());
  return true;
}

std::string UnitEffects::globalName(const VarDecl *VD) const {
  return VD->isExternallyVisible() ? VD->getNameAsString() : Unit + "#" + VD->getNameAsString();
}

ClassId UnitEffects::named(const std::string &Name) {
  // A global of this unit (by its own name, or unit#name for its static storage) is its
  // variable's class; another unit's static storage, or a global this unit does not declare,
  // a class per name (this unit can reach it only through those procedures' calls).
  std::string Local = Name;
  if (size_t Hash = Name.rfind('#'); Hash != std::string::npos)
    Local = Name.substr(0, Hash) == Unit ? Name.substr(Hash + 1) : std::string();
  if (!Local.empty())
    for (const NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Local)))
      if (auto *VD = dyn_cast<VarDecl>(D); VD && VD->hasGlobalStorage() && globalName(VD) == Name)
        return Mem.var(VD);
  auto [It, New] = Named.try_emplace(Name, 0);
  if (New)
    It->second = Mem.fresh();
  return Mem.find(It->second);
}

std::set<const FunctionDecl *> addressTaken(ASTContext &Ctx) {
  struct Refs : RecursiveASTVisitor<Refs> {
    std::set<const Expr *> Callees;
    std::vector<const DeclRefExpr *> All;
    bool VisitCallExpr(CallExpr *CE) {
      Callees.insert(CE->getCallee()->IgnoreParenImpCasts());
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *DR) {
      if (isa<FunctionDecl>(DR->getDecl()))
        All.push_back(DR);
      return true;
    }
  } R;
  R.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::set<const FunctionDecl *> Out;
  for (const DeclRefExpr *DR : R.All)
    if (!R.Callees.count(DR))
      Out.insert(cast<FunctionDecl>(DR->getDecl())->getCanonicalDecl());
  return Out;
}

LinkSummary UnitEffects::linkSummary(const FunctionDecl *const *Begin,
                                     const FunctionDecl *const *End) {
  LinkSummary Out;
  Out.Unit = Unit;
  // Procedures whose address is taken: their callers are not all seen.
  for (const FunctionDecl *FD : addressTaken(Ctx))
    Out.AddressTaken.insert(FD->getNameAsString());
  for (const auto &[FD, S] : Summaries)
    Out.ExternalCalls.insert(S.Local.ExternalCalls.begin(), S.Local.ExternalCalls.end());
  // Every global the unit touches, with what it reaches.
  std::vector<std::pair<std::string, std::set<ClassId>>> Globals;
  for (size_t I = 0; I < Mem.Globals.size(); ++I) {
    const ClassId G = Mem.var(Mem.Globals[I]);
    std::set<ClassId> Reach = reachFrom(G);
    Reach.insert(Mem.find(G));
    Globals.emplace_back(globalName(Mem.Globals[I]), std::move(Reach));
  }
  auto paramReach = [&](const ParmVarDecl *Param) {
    const ClassId C = Mem.pointee(Mem.var(Param));
    std::set<ClassId> Reach = reachFrom(C);
    Reach.insert(Mem.find(C));
    return Reach;
  };
  // Escaped: memory a caller passed in (or got back) that the unit's storage keeps a pointer
  // to, so that a later call may reach it by another way than its arguments.
  std::set<ClassId> Stored, Passed, Escaped;
  for (const auto &[Name, Reach] : Globals)
    Stored.insert(Reach.begin(), Reach.end());
  for (const VarDecl *VD : Mem.StaticLocals) {
    const ClassId C = Mem.var(VD);
    std::set<ClassId> Reach = reachFrom(C);
    Reach.insert(Mem.find(C));
    Stored.insert(Reach.begin(), Reach.end());
  }
  for (const FunctionDecl *const *It = Begin; It != End; ++It) {
    for (const ParmVarDecl *Param : (*It)->parameters())
      if (carriesPointers(Param->getType())) {
        std::set<ClassId> R = paramReach(Param);
        Passed.insert(R.begin(), R.end());
      }
    if (carriesPointers((*It)->getReturnType())) {
      const ClassId C = Mem.returned(*It);
      std::set<ClassId> R = reachFrom(C);
      R.insert(Mem.find(C));
      Passed.insert(R.begin(), R.end());
    }
  }
  for (ClassId C : Passed)
    if (Stored.count(C))
      Escaped.insert(C);
  std::set<ClassId> Hidden = Escaped;
  Hidden.insert({Mem.find(Mem.External), Mem.find(Mem.LibState), Mem.find(Mem.IoState)});
  for (const VarDecl *VD : Mem.StaticLocals)
    Hidden.insert(Mem.var(VD));
  for (const FunctionDecl *const *It = Begin; It != End; ++It) {
    const FunctionDecl *FD = *It;
    auto SIt = Summaries.find(FD);
    if (SIt == Summaries.end())
      continue;
    const Summary &S = SIt->second;
    ProcedureSummary P;
    P.Name = FD->getNameAsString();
    P.Communicates = S.OwnCriterion;
    P.Calls = S.Local.ExternalCalls;
    const std::set<ClassId> Defs = whole(S.Local.Defs), Uses = whole(S.Local.Uses);
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const ParmVarDecl *Param = FD->getParamDecl(I);
      if (!carriesPointers(Param->getType()))
        continue;
      std::optional<std::set<std::string>> Fields;
      if (paramMeets(Param, Defs, Fields)) {
        P.WritesParams.insert(I);
        if (Fields)
          P.WritesFields[I] = std::move(*Fields);
      }
      if (paramMeets(Param, Uses, Fields)) {
        P.ReadsParams.insert(I);
        if (Fields)
          P.ReadsFields[I] = std::move(*Fields);
      }
    }
    for (const auto &[Name, Reach] : Globals) {
      if (meetsAny(Reach, Defs))
        P.WritesGlobals.insert(Name);
      if (meetsAny(Reach, Uses))
        P.ReadsGlobals.insert(Name);
    }
    for (unsigned I = 0; I < FD->getNumParams(); ++I)
      if (carriesPointers(FD->getParamDecl(I)->getType()) &&
          meetsAny(paramReach(FD->getParamDecl(I)), Escaped))
        P.EscapesParams.insert(I);
    // What the names above do not cover but a caller may see: the external world, state kept
    // in static locals, and memory the unit's storage holds pointers to.
    P.HiddenState = meetsAny(Hidden, Defs) || meetsAny(Hidden, Uses);
    // Its message kinds, through the unit's procedures it calls.
    std::set<const FunctionDecl *> Seen{FD};
    std::vector<const FunctionDecl *> Work{FD};
    while (!Work.empty()) {
      auto It2 = Summaries.find(Work.back());
      Work.pop_back();
      if (It2 == Summaries.end())
        continue;
      for (const MpiCall &C : It2->second.Local.Calls)
        P.SendKinds.insert(C.PointToPoint() ? std::string(PointToPointKind) : C.Routine);
      for (const FunctionDecl *Callee : It2->second.Callees)
        if (Seen.insert(Callee).second)
          Work.push_back(Callee);
    }
    Out.Procedures.push_back(std::move(P));
  }
  return Out;
}

Effects UnitEffects::initEffects(const VarDecl *VD) {
  Effects E = effects(VD->getInit());
  E.Defs.insert(Mem.var(VD));
  return E;
}

} // namespace mpiete::slice
