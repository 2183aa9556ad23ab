// The skeleton slice of a C unit (Slice.h): the statements of its procedures as nodes of the
// language-neutral dependence graph (SliceGraph.h), searched from the MPI calls.
#include "Slice.h"
#include "SliceEffects.h"
#include "SliceGraph.h"

#include "mpiete/basedata/ProgramModel.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

using namespace clang;

namespace mpiete {
namespace {

using slice::ClassId;
using slice::Effects;

/// One statement the slice judges: a simple statement, a declaration's initialiser, or the
/// head (condition, init, increment) of an if, loop or switch, which stands for the whole.
struct Node {
  const Stmt *S = nullptr;
  const VarDecl *Init = nullptr;
  int Parent = -1;                 ///< the head of the enclosing if, loop or switch
  std::vector<const Stmt *> Parts; ///< what the node evaluates (a head: not its body)
  int Target = -1;                 ///< break / continue: the head of the loop or switch it leaves
  Effects E;
  const FunctionDecl *Fn = nullptr; ///< the procedure it is in (null: a procedure's exit)
  /// Values the node passes on (SliceGraph.h's flows): a call's result into what the
  /// statement assigns, an argument into a parameter of a procedure of the unit, a return's
  /// value into the procedure's result. Replace: the text that becomes 0 when the value is
  /// not needed; External: another unit's call whose result it is (then demanded).
  struct Flow {
    std::set<ClassId> Into, From;
    const Expr *Replace = nullptr;
    const CallExpr *External = nullptr;
  };
  std::vector<Flow> Flows;
  /// Arguments of other units' procedures whose skeleton does not read them: 0.
  std::vector<const Expr *> Zeroed;
  /// Nodes kept whenever this one is: the early returns that could skip it.
  std::vector<int> Keeps;
};

class Slicer {
public:
  Slicer(ASTContext &Ctx, UnitModel &Model, const LinkSummary *Program)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), Model(Model),
        U(Ctx, Program, Model.Source), Program(Program) {}

  /// The unit's link summary: its procedures other units may call.
  LinkSummary summary() {
    std::vector<const FunctionDecl *> Exported;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (auto *FD = dyn_cast<FunctionDecl>(D);
          FD && FD->doesThisDeclarationHaveABody() && FD->isExternallyVisible() && !FD->isMain() &&
          SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
        Exported.push_back(FD);
    LinkSummary S = U.linkSummary(Exported.data(), Exported.data() + Exported.size());
    S.ContentHash = Model.ContentHash;
    for (ProcedureSummary &P : S.Procedures)
      if (auto It = ValueParamsOf.find(P.Name); It != ValueParamsOf.end()) {
        P.ValueParams = It->second;
        P.ValuesKnown = true;
      }
    if (!Model.Sliced) {
      // Not sliced (no MPI calls): every call runs with all it is given.
      std::vector<const FunctionDecl *> None;
      demands(None);
    }
    S.Demands = Demands;
    for (auto &[Name, Fields] : DemandFieldsOf)
      if (!Fields.empty())
        S.DemandFields[Name] = Fields;
    if (Model.Sliced)
      keptReads(Exported, S);
    // Only what this unit's own kept statements steer on: the kinds the program forced on it
    // come back from the units that steer on them, while they do.
    S.Steered = Result.Steered;
    return S;
  }

  void run() {
    std::vector<const FunctionDecl *> Procs;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
      auto *FD = dyn_cast<FunctionDecl>(D);
      // Every procedure of the main file, communicating or not: a kept call of one that does
      // not communicate runs only what the kept statements need of it (c-warmup's generation()
      // swaps the pointers its halo exchange reads; its loop goes).
      if (!FD || !FD->doesThisDeclarationHaveABody() ||
          !SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
        continue;
      Procs.push_back(FD);
      SlicedProcs.insert(FD);
    }
    AddressTaken = slice::addressTaken(Ctx);
    privateClasses();
    for (const FunctionDecl *FD : Procs) {
      Current = FD;
      const size_t First = Nodes.size();
      NestedReturns.clear();
      if (FD->isMain())
        walkMain(FD->getBody());
      else
        walk(FD->getBody(), -1, -1, -1);
      controlAfterReturns(First);
      if (FD->isExternallyVisible() && !FD->isMain())
        exported(FD);
    }
    Current = nullptr;
    solve();
    demands(Procs);
    valueParams(Procs);
    Model.Sliced = true;
    Model.SliceStatements = unsigned(Nodes.size());
    const size_t FirstRemoval = Model.SkeletonRemovals.size();
    for (const FunctionDecl *FD : Procs) {
      Procedure = FD->getNameAsString();
      decide(FD->getBody());
    }
    zeroValuesNotNeeded();
    // A statement counts as removed when its text went: one the slice did not need but could
    // not remove (part of a macro's expansion, a way in from a label) is counted kept.
    for (size_t I = 0; I < Nodes.size(); ++I)
      Model.SliceRemovedStatements += !Result.Relevant[I] && textRemoved(Nodes[I], FirstRemoval);
    if (std::getenv("MPIETE_SLICE_DEBUG"))
      dump();
  }

  /// The graph's nodes and what was kept, for debugging the slice (MPIETE_SLICE_DEBUG=1).
  void dump() const {
    for (size_t I = 0; I < Nodes.size(); ++I) {
      const Node &N = Nodes[I];
      SourceLocation L = N.S      ? N.S->getBeginLoc()
                         : N.Init ? N.Init->getLocation()
                                  : SourceLocation();
      llvm::errs() << "slice: node " << I << " line "
                   << (L.isValid() ? SM.getPresumedLineNumber(SM.getExpansionLoc(L)) : 0)
                   << (Result.Relevant[I] ? " kept" : " removed")
                   << (N.E.Criterion ? " criterion" : "") << " parent " << N.Parent << " defs";
      for (ClassId C : N.E.Defs)
        llvm::errs() << ' ' << C;
      llvm::errs() << " uses";
      for (ClassId C : N.E.Uses)
        llvm::errs() << ' ' << C;
      for (size_t F = 0; F < N.Flows.size(); ++F) {
        llvm::errs() << " flow" << (Result.FlowNeeded[I][F] ? "(needed)" : "") << " into";
        for (ClassId C : N.Flows[F].Into)
          llvm::errs() << ' ' << C;
        llvm::errs() << " from";
        for (ClassId C : N.Flows[F].From)
          llvm::errs() << ' ' << C;
      }
      for (const slice::MpiCall &C : N.E.Calls) {
        llvm::errs() << ' ' << C.Routine << " receives";
        for (ClassId B : C.RecvBuffers)
          llvm::errs() << ' ' << B;
      }
      if (!N.Zeroed.empty())
        llvm::errs() << " zeroed " << N.Zeroed.size();
      llvm::errs() << '\n';
    }
  }

private:
  // ---- the statements -----------------------------------------------------------------------

  /// A call of MPI_Finalize as a whole statement: `MPI_Finalize();`, `(void)MPI_Finalize();`,
  /// `rc = MPI_Finalize();`.
  static bool isFinalizeCall(const Stmt *S) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    if (!E)
      return false;
    E = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<CStyleCastExpr>(E))
      E = Cast->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == BO_Assign)
      E = BO->getRHS()->IgnoreParenImpCasts();
    const auto *CE = dyn_cast<CallExpr>(E);
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    return FD && FD->getIdentifier() &&
           (FD->getName() == "MPI_Finalize" || FD->getName() == "PMPI_Finalize");
  }

  /// Whether S, if it ends the program, does nothing else: a return whose value calls
  /// nothing, or an expression whose only calls are exit, _Exit, quick_exit or abort.
  static bool onlyEndsTheProgram(const Stmt *S) {
    struct Calls : RecursiveASTVisitor<Calls> {
      bool Other = false;
      bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *FD = CE->getDirectCallee();
        const StringRef Name = FD && FD->getIdentifier() ? FD->getName() : StringRef();
        Other =
            Other || (Name != "exit" && Name != "_Exit" && Name != "quick_exit" && Name != "abort");
        return !Other;
      }
    } C;
    if (!isa<ReturnStmt>(S) && !isa<Expr>(S))
      return false;
    C.TraverseStmt(const_cast<Stmt *>(S));
    return !C.Other;
  }

  /// main's statements. Those after its MPI_Finalize call (a statement of main's own body:
  /// every later statement of it runs after the call) can change no MPI call, which the
  /// standard forbids after MPI_Finalize: `return errors == 0 ? 0 : 1;` (ring, transpose: the
  /// program's own check of results) or an exit() there ends a run whose trace is complete,
  /// so it is no criterion, and what decides its value (an error count reduced to rank 0) no
  /// longer keeps the computation. Not where a goto may come into them (a label there).
  void walkMain(const Stmt *Body) {
    const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
    if (!CS) {
      walk(Body, -1, -1, -1);
      return;
    }
    struct Labels : RecursiveASTVisitor<Labels> {
      bool Found = false;
      bool VisitLabelStmt(LabelStmt *) {
        Found = true;
        return false;
      }
    };
    auto hasLabel = [](const Stmt *Child) {
      Labels L;
      L.TraverseStmt(const_cast<Stmt *>(Child));
      return L.Found;
    };
    const auto Children = CS->body();
    const auto Fin = std::find_if(Children.begin(), Children.end(), isFinalizeCall);
    const bool Tail = Fin != Children.end() && std::none_of(Fin + 1, Children.end(), hasLabel);
    for (auto It = Children.begin(); It != Children.end(); ++It) {
      AfterFinalize = Tail && It > Fin;
      walk(*It, -1, -1, -1);
    }
    AfterFinalize = false;
  }

  int add(const Stmt *S, int Parent, Effects E) {
    // (One that reads nothing, `return 0;`, costs nothing: it stays, with its exit status.)
    if (AfterFinalize && S && E.Criterion && !E.Mpi && E.ExternalCalls.empty() && !E.Uses.empty() &&
        onlyEndsTheProgram(S))
      E.Criterion = E.OwnCriterion = false; // after MPI_Finalize (walkMain)
    Node N;
    N.S = S;
    N.Fn = Current;
    N.Parent = Parent;
    N.E = std::move(E);
    Nodes.push_back(std::move(N));
    if (S)
      StmtNode[S] = int(Nodes.size() - 1);
    return int(Nodes.size() - 1);
  }

  /// A procedure other units may call: what it leaves behind for its caller (through pointer
  /// parameters, in globals) may be needed there, and this unit cannot tell: a node that
  /// needs all of it.
  void exported(const FunctionDecl *FD) {
    Effects E;
    E.Criterion = true;
    auto reach = [&](ClassId C) {
      std::set<ClassId> Reach = U.reachFrom(C);
      Reach.insert(U.Mem.find(C));
      E.Uses.insert(Reach.begin(), Reach.end());
      E.PlainUses.insert(Reach.begin(), Reach.end());
    };
    // With the whole program, every caller seen: only what some caller's kept statements read.
    const ProcedureSummary *Known = Program ? Program->find(FD->getNameAsString()) : nullptr;
    if (Known && !Known->CallersKnown)
      Known = nullptr;
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const ParmVarDecl *P = FD->getParamDecl(I);
      if (!(slice::pointerValue(P->getType()) || P->getType()->isRecordType()) ||
          (Known && !Known->DemandedParams.count(I)))
        continue;
      const ClassId Obj = U.Mem.pointee(U.Mem.var(P));
      // Some fields only, where every caller's demand names them.
      std::set<ClassId> Some;
      const RecordDecl *RD = slice::UnitEffects::pointedRecord(P->getType());
      const std::set<std::string> *Names = nullptr;
      if (Known)
        if (auto It = Known->DemandedFields.find(I); It != Known->DemandedFields.end())
          Names = &It->second;
      if (Names && RD && U.fieldsReach(Obj, RD, *Names, Some)) {
        E.Uses.insert(Some.begin(), Some.end());
        E.PlainUses.insert(Some.begin(), Some.end());
        continue;
      }
      reach(Obj);
    }
    for (size_t I = 0; I < U.Mem.Globals.size(); ++I)
      reach(U.Mem.var(U.Mem.Globals[I]));
    reach(U.Mem.External);
    // Its result, where some other unit's kept statement uses it (or a caller is not seen).
    if (!FD->getReturnType()->isVoidType() && (!Known || Known->DemandedParams.count(ResultDemand)))
      E.Uses.insert(U.result(FD));
    ExportNodes.insert(size_t(add(nullptr, -1, E)));
  }

  /// A return inside an if or loop of a procedure (not main) is kept where what it can skip
  /// is: a statement after it, or any of a loop around it (the next iterations), or that
  /// loop's head; or where its value is used (it defines the procedure's result). A later
  /// return needs it only for the value. So an early `return 1.0;` on a condition of the
  /// data goes with the computation that decides it, when nothing after it is kept.
  void controlAfterReturns(size_t First) {
    for (int R : NestedReturns) {
      // The outermost loop around it, if any.
      int Loop = -1;
      for (int P = Nodes[size_t(R)].Parent; P >= 0; P = Nodes[size_t(P)].Parent)
        if (isa_and_nonnull<ForStmt, WhileStmt, DoStmt>(Nodes[size_t(P)].S))
          Loop = P;
      auto inLoop = [&](size_t N) {
        for (int P = int(N); P >= 0; P = Nodes[size_t(P)].Parent)
          if (P == Loop)
            return true;
        return false;
      };
      for (size_t N = First; N < Nodes.size(); ++N)
        if (!isa_and_nonnull<ReturnStmt>(Nodes[N].S) && (N > size_t(R) || (Loop >= 0 && inLoop(N))))
          Nodes[N].Keeps.push_back(R);
    }
  }

  Effects headEffects(std::initializer_list<const Stmt *> Parts) {
    Effects E;
    for (const Stmt *P : Parts)
      E.add(U.effects(P));
    HeadParts.assign(Parts.begin(), Parts.end());
    return E;
  }

  /// Adds a head node: its parts are those headEffects saw last.
  int addHead(const Stmt *S, int Parent, Effects E) {
    const int N = add(S, Parent, std::move(E));
    Nodes[size_t(N)].Parts = HeadParts;
    Nodes[size_t(N)].Parts.push_back(nullptr); // a head: S itself is not evaluated whole
    return N;
  }

  void walk(const Stmt *S, int Parent, int Break, int Continue) {
    if (!S || isa<NullStmt>(S))
      return;
    if (auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *Child : CS->body())
        walk(Child, Parent, Break, Continue);
      return;
    }
    if (auto *L = dyn_cast<LabelStmt>(S)) {
      Effects E;
      E.Criterion = true; // a goto may come here
      add(nullptr, Parent, E);
      walk(L->getSubStmt(), Parent, Break, Continue);
      return;
    }
    if (auto *C = dyn_cast<SwitchCase>(S)) {
      walk(C->getSubStmt(), Parent, Break, Continue);
      return;
    }
    if (auto *If = dyn_cast<IfStmt>(S)) {
      int N =
          addHead(S, Parent,
                  headEffects({If->getInit(), If->getConditionVariableDeclStmt(), If->getCond()}));
      walk(If->getThen(), N, Break, Continue);
      walk(If->getElse(), N, Break, Continue);
      return;
    }
    if (auto *For = dyn_cast<ForStmt>(S)) {
      int N = addHead(S, Parent,
                      headEffects({For->getInit(), For->getConditionVariableDeclStmt(),
                                   For->getCond(), For->getInc()}));
      walk(For->getBody(), N, N, N);
      return;
    }
    if (auto *While = dyn_cast<WhileStmt>(S)) {
      int N = addHead(S, Parent,
                      headEffects({While->getConditionVariableDeclStmt(), While->getCond()}));
      walk(While->getBody(), N, N, N);
      return;
    }
    if (auto *Do = dyn_cast<DoStmt>(S)) {
      int N = addHead(S, Parent, headEffects({Do->getCond()}));
      walk(Do->getBody(), N, N, N);
      return;
    }
    if (auto *Sw = dyn_cast<SwitchStmt>(S)) {
      int N =
          addHead(S, Parent,
                  headEffects({Sw->getInit(), Sw->getConditionVariableDeclStmt(), Sw->getCond()}));
      walk(Sw->getBody(), N, N, Continue);
      return;
    }
    if (isa<BreakStmt, ContinueStmt>(S)) {
      int N = add(S, Parent, Effects());
      Nodes[N].Target = isa<BreakStmt>(S) ? Break : Continue;
      return;
    }
    if (auto *RS = dyn_cast<ReturnStmt>(S); RS && returnFlow(RS, Parent))
      return;
    if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt>(S)) {
      Effects E = U.effects(S);
      // `return;` inside a construct of a procedure (not main): needed where what it skips
      // is (controlAfterReturns).
      const bool Nested = isa<ReturnStmt>(S) && !cast<ReturnStmt>(S)->getRetValue() &&
                          Parent >= 0 && Current && !Current->isMain();
      E.Criterion = !Nested;
      const int N = add(S, Parent, E);
      if (Nested)
        NestedReturns.push_back(N);
      return;
    }
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || VD->hasGlobalStorage())
          continue;
        if (!VD->hasInit() && !VD->getType()->isVariablyModifiedType())
          continue;
        std::vector<Node::Flow> Flows;
        std::vector<const Expr *> Zeroed;
        Effects E;
        if (VD->hasInit()) {
          const slice::Exclusions X =
              callFlows(VD->getInit(), {U.Mem.var(VD)}, /*Discarded=*/false, Flows, Zeroed);
          E = U.effects(VD->getInit(), &X);
          E.Defs.insert(U.Mem.var(VD));
        } else {
          E = U.effects(DS);
        }
        int N = add(nullptr, Parent, E);
        Nodes[N].Flows = std::move(Flows);
        Nodes[N].Zeroed = std::move(Zeroed);
        Nodes[N].Init = VD;
        if (!VD->hasInit())
          Nodes[N].E.Criterion = true; // a variable-length array: its size is evaluated
      }
      return;
    }
    std::vector<Node::Flow> Flows;
    std::vector<const Expr *> Zeroed;
    slice::Exclusions X;
    if (auto *Ex = dyn_cast<Expr>(S)) {
      const Expr *V = Ex->IgnoreParens();
      if (const auto *Cast = dyn_cast<CStyleCastExpr>(V); Cast && Cast->getType()->isVoidType())
        V = Cast->getSubExpr()->IgnoreParens();
      if (const auto *BO = dyn_cast<BinaryOperator>(V); BO && BO->getOpcode() == BO_Assign)
        X = callFlows(BO->getRHS(), {U.loc(BO->getLHS())}, false, Flows, Zeroed);
      else
        X = callFlows(V, {}, /*Discarded=*/true, Flows, Zeroed);
    }
    Effects E = U.effects(S, &X);
    if (!isa<Expr>(S))
      E.Criterion = true; // asm and anything else the slice does not know
    const int N = add(S, Parent, E);
    Nodes[size_t(N)].Flows = std::move(Flows);
    Nodes[size_t(N)].Zeroed = std::move(Zeroed);
  }

  // ---- values passed on ---------------------------------------------------------------------

  /// E's text can be replaced: whole tokens of the main file, outside macros.
  bool replaceable(const Expr *E) const {
    if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
      return false;
    CharSourceRange R =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
    return R.isValid() && offsetOf(R.getBegin()) >= 0 && offsetOf(R.getEnd()) >= 0;
  }

  /// An expression that only reads, or calls procedures of the unit that write only their own
  /// locals (transpose's local_sum): no MPI, no library state, no other unit, nothing a later
  /// statement could see. 0 may stand for it.
  bool readsOnly(const Expr *E) {
    const Effects Fx = U.effects(E);
    if (!Fx.Calls.empty() || Fx.Criterion || !Fx.ExternalCalls.empty())
      return false;
    for (ClassId C : Fx.Defs)
      if (!PrivateClasses.count(U.Mem.find(C)))
        return false;
    return true;
  }

  /// The classes of the procedures' own variables that nothing else can reach: parameters and
  /// locals (not static, not arrays) whose address is never taken.
  void privateClasses() {
    struct Vars : RecursiveASTVisitor<Vars> {
      std::set<const VarDecl *> Own, Addressed;
      bool VisitVarDecl(VarDecl *VD) {
        if (VD->isLocalVarDeclOrParm() && !VD->isStaticLocal() && !VD->getType()->isArrayType())
          Own.insert(VD);
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator *UO) {
        if (UO->getOpcode() == UO_AddrOf)
          if (auto *DR = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParens()))
            if (auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
              Addressed.insert(VD);
        return true;
      }
    } V;
    V.TraverseDecl(Ctx.getTranslationUnitDecl());
    for (const VarDecl *VD : V.Own)
      if (!V.Addressed.count(VD))
        PrivateClasses.insert(U.Mem.var(VD));
  }

  static bool scalar(QualType T) { return T->isArithmeticType() || T->isPointerType(); }

  /// `return value;` in a procedure of the unit (not main: its value is the exit status)
  /// whose address is not taken and whose value reads only: the return stays, its value is a
  /// flow into the procedure's result, needed only where some kept statement uses the result.
  bool returnFlow(const ReturnStmt *RS, int Parent) {
    const Expr *V = RS->getRetValue();
    if (!V || !Current || Current->isMain() || AddressTaken.count(Current->getCanonicalDecl()) ||
        !scalar(Current->getReturnType()) || !replaceable(V) || !readsOnly(V))
      return false;
    Effects E;
    E.Criterion = Parent < 0; // its text stays; a nested one: controlAfterReturns
    const ClassId R = U.result(Current);
    E.Defs.insert(R);
    const int N = add(RS, Parent, E);
    if (Parent >= 0)
      NestedReturns.push_back(N);
    Node::Flow F;
    F.Into = {R};
    F.From = U.effects(V).Uses;
    F.Replace = V;
    Nodes[size_t(N)].Flows.push_back(std::move(F));
    return true;
  }

  /// V, the value a statement computes (Into: what it assigns it to; Discarded: nothing): when
  /// V is a call of a procedure the unit slices, its result and its arithmetic arguments that
  /// read only are flows; when V calls another unit's procedure, its result is a flow into
  /// Into and the arguments its skeleton does not read become 0. What the flows take over is
  /// left out of the statement's own effects (the returned exclusions).
  slice::Exclusions callFlows(const Expr *V, std::set<ClassId> Into, bool Discarded,
                              std::vector<Node::Flow> &Flows, std::vector<const Expr *> &Zeroed) {
    slice::Exclusions X;
    const auto *CE = dyn_cast<CallExpr>(V->IgnoreParenImpCasts());
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    if (!FD || FD->isVariadic())
      return X;
    const FunctionDecl *Def = nullptr;
    if (FD->hasBody(Def)) {
      if (!SlicedProcs.count(Def))
        return X;
      X.ResultPassed.insert(CE);
      if (!Discarded && !CE->getType()->isVoidType()) {
        Node::Flow F;
        F.Into = Into;
        F.From = {U.result(Def)};
        Flows.push_back(std::move(F));
      }
      for (unsigned I = 0; I < CE->getNumArgs() && I < Def->getNumParams(); ++I) {
        const Expr *A = CE->getArg(I);
        if (!Def->getParamDecl(I)->getType()->isArithmeticType() || !replaceable(A) ||
            !readsOnly(A))
          continue;
        Node::Flow F;
        F.Into = {U.Mem.var(Def->getParamDecl(I))};
        F.From = U.effects(A).Uses;
        F.Replace = A;
        Flows.push_back(std::move(F));
        X.Skipped.insert(A);
      }
      return X;
    }
    if (!Program || FD->getBuiltinID() ||
        SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) ||
        FD->getName().starts_with("MPI_") || FD->getName().starts_with("PMPI_"))
      return X;
    const ProcedureSummary *Known = Program->find(FD->getNameAsString());
    if (!Known)
      return X;
    if (!CE->getType()->isVoidType()) {
      if (Discarded) {
        DiscardedResults.insert(CE);
      } else {
        Node::Flow F;
        F.Into = Into;
        F.External = CE;
        Flows.push_back(std::move(F));
      }
    }
    if (Known->ValuesKnown)
      for (unsigned I = 0; I < CE->getNumArgs() && I < FD->getNumParams(); ++I) {
        const Expr *A = CE->getArg(I);
        if (Known->ValueParams.count(I) || !FD->getParamDecl(I)->getType()->isArithmeticType() ||
            !replaceable(A) || !readsOnly(A))
          continue;
        Zeroed.push_back(A);
        X.Skipped.insert(A);
      }
    return X;
  }

  /// The arithmetic parameters of each exported procedure the skeleton slices whose value a
  /// kept statement reads (LinkSummary's ValueParams).
  void valueParams(const std::vector<const FunctionDecl *> &Procs) {
    const std::set<unsigned> &Used = Result.Used;
    for (const FunctionDecl *FD : Procs) {
      if (FD->isMain() || !FD->isExternallyVisible())
        continue;
      std::set<unsigned> &Params = ValueParamsOf[FD->getNameAsString()];
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const ParmVarDecl *P = FD->getParamDecl(I);
        if (!P->getType()->isArithmeticType() || Used.count(U.Mem.var(P)))
          Params.insert(I);
      }
    }
  }

  /// What the kept nodes read (resolved): their uses (Plain: without the message data other
  /// units' procedures send, Effects::PlainUses), the contents of their sends of a needed
  /// kind, the values of their flows needed; Demanded: with the nodes that stand for what an
  /// exported procedure's callers demand of it (exported()).
  std::set<ClassId> keptUses(bool Plain, bool Demanded) {
    std::set<ClassId> Out;
    for (size_t I = 0; I < Nodes.size(); ++I) {
      if (!Result.Relevant[I] || (!Demanded && ExportNodes.count(I)))
        continue;
      const Node &N = Nodes[I];
      for (ClassId C : Plain ? N.E.PlainUses : N.E.Uses)
        Out.insert(U.Mem.find(C));
      for (const slice::MpiCall &C : N.E.Calls)
        if (C.PointToPoint() ? Result.PointToPoint : Result.Collectives.count(C.Routine) > 0)
          for (ClassId B : C.SendBuffers)
            Out.insert(U.Mem.find(B));
      for (size_t F = 0; F < N.Flows.size(); ++F)
        if (Result.FlowNeeded[I][F])
          for (ClassId C : N.Flows[F].From)
            Out.insert(U.Mem.find(C));
    }
    return Out;
  }

  /// The memory a sliced exported procedure's skeleton reads through its pointer parameters:
  /// what the unit's kept statements read (their uses, the values of their flows needed, the
  /// contents of their sends needed), not what its callers demand of it.
  void keptReads(const std::vector<const FunctionDecl *> &Exported, LinkSummary &S) {
    const std::set<ClassId> Kept = U.whole(keptUses(/*Plain=*/false, /*Demanded=*/false));
    for (const FunctionDecl *FD : Exported) {
      ProcedureSummary *P = nullptr;
      for (ProcedureSummary &Q : S.Procedures)
        if (Q.Name == FD->getNameAsString() && Q.ValuesKnown)
          P = &Q;
      if (!P)
        continue;
      P->ReadsParams.clear();
      P->ReadsFields.clear();
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const ParmVarDecl *Param = FD->getParamDecl(I);
        std::optional<std::set<std::string>> Fields;
        if (!slice::carriesPointers(Param->getType()) || !U.paramMeets(Param, Kept, Fields))
          continue;
        P->ReadsParams.insert(I);
        if (Fields)
          P->ReadsFields[I] = std::move(*Fields);
      }
    }
  }

  /// Kept statements' values that no kept statement needs: their text becomes 0.
  void zeroValuesNotNeeded() {
    for (size_t I = 0; I < Nodes.size(); ++I) {
      if (!Result.Relevant[I])
        continue;
      Procedure = Nodes[I].Fn ? Nodes[I].Fn->getNameAsString() : std::string();
      for (size_t F = 0; F < Nodes[I].Flows.size(); ++F)
        if (!Result.FlowNeeded[I][F] && Nodes[I].Flows[F].Replace)
          zero(Nodes[I].Flows[F].Replace);
      for (const Expr *A : Nodes[I].Zeroed)
        zero(A);
    }
  }

  void zero(const Expr *E) {
    CharSourceRange R =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
    const int Begin = offsetOf(R.getBegin()), End = offsetOf(R.getEnd());
    if (!R.isValid() || Begin < 0 || End <= Begin)
      return;
    record(Begin, End, false, R.getBegin());
    SkeletonRemoval &Rec = Model.SkeletonRemovals.back();
    Rec.Replacement.assign(1, '0');
    Rec.Text = "value not needed, 0: " + Rec.Text;
  }

  // ---- the dependence graph ---------------------------------------------------------------

  /// Resolves every node's classes (they may have merged after the node was made) and solves
  /// the language-neutral graph (SliceGraph.h), with the kinds other units steer on.
  void solve() {
    // A class stands for the whole object: its fields' classes with it.
    auto resolve = [&](std::set<ClassId> &Set) {
      std::set<ClassId> R = U.whole(Set);
      Set.swap(R);
    };
    std::vector<slice::GraphNode> G(Nodes.size());
    for (size_t I = 0; I < Nodes.size(); ++I) {
      Effects &E = Nodes[I].E;
      resolve(E.Defs);
      resolve(E.Uses);
      resolve(E.PlainUses);
      slice::GraphNode &N = G[I];
      N.Parent = Nodes[I].Parent;
      N.Keeps = Nodes[I].Keeps;
      N.Target = Nodes[I].Target;
      N.Criterion = E.Criterion;
      N.Defs = E.Defs;
      N.Uses = E.Uses;
      for (slice::MpiCall &C : E.Calls) {
        resolve(C.SendBuffers);
        resolve(C.RecvBuffers);
        N.Calls.push_back({C.Routine, C.PointToPoint(), C.SendBuffers, C.RecvBuffers});
      }
      for (Node::Flow &F : Nodes[I].Flows) {
        resolve(F.Into);
        resolve(F.From);
        N.Flows.push_back({F.Into, F.From});
      }
    }
    Result = slice::solveSlice(G, Program ? Program->Steered : std::set<std::string>{});
    Model.SliceKeepsMessageData = Result.KeepsMessageData;
  }

  /// What this unit's kept statements need of other units' procedures (LinkSummary::Demands):
  /// for each call of one in a kept statement, the arguments whose memory a kept statement
  /// reads (or a steered send sends); a call in a procedure that is not sliced (kept whole)
  /// needs all of them.
  void demands(const std::vector<const FunctionDecl *> &Procs) {
    // What an exported procedure's callers demand of it counts: it may come from this call.
    const std::set<ClassId> Read = keptUses(/*Plain=*/true, /*Demanded=*/true);
    // Other units' calls whose result a kept statement uses: all but those whose value is
    // discarded or passed on by a flow not needed.
    std::set<const CallExpr *> ResultNotNeeded(DiscardedResults.begin(), DiscardedResults.end());
    for (size_t I = 0; I < Nodes.size(); ++I)
      for (size_t F = 0; F < Nodes[I].Flows.size(); ++F)
        if (Nodes[I].Flows[F].External && !(Result.Relevant[I] && Result.FlowNeeded[I][F]))
          ResultNotNeeded.insert(Nodes[I].Flows[F].External);
    struct Calls : RecursiveASTVisitor<Calls> {
      std::vector<const CallExpr *> List;
      bool VisitCallExpr(CallExpr *CE) {
        List.push_back(CE);
        return true;
      }
    };
    auto external = [&](const CallExpr *CE) -> const FunctionDecl * {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD || FD->hasBody() || FD->getBuiltinID() ||
          SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) ||
          FD->getName().starts_with("MPI_") || FD->getName().starts_with("PMPI_"))
        return nullptr;
      return FD;
    };
    auto demand = [&](const CallExpr *CE, bool All) {
      const FunctionDecl *FD = external(CE);
      if (!FD)
        return;
      std::set<unsigned> &Params = Demands[FD->getNameAsString()];
      if (!CE->getType()->isVoidType() && (All || !ResultNotNeeded.count(CE)))
        Params.insert(ResultDemand);
      for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
        const Expr *A = CE->getArg(I);
        if (!(slice::pointerValue(A->getType()) || A->getType()->isRecordType()))
          continue;
        const ClassId P = U.Mem.find(U.points(A));
        std::set<ClassId> Reach = U.reachFrom(P);
        Reach.insert(P);
        bool Needed = All;
        for (ClassId C : Reach)
          Needed |= Read.count(U.Mem.find(C)) > 0;
        if (!Needed)
          continue;
        Params.insert(I);
        // Of a record, the fields kept statements read, where they are fields only.
        const RecordDecl *RD =
            I < FD->getNumParams()
                ? slice::UnitEffects::pointedRecord(FD->getParamDecl(I)->getType())
                : nullptr;
        std::set<std::string> Fields;
        std::set<unsigned> &Whole = WholeDemands[FD->getNameAsString()];
        if (!All && RD && !Whole.count(I) && U.fieldsMeeting(P, RD, Read, Fields)) {
          DemandFieldsOf[FD->getNameAsString()][I].insert(Fields.begin(), Fields.end());
        } else {
          Whole.insert(I);
          DemandFieldsOf[FD->getNameAsString()].erase(I);
        }
      }
    };
    for (size_t I = 0; I < Nodes.size(); ++I) {
      if (!Result.Relevant[I])
        continue;
      const Node &N = Nodes[I];
      std::vector<const Stmt *> Parts = N.Parts;
      if (Parts.empty())
        Parts.push_back(N.Init ? N.Init->getInit() : N.S);
      for (const Stmt *P : Parts) {
        if (!P)
          continue;
        Calls C;
        C.TraverseStmt(const_cast<Stmt *>(P));
        for (const CallExpr *CE : C.List)
          demand(CE, false);
      }
    }
    // Procedures kept whole: every call of theirs runs with all it is given.
    std::set<const FunctionDecl *> Sliced(Procs.begin(), Procs.end());
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (auto *FD = dyn_cast<FunctionDecl>(D);
          FD && FD->doesThisDeclarationHaveABody() && !Sliced.count(FD)) {
        Calls C;
        C.TraverseStmt(FD->getBody());
        for (const CallExpr *CE : C.List)
          demand(CE, true);
      }
  }

  // ---- the removals -----------------------------------------------------------------------

  bool relevant(const Stmt *S) const {
    auto It = StmtNode.find(S);
    return It == StmtNode.end() || Result.Relevant[size_t(It->second)];
  }

  void decide(const Stmt *S) {
    if (!S || isa<NullStmt>(S))
      return;
    if (auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *Child : CS->body())
        decide(Child);
      return;
    }
    if (auto *L = dyn_cast<LabelStmt>(S))
      return decide(L->getSubStmt());
    if (auto *C = dyn_cast<SwitchCase>(S))
      return decide(C->getSubStmt());
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (auto *VD = dyn_cast<VarDecl>(D))
          for (size_t I = 0; I < Nodes.size(); ++I)
            if (Nodes[I].Init == VD && !Result.Relevant[I])
              removeInit(VD);
      return;
    }
    if (!relevant(S)) {
      removeStmt(S);
      return;
    }
    if (auto *If = dyn_cast<IfStmt>(S)) {
      decide(If->getThen());
      decide(If->getElse());
    } else if (auto *For = dyn_cast<ForStmt>(S)) {
      decide(For->getBody());
    } else if (auto *While = dyn_cast<WhileStmt>(S)) {
      decide(While->getBody());
    } else if (auto *Do = dyn_cast<DoStmt>(S)) {
      decide(Do->getBody());
    } else if (auto *Sw = dyn_cast<SwitchStmt>(S)) {
      decide(Sw->getBody());
    }
  }

  /// Whether the removals recorded from index First on took N's text away: a removal of a
  /// statement that holds its first character, or (an initialiser) its own removal.
  bool textRemoved(const Node &N, size_t First) const {
    if (!N.S && !N.Init)
      return true;
    if (N.Init && RemovedInits.count(N.Init))
      return true;
    const int Off =
        offsetOf(SM.getExpansionLoc(N.Init ? N.Init->getLocation() : N.S->getBeginLoc()));
    if (Off < 0)
      return false;
    for (size_t I = First; I < Model.SkeletonRemovals.size(); ++I) {
      const SkeletonRemoval &R = Model.SkeletonRemovals[I];
      if (!R.Initializer && R.Begin <= unsigned(Off) && unsigned(Off) < R.End)
        return true;
    }
    return false;
  }

  int offsetOf(SourceLocation Loc) const {
    if (Loc.isMacroID())
      return -1;
    auto [FID, Off] = SM.getDecomposedLoc(Loc);
    return FID == SM.getMainFileID() ? int(Off) : -1;
  }

  /// A way into S from outside (a label, or a case of a switch outside S): S must stay.
  static bool entered(const Stmt *S, bool InSwitch) {
    if (!S)
      return false;
    if (isa<LabelStmt>(S) || (isa<SwitchCase>(S) && !InSwitch))
      return true;
    const bool Inner = InSwitch || isa<SwitchStmt>(S);
    for (const Stmt *Child : S->children())
      if (entered(Child, Inner))
        return true;
    return false;
  }

  void record(int Begin, int End, bool Initializer, SourceLocation Loc) {
    SkeletonRemoval R;
    R.Begin = unsigned(Begin);
    R.End = unsigned(End);
    R.Initializer = Initializer;
    PresumedLoc P = SM.getPresumedLoc(Loc);
    R.Line = P.isValid() ? P.getLine() : 0;
    R.Col = P.isValid() ? P.getColumn() : 0;
    R.Procedure = Procedure;
    StringRef Text = SM.getBufferData(SM.getMainFileID()).substr(R.Begin, R.End - R.Begin);
    Text = Text.substr(0, Text.find('\n')).trim();
    R.Text = Text.size() > 72 ? Text.substr(0, 69).str() + "..." : Text.str();
    Model.SkeletonRemovals.push_back(std::move(R));
  }

  /// Removes S's text. A statement that begins or ends in a macro's expansion (`x = y %
  /// PRIME;`) is removed by the text it expands from when that text is whole macro
  /// invocations and file text, the range Clang maps back to the file; one that is only part
  /// of a macro's expansion stays (its text cannot be removed alone).
  void removeStmt(const Stmt *S) {
    if (entered(S, false))
      return;
    CharSourceRange Range =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
    if (Range.isInvalid())
      return;
    const int Begin = offsetOf(Range.getBegin());
    SourceLocation After = Range.getEnd();
    if (Begin < 0 || After.isInvalid())
      return;
    if (!isa<DeclStmt>(S)) {
      Token Next;
      if (!Lexer::getRawToken(After, Next, SM, LO, /*IgnoreWhiteSpace=*/true) && Next.is(tok::semi))
        After = Next.getEndLoc();
    }
    const int End = offsetOf(After);
    if (End <= Begin)
      return;
    record(Begin, End, false, Range.getBegin());
  }

  /// Removes ` = init` of a scalar or pointer variable (an array or a record keeps its
  /// initialiser: its size or layout may come from it).
  void removeInit(const VarDecl *VD) {
    const Expr *Init = VD->getInit();
    QualType T = VD->getType();
    if (!Init || !(T->isScalarType()) || VD->getLocation().isMacroID() ||
        Init->getBeginLoc().isMacroID() || Init->getEndLoc().isMacroID())
      return;
    // The '=' after the declarator.
    SourceLocation Loc = VD->getLocation();
    int Depth = 0;
    for (int Guard = 0; Guard < 64; ++Guard) {
      std::optional<Token> Tok = Lexer::findNextToken(Loc, SM, LO);
      if (!Tok || Tok->getLocation().isMacroID())
        return;
      if (Tok->isOneOf(tok::l_square, tok::l_paren))
        ++Depth;
      else if (Tok->isOneOf(tok::r_square, tok::r_paren))
        --Depth;
      else if (Tok->is(tok::equal) && Depth == 0) {
        Loc = Tok->getLocation();
        break;
      }
      Loc = Tok->getLocation();
      if (Tok->isOneOf(tok::semi, tok::comma) && Depth == 0)
        return;
    }
    const int Begin = offsetOf(Loc);
    const int End = offsetOf(Lexer::getLocForEndOfToken(Init->getEndLoc(), 0, SM, LO));
    if (Begin < 0 || End <= Begin || SM.getCharacterData(Loc)[0] != '=')
      return;
    record(Begin, End, true, VD->getLocation());
    RemovedInits.insert(VD);
    Model.SkeletonRemovals.back().Text =
        VD->getNameAsString() + " " + Model.SkeletonRemovals.back().Text;
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  UnitModel &Model;
  slice::UnitEffects U;
  std::vector<Node> Nodes;
  std::map<const Stmt *, int> StmtNode;
  std::set<const VarDecl *> RemovedInits; ///< initialisers whose text went
  bool AfterFinalize = false;             ///< walking main's statements after its MPI_Finalize call
  /// The solved graph: kept nodes, the send kinds whose contents are needed, the kinds this
  /// unit's kept statements steer on (a unit not sliced: empty).
  slice::SliceResult Result;
  std::string Procedure;
  const LinkSummary *Program;
  std::map<std::string, std::set<unsigned>> Demands;
  std::vector<const Stmt *> HeadParts;         ///< the parts of the head headEffects saw last
  const FunctionDecl *Current = nullptr;       ///< the procedure being walked
  std::set<const FunctionDecl *> SlicedProcs;  ///< the unit's procedures the slice walks
  std::set<const FunctionDecl *> AddressTaken; ///< called through pointers too
  std::set<ClassId> PrivateClasses;            ///< procedures' own unaliased variables
  std::set<const CallExpr *> DiscardedResults; ///< other units' calls whose value is unused
  std::map<std::string, std::set<unsigned>> ValueParamsOf; ///< exported: parameters read
  /// Other units' procedures: parameters kept statements read in some fields only (by name),
  /// and those they read whole.
  std::map<std::string, FieldsByParam> DemandFieldsOf;
  std::map<std::string, std::set<unsigned>> WholeDemands;
  std::set<size_t> ExportNodes;   ///< the nodes exported() adds: callers' demands, not reads
  std::vector<int> NestedReturns; ///< the procedure being walked: returns inside constructs
};

} // namespace

void sliceUnit(ASTContext &Ctx, UnitModel &Model, const LinkSummary *Program, LinkSummary *Summary,
               bool Slice) {
  Slicer S(Ctx, Model, Program);
  if (Slice)
    S.run();
  if (Summary)
    *Summary = S.summary();
}

} // namespace mpiete
