// Builds the program model of a C translation unit from Clang's AST: which procedures
// communicate, how their bodies split into compute blocks, and every MPI call site.
#include "mpiete/frontend/CFrontend.h"
#include "CommunicationAnalysis.h"
#include "SampledLoopRules.h"
#include "Slice.h"

#include "mpiete/frontend/BlockPartition.h"
#include "mpiete/frontend/MpiRoutines.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Hash.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

using namespace clang;

namespace mpiete {
namespace {

using c::CommunicationAnalysis;
using c::isMpiName;
using c::mpiCallee;
using c::StmtFacts;

/// Where a diagnostic points. ClangTool makes the main file's path absolute; the user wants
/// it as given on the command line, as a compiler reports it (editors and make output jump
/// to it), so the main file is named by the unit path unless a #line directive renamed it.
DiagLoc diagLocOf(const SourceManager &SM, SourceLocation Loc, const std::string &UnitPath) {
  PresumedLoc P = SM.getPresumedLoc(Loc);
  if (P.isInvalid())
    return {UnitPath, 0, 0};
  std::string File = P.getFilename();
  // In the main file and not renamed by a #line directive: the path as the user gave it.
  PresumedLoc Real = SM.getPresumedLoc(Loc, /*UseLineDirectives=*/false);
  if (SM.getFileID(SM.getExpansionLoc(Loc)) == SM.getMainFileID() && Real.isValid() &&
      File == Real.getFilename())
    File = UnitPath;
  return {File, P.getLine(), P.getColumn()};
}

/// Remembers the user (non-system) files the unit reads, for the content hash.
class UserFileCollector : public PPCallbacks {
public:
  explicit UserFileCollector(std::vector<FileID> &Files) : Files(Files) {}
  void LexedFileChanged(FileID FID, LexedFileChangeReason Reason, SrcMgr::CharacteristicKind Kind,
                        FileID, SourceLocation) override {
    if (Reason == LexedFileChangeReason::EnterFile && Kind == SrcMgr::C_User && FID.isValid())
      Files.push_back(FID);
  }

private:
  std::vector<FileID> &Files;
};

/// Partitions the bodies of communicating procedures into blocks and records every MPI call.
class UnitBuilder {
public:
  UnitBuilder(ASTContext &Ctx, const CommunicationAnalysis &CA, UnitModel &Model,
              DiagnosticSink &Diags, Partition Mode, const std::vector<SourceLocation> &Pragmas)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), CA(CA), Model(Model),
        Diags(Diags), Policy(Mode == Partition::Seed), Segments(Mode == Partition::Segments),
        MainFID(SM.getMainFileID()), Sampling(SM, LO, Pragmas) {}

  /// Partitions FD's body. Listed: FD communicates, or (segments) may through code the unit
  /// cannot see; otherwise it is walked for its sampled loops only and listed if it has one.
  void procedure(FunctionDecl *FD, bool Listed = true) {
    Procedure = FD->getNameAsString();
    const size_t BlocksBefore = Model.Blocks.size();
    LoopStack.clear();
    Sampling.startFunction(FD->getBody());
    if (auto *Body = dyn_cast<CompoundStmt>(FD->getBody()))
      sequence(llvm::ArrayRef<Stmt *>(Body->body_begin(), Body->body_end()), false);
    if (Listed || Model.Blocks.size() > BlocksBefore)
      Model.Procedures.push_back(Procedure);
  }

  DiagLoc diagLoc(SourceLocation Loc) const {
    return diagLocOf(SM, SM.getExpansionLoc(Loc), Model.Source);
  }

private:
  // ---- positions --------------------------------------------------------------------------

  /// Offset of a location in the main file (macro locations map to their expansion), or -1.
  int offsetOf(SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    auto [FID, Off] = SM.getDecomposedLoc(Loc);
    return FID == MainFID ? static_cast<int>(Off) : -1;
  }

  /// Offset of the first character of S (its expansion when S comes from a macro).
  int beginOffset(const Stmt *S) const { return offsetOf(S->getBeginLoc()); }

  /// Offset just past S, including a ';' that terminates it.
  int endOffset(const Stmt *S) const {
    SourceLocation End = SM.getExpansionRange(S->getEndLoc()).getEnd();
    if (SM.getFileID(End) != MainFID)
      return -1;
    SourceLocation After = Lexer::getLocForEndOfToken(End, 0, SM, LO);
    if (After.isInvalid())
      return -1;
    // A NullStmt's ';' or a DeclStmt's end already covers the terminator.
    if (!isa<NullStmt>(S) && !isa<DeclStmt>(S)) {
      std::optional<Token> Next = Lexer::findNextToken(End, SM, LO);
      if (Next && Next->is(tok::semi) && SM.getFileID(Next->getLocation()) == MainFID)
        After = Next->getEndLoc();
    }
    return offsetOf(After);
  }

  unsigned lineOf(SourceLocation Loc) const {
    return SM.getPresumedLineNumber(SM.getExpansionLoc(Loc));
  }
  unsigned colOf(SourceLocation Loc) const {
    return SM.getPresumedColumnNumber(SM.getExpansionLoc(Loc));
  }

  StringRef presumedFile(const Stmt *S) const {
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(S->getBeginLoc()));
    return P.isValid() ? StringRef(P.getFilename()) : StringRef();
  }

  bool fromMacro(const Stmt *S) const {
    return S->getBeginLoc().isMacroID() || S->getEndLoc().isMacroID();
  }

  // ---- classification ----------------------------------------------------------------------

  StmtFacts facts(Stmt *S) const { return c::factsOf(S, CA, SM); }

  /// S described for the partition policy (BlockPartition.h). A loop, if or switch is a
  /// structure; so is a compound holding one, unless it comes whole from a macro (we cannot
  /// edit inside it). Labels, case labels and jumps are found by the facts.
  StmtTraits traits(Stmt *S) const {
    StmtTraits T;
    if (!S)
      return T;
    T.File = presumedFile(S).str();
    if (!fromMacro(S)) {
      T.Structured = isa<ForStmt, WhileStmt, DoStmt, IfStmt, SwitchStmt>(S);
      if (auto *CS = dyn_cast<CompoundStmt>(S)) {
        for (Stmt *Child : CS->body())
          T += traits(Child);
        return T;
      }
    }
    StmtFacts F = facts(S);
    T.Communicates = F.MpiCall || F.CommunicatingCall;
    T.Jumps = F.EscapingJump || F.NoReturnCall;
    T.Entered = F.JumpTarget;
    T.NoCode = trivial(S);
    T.Declaration = isa<DeclStmt>(S);
    return T;
  }

  /// A statement that can sit inside a compute block: nothing inside that communicates or
  /// leaves the block. In seed mode also no structure at statement level (unless it comes whole
  /// from a macro); by default a loop, if or switch made only of such computation is computation
  /// too, so loop nests and branches in hot loops cost one hook per execution of the whole, not
  /// one per inner statement (docs/transforms.md).
  bool isPure(Stmt *S) const { return Policy.isComputation(traits(S)); }

  // ---- the partition ---------------------------------------------------------------------

  struct Run {
    std::vector<Stmt *> Stmts;
    std::vector<StmtTraits> Traits;
    bool empty() const { return Stmts.empty(); }
  };

  void sequence(llvm::ArrayRef<Stmt *> Stmts, bool SingleSlot) {
    Run R;
    for (Stmt *S : Stmts)
      statement(S, R, SingleSlot);
    flush(R, SingleSlot);
  }

  void statement(Stmt *S, Run &R, bool SingleSlot) {
    if (!S)
      return;
    if (StmtTraits T = traits(S); Policy.isComputation(T) && !holdsOpaqueLoop(S)) {
      sampledLoops(S);
      // A #line directive that changes the file ends the block: a block's lines are in one file.
      if (!R.empty() && !Policy.continuesRun(R.Traits.back(), T))
        flush(R, SingleSlot);
      R.Stmts.push_back(S);
      R.Traits.push_back(std::move(T));
      return;
    }
    flush(R, SingleSlot);
    if (fromMacro(S)) {
      // A whole statement from a macro: we cannot edit inside it, only rename calls spelled
      // in its arguments.
      collectCalls(S);
      return;
    }
    if (auto *L = dyn_cast<LabelStmt>(S)) {
      statement(L->getSubStmt(), R, SingleSlot);
      return;
    }
    if (auto *C = dyn_cast<SwitchCase>(S)) {
      if (auto *CS = dyn_cast<CaseStmt>(C))
        collectCalls(CS->getLHS());
      statement(C->getSubStmt(), R, SingleSlot);
      return;
    }
    if (auto *CS = dyn_cast<CompoundStmt>(S)) {
      sequence(llvm::ArrayRef<Stmt *>(CS->body_begin(), CS->body_end()), false);
      return;
    }
    if (auto *If = dyn_cast<IfStmt>(S)) {
      collectCalls(If->getInit());
      collectCalls(If->getConditionVariableDeclStmt());
      collectCalls(If->getCond());
      slot(If->getThen());
      slot(If->getElse());
      return;
    }
    if (auto *Sw = dyn_cast<SwitchStmt>(S)) {
      collectCalls(Sw->getInit());
      collectCalls(Sw->getConditionVariableDeclStmt());
      collectCalls(Sw->getCond());
      slot(Sw->getBody());
      return;
    }
    if (isa<ForStmt, WhileStmt, DoStmt>(S)) {
      loop(S);
      return;
    }
    // return / goto / break / continue, or an expression or declaration that communicates.
    collectCalls(S);
  }

  /// Segments: S is or holds a loop that calls code the unit cannot see, so the walk goes in
  /// to give that loop its opaque hooks.
  bool holdsOpaqueLoop(Stmt *S) const {
    if (!Segments || fromMacro(S))
      return false;
    const StmtFacts F = facts(S);
    return F.HiddenCall && F.Loop;
  }

  void slot(Stmt *S) {
    if (!S)
      return;
    if (auto *CS = dyn_cast<CompoundStmt>(S); CS && !fromMacro(CS)) {
      sequence(llvm::ArrayRef<Stmt *>(CS->body_begin(), CS->body_end()), false);
      return;
    }
    sequence(llvm::ArrayRef<Stmt *>(&S, 1), true);
  }

  void loop(Stmt *S) {
    Stmt *Body = nullptr;
    llvm::SmallVector<Stmt *, 4> Header;
    std::string Kind;
    if (auto *F = dyn_cast<ForStmt>(S)) {
      Kind = "for";
      Header = {F->getInit(), F->getConditionVariableDeclStmt(), F->getCond(), F->getInc()};
      Body = F->getBody();
    } else if (auto *W = dyn_cast<WhileStmt>(S)) {
      Kind = "while";
      Header = {W->getConditionVariableDeclStmt(), W->getCond()};
      Body = W->getBody();
    } else {
      auto *D = cast<DoStmt>(S);
      Kind = "do";
      Header = {D->getCond()};
      Body = D->getBody();
    }

    // A C loop's header is code run on every trip (its condition, its increment).
    StmtTraits HeaderTraits;
    for (Stmt *H : Header)
      HeaderTraits += traits(H);
    StmtTraits BodyTraits = traits(Body);
    // Segments: a loop without MPI calls (here because it jumps) has nothing to rewrite and
    // gets no hooks, unless it calls code the unit cannot see, which may communicate: then it
    // gets the opaque hooks (the timing probe's cap follows it; nothing else does).
    if (Segments && !HeaderTraits.Communicates && !BodyTraits.Communicates) {
      if (const StmtFacts F = facts(S); F.HiddenCall)
        loopSite(S, Body, F, /*Opaque=*/true);
      sampledLoops(Body);
      return;
    }

    LoopInfo Info;
    Info.Kind = Kind;
    Info.Procedure = Procedure;
    Info.Line = lineOf(S->getBeginLoc());
    Info.Col = colOf(S->getBeginLoc());
    Info.Parent = LoopStack.empty() ? -1 : static_cast<int>(LoopStack.back());
    unsigned LoopIndex = Model.Loops.size();
    Model.Loops.push_back(Info);

    if (Segments)
      loopSite(S, Body, facts(S));
    else if (Policy.timedWhole(HeaderTraits, {&BodyTraits, 1}) && wholeLoop(S, Body, LoopIndex))
      return;

    bool IsDo = isa<DoStmt>(S);
    if (!IsDo)
      for (Stmt *H : Header)
        collectCalls(H);
    LoopStack.push_back(LoopIndex);
    slot(Body);
    LoopStack.pop_back();
    if (IsDo)
      for (Stmt *H : Header)
        collectCalls(H);
  }

  /// Segments: a loop that contains MPI calls is a site of kind loop, whose id its iteration
  /// hook (top of the body) and exit hook (after the loop) carry. A loop whose text is not all
  /// in the main file gets no hooks: the runtime copes with missing ones. F: the loop's facts.
  void loopSite(Stmt *S, Stmt *Body, const StmtFacts &F, bool Opaque = false) {
    int LB = beginOffset(S), LE = endOffset(S);
    auto *CS = dyn_cast<CompoundStmt>(Body);
    if (CS && fromMacro(CS))
      CS = nullptr;
    int BB = CS ? offsetOf(CS->getLBracLoc()) + 1 : beginOffset(Body);
    int BE = CS ? offsetOf(CS->getRBracLoc()) : endOffset(Body);
    if (LB < 0 || LE < 0 || BB <= 0 || BE < 0 || LB >= BB || BB > BE || BE > LE || fromMacro(Body))
      return;
    // The cap leaves a loop with `break` and goes on after it; a loop the program leaves by
    // return, goto or a call that never returns (exit, abort) would then run what follows it,
    // which the original never does there (in a function that returns a value, fall off its
    // end). Such a loop is followed, never capped; an opaque one gets no hooks at all.
    const bool Leaves = !F.EscapingJump && !F.NoReturnCall;
    if (Opaque && !Leaves)
      return;
    ComputeEdits E;
    E.LoopBegin = E.Begin = LB;
    E.LoopEnd = E.End = LE;
    E.BodyBegin = BB;
    E.BodyEnd = BE;
    E.BodyIsCompound = CS != nullptr;
    E.OpaqueLoop = Opaque;
    E.Leaves = Leaves;
    Block B = newBlock(BlockKind::Loop, S->getBeginLoc(), S->getEndLoc());
    B.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
  }

  /// Segments: the outermost loops to sample (ComputeEdits::SampledLoop) in S, computation
  /// that no MPI call of the unit interrupts. The search does not enter a sampled loop, a
  /// statement from a macro, nor an OpenMP directive (its loops may run in threads).
  void sampledLoops(Stmt *S) {
    if (!Segments || !S || fromMacro(S))
      return;
    if (auto *For = dyn_cast<ForStmt>(S); For && sampledLoop(For))
      return;
    if (auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (Stmt *Child : CS->body())
        sampledLoops(Child);
    } else if (auto *L = dyn_cast<LabelStmt>(S)) {
      sampledLoops(L->getSubStmt());
    } else if (auto *C = dyn_cast<SwitchCase>(S)) {
      sampledLoops(C->getSubStmt());
    } else if (auto *If = dyn_cast<IfStmt>(S)) {
      sampledLoops(If->getThen());
      sampledLoops(If->getElse());
    } else if (auto *Sw = dyn_cast<SwitchStmt>(S)) {
      sampledLoops(Sw->getBody());
    } else if (auto *F = dyn_cast<ForStmt>(S)) {
      sampledLoops(F->getBody());
    } else if (auto *W = dyn_cast<WhileStmt>(S)) {
      sampledLoops(W->getBody());
    } else if (auto *D = dyn_cast<DoStmt>(S)) {
      sampledLoops(D->getBody());
    }
  }

  /// A loop of pure computation whose iterations the timing probe may skip: what its calls do
  /// is judged here (never a loop with MPI calls or the opaque hooks), the rest by the rules.
  bool sampledLoop(ForStmt *For) {
    const StmtFacts F = facts(For);
    if (F.MpiCall || F.CommunicatingCall || F.HiddenCall || F.NoReturnCall || F.EscapingJump ||
        F.JumpTarget || !Sampling.eligible(For))
      return false;
    auto *Body = cast<CompoundStmt>(For->getBody());
    const int LB = beginOffset(For), LE = endOffset(For);
    const int BB = offsetOf(Body->getLBracLoc()) + 1, BE = offsetOf(Body->getRBracLoc());
    if (LB < 0 || LE < 0 || BB <= 0 || BE < 0 || LB >= BB || BB > BE || BE >= LE)
      return false;
    ComputeEdits E;
    E.LoopBegin = E.Begin = LB;
    E.LoopEnd = E.End = LE;
    E.BodyBegin = BB;
    E.BodyEnd = BE;
    E.BodyIsCompound = true;
    E.SampledLoop = true;
    Block B = newBlock(BlockKind::Loop, For->getBeginLoc(), For->getEndLoc());
    B.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
    return true;
  }

  /// Seed 004 section 3.1.1: a loop whose body is exactly one compute block is timed whole.
  bool wholeLoop(Stmt *S, Stmt *Body, unsigned LoopIndex) {
    ComputeEdits E;
    E.WholeLoop = true;
    int LB = beginOffset(S), LE = endOffset(S);
    auto *CS = dyn_cast<CompoundStmt>(Body);
    E.BodyIsCompound = CS != nullptr;
    int BB = CS ? offsetOf(CS->getLBracLoc()) + 1 : beginOffset(Body);
    int BE = CS ? offsetOf(CS->getRBracLoc()) : endOffset(Body);
    if (LB < 0 || LE < 0 || BB <= 0 || BE < 0 || LB >= BB || BE > LE)
      return false;
    E.LoopBegin = E.Begin = LB;
    E.LoopEnd = E.End = LE;
    E.BodyBegin = BB;
    E.BodyEnd = BE;

    LoopStack.push_back(LoopIndex);
    Block B = newBlock(BlockKind::Compute, S->getBeginLoc(), S->getEndLoc());
    LoopStack.pop_back();
    B.WholeLoop = true;
    B.OpaqueCalls = facts(S).Opaque;
    B.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
    return true;
  }

  void flush(Run &R, bool SingleSlot) {
    if (R.empty())
      return;
    Run Cur = std::move(R);
    R = Run();
    if (Segments)
      return; // computation is timed between MPI calls by the runtime
    // Statements without code at the edges stay outside (BlockPartition.h): leading
    // declarations so no hook comes ahead of a scope's declarations.
    BlockRange Range = Policy.blockOf(Cur.Traits);
    if (Range.empty())
      return;
    std::vector<Stmt *> Stmts(Cur.Stmts.begin() + Range.First, Cur.Stmts.begin() + Range.Last);
    ComputeEdits E;
    int B = beginOffset(Stmts.front()), End = endOffset(Stmts.back());
    if (B < 0 || End < 0 || End < B) {
      Diags.error(diagLoc(Stmts.front()->getBeginLoc()),
                  "statements of procedure '" + Procedure +
                      "' that are not in the main source file cannot be instrumented",
                  "unsupported");
      return;
    }
    E.Begin = B;
    E.End = End;
    E.Braces = SingleSlot;
    Block Blk =
        newBlock(BlockKind::Compute, Stmts.front()->getBeginLoc(), Stmts.back()->getEndLoc());
    for (Stmt *S : Stmts)
      for (std::string &Name : facts(S).Opaque)
        if (std::find(Blk.OpaqueCalls.begin(), Blk.OpaqueCalls.end(), Name) ==
            Blk.OpaqueCalls.end())
          Blk.OpaqueCalls.push_back(std::move(Name));
    Blk.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(Blk));
  }

  /// Statements that cost nothing at run time: empty ones, and declarations without
  /// initializers or with constant ones. A run of only these is no block.
  bool trivial(const Stmt *S) const {
    if (isa<NullStmt>(S))
      return true;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS || fromMacro(S))
      return false;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        continue; // typedefs, struct and function declarations
      if (VD->getType()->isVariablyModifiedType())
        return false;
      const Expr *Init = VD->getInit();
      if (Init && !Init->isConstantInitializer(Ctx, false))
        return false;
    }
    return true;
  }

  Block newBlock(BlockKind K, SourceLocation Begin, SourceLocation End) {
    Block B;
    B.Index = Model.Blocks.size();
    B.Kind = K;
    B.Procedure = Procedure;
    B.File = Model.Source;
    // The lines are those a #line directive presents; so must the file be, or the two disagree.
    SourceLocation At = SM.getExpansionLoc(Begin);
    PresumedLoc Shown = SM.getPresumedLoc(At), Real = SM.getPresumedLoc(At, false);
    if (Shown.isValid() && Real.isValid() &&
        StringRef(Shown.getFilename()) != StringRef(Real.getFilename()))
      B.File = Shown.getFilename();
    B.BeginLine = lineOf(Begin);
    B.BeginCol = colOf(Begin);
    B.EndLine = lineOf(End);
    B.Loops = LoopStack;
    return B;
  }

  // ---- MPI call sites --------------------------------------------------------------------

  /// Records every MPI call in S's subtree, in source order.
  void collectCalls(Stmt *S) {
    if (!S)
      return;
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<CallExpr *> Calls;
      bool VisitCallExpr(CallExpr *CE) {
        if (mpiCallee(CE))
          Calls.push_back(CE);
        return true;
      }
    } F;
    F.TraverseStmt(S);
    for (CallExpr *CE : F.Calls)
      site(CE);
  }

  /// Follows a token through macro arguments to where it is written; fails inside a macro body.
  bool writtenLoc(SourceLocation Loc, SourceLocation &Out, std::string &Macro) const {
    while (Loc.isMacroID()) {
      if (!SM.isMacroArgExpansion(Loc)) {
        Macro = Lexer::getImmediateMacroName(Loc, SM, LO).str();
        return false;
      }
      Loc = SM.getImmediateSpellingLoc(Loc);
    }
    Out = Loc;
    return true;
  }

  void site(CallExpr *CE) {
    const FunctionDecl *M = mpiCallee(CE);
    std::string Name = M->getName().str();
    const MpiRoutineInfo *Info = findRewrittenRoutine(Name);
    if (!Info)
      return; // local, passed through or rejected: reported by checkCall
    SourceLocation CalleeLoc = CE->getCallee()->IgnoreParenImpCasts()->getBeginLoc();
    SourceLocation Written;
    std::string Macro;
    if (!writtenLoc(CalleeLoc, Written, Macro)) {
      Diags.error(diagLoc(CE->getBeginLoc()),
                  "call to '" + Name + "' is hidden inside the body of macro '" + Macro +
                      "'; mpiete can only rewrite MPI calls written in the source or in macro "
                      "arguments",
                  "macro");
      return;
    }
    auto [FID, CalleeOff] = SM.getDecomposedLoc(Written);
    if (FID != MainFID) {
      Diags.error(diagLoc(Written),
                  "call to '" + Name + "' is written outside the main source file", "unsupported");
      return;
    }
    auto Known = SiteAt.find(CalleeOff);
    if (Known != SiteAt.end())
      return; // the same written call reached again through a macro that repeats its argument
    std::optional<Token> LParen = Lexer::findNextToken(Written, SM, LO);
    if (!LParen || LParen->isNot(tok::l_paren) || SM.getFileID(LParen->getLocation()) != MainFID) {
      Diags.error(diagLoc(CE->getBeginLoc()),
                  "call to '" + Name + "' is assembled by a macro; mpiete cannot rewrite it",
                  "macro");
      return;
    }
    std::optional<Token> First = Lexer::findNextToken(LParen->getLocation(), SM, LO);

    CallSite CS;
    CS.Routine = Name;
    CS.RuntimeName = std::string(Info->RuntimeName);
    CS.Role = Info->Role;
    CS.FirstBlock = Model.Blocks.size();
    CS.Edits.CalleeBegin = CalleeOff;
    CS.Edits.CalleeEnd = CalleeOff + Name.size();
    CS.Edits.ArgsBegin = SM.getFileOffset(LParen->getEndLoc());
    CS.Edits.HasArgs = !(First && First->is(tok::r_paren));

    // The call as written, for the block map.
    std::string Text = Name;
    SourceLocation RParen;
    if (writtenLoc(CE->getRParenLoc(), RParen, Macro) && SM.getFileID(RParen) == MainFID) {
      unsigned EndOff = SM.getFileOffset(RParen) + 1;
      StringRef Buf = SM.getBufferData(MainFID);
      if (EndOff > CalleeOff && EndOff <= Buf.size()) {
        Text.clear();
        bool Space = false;
        for (char C : Buf.substr(CalleeOff, EndOff - CalleeOff)) {
          if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
            Space = true;
            continue;
          }
          if (Space && !Text.empty())
            Text += ' ';
          Space = false;
          Text += C;
        }
      }
    }

    unsigned SiteIndex = Model.Sites.size();
    SiteAt[CalleeOff] = SiteIndex;
    Model.Sites.push_back(CS);

    unsigned N = blocksForRole(Info->Role);
    for (unsigned I = 0; I < N; ++I) {
      RoleBlock RB = roleBlock(Info->Role, I);
      Block B = newBlock(RB.Kind, Written, RParen.isValid() ? RParen : Written);
      B.Phase = RB.Phase;
      B.Routine = Name;
      B.CallText = Text;
      B.Site = SiteIndex;
      Model.Blocks.push_back(std::move(B));
    }
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  const CommunicationAnalysis &CA;
  UnitModel &Model;
  DiagnosticSink &Diags;
  PartitionPolicy Policy;
  bool Segments; ///< no compute blocks: only loops with MPI calls get (iteration) hooks
  FileID MainFID;
  std::string Procedure;
  std::vector<unsigned> LoopStack;
  std::map<unsigned, unsigned> SiteAt;
  SampledLoopRules Sampling;
};

/// Reports MPI routines that cannot be rewritten: unsupported ones, references that are not
/// calls (function pointers), and calls in procedures outside the main file.
class MpiUseChecker {
public:
  MpiUseChecker(ASTContext &Ctx, const CFrontendOptions &Opts, UnitModel &Model,
                DiagnosticSink &Diags)
      : SM(Ctx.getSourceManager()), Opts(Opts), Model(Model), Diags(Diags) {}

  bool VisitCallExpr(CallExpr *CE) {
    if (mpiCallee(CE))
      Callees.insert(CE->getCallee()->IgnoreParenImpCasts());
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl());
    if (!FD || !FD->getIdentifier() || !isMpiName(FD->getName()))
      return true;
    SourceLocation Loc = SM.getExpansionLoc(DRE->getLocation());
    if (SM.isInSystemHeader(Loc))
      return true;
    std::string Name = FD->getName().str();
    if (!Callees.count(DRE)) {
      Diags.error(where(Loc),
                  "MPI routine '" + Name +
                      "' is used as a function pointer; mpiete can only instrument "
                      "direct calls",
                  "function-pointer");
      return true;
    }
    if (findRewrittenRoutine(Name)) {
      if (!SM.isInMainFile(Loc))
        Diags.error(where(Loc),
                    "call to '" + Name +
                        "' in a header: mpiete instruments only the main source file of a "
                        "translation unit",
                    "unsupported");
      return true;
    }
    if (isLocalRoutine(Name))
      return true;
    diagnoseUnhandledRoutine(Name, where(Loc), Opts.PassThrough, Opts.PassThroughAll, Model, Diags);
    return true;
  }

private:
  DiagLoc where(SourceLocation Loc) const { return diagLocOf(SM, Loc, Model.Source); }

  const SourceManager &SM;
  const CFrontendOptions &Opts;
  UnitModel &Model;
  DiagnosticSink &Diags;
  llvm::DenseSet<const Expr *> Callees;
};

class ModelConsumer : public ASTConsumer {
public:
  ModelConsumer(const CFrontendOptions &Opts, UnitModel &Model, std::string &MainText,
                DiagnosticSink &Diags, std::vector<FileID> &UserFiles,
                std::vector<SourceLocation> &Pragmas)
      : Opts(Opts), Model(Model), MainText(MainText), Diags(Diags), UserFiles(UserFiles),
        Pragmas(Pragmas) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    SourceManager &SM = Ctx.getSourceManager();
    if (Ctx.getDiagnostics().hasErrorOccurred())
      return;
    MainText = SM.getBufferData(SM.getMainFileID()).str();

    // Content hash: the main file, then each user header in the order it was entered.
    Fnv1a64 H;
    H.field(MainText);
    std::set<FileID> Seen{SM.getMainFileID()};
    for (FileID FID : UserFiles)
      if (Seen.insert(FID).second)
        H.field(SM.getBufferData(FID));
    Model.ContentHash = H.value();

    MpiUseChecker Checker(Ctx, Opts, Model, Diags);
    // Every callee must be known before the references are judged: two passes.
    struct CalleeCollector : RecursiveASTVisitor<CalleeCollector> {
      MpiUseChecker &C;
      explicit CalleeCollector(MpiUseChecker &C) : C(C) {}
      bool VisitCallExpr(CallExpr *CE) { return C.VisitCallExpr(CE); }
    } Collector(Checker);
    Collector.TraverseDecl(Ctx.getTranslationUnitDecl());
    struct RefVisitor : RecursiveASTVisitor<RefVisitor> {
      MpiUseChecker &C;
      explicit RefVisitor(MpiUseChecker &C) : C(C) {}
      bool VisitDeclRefExpr(DeclRefExpr *D) { return C.VisitDeclRefExpr(D); }
    } Refs(Checker);
    Refs.TraverseDecl(Ctx.getTranslationUnitDecl());

    CommunicationAnalysis CA;
    CA.run(Ctx);
    UnitBuilder Builder(Ctx, CA, Model, Diags, Opts.Mode, Pragmas);
    const bool Segments = Opts.Mode == Partition::Segments;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
      auto *FD = dyn_cast<FunctionDecl>(D);
      // Segments: a procedure that may communicate through code the unit cannot see is
      // walked too, for the opaque hooks of its loops (cg's solver calls csr.c's dot and spmv),
      // and so is every other one, for its sampled loops (pure kernels).
      if (!FD || !FD->doesThisDeclarationHaveABody() || !(CA.communicates(FD) || Segments))
        continue;
      if (!SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
        continue; // reported by the checker at its MPI calls
      Builder.procedure(FD, CA.communicates(FD) || (Segments && CA.reachesHidden(FD)));
    }
    const bool Slice = Opts.Skeleton && Opts.Mode == Partition::Segments && !Model.Sites.empty();
    if (Slice || Opts.Summary)
      sliceUnit(Ctx, Model, Opts.Program, Opts.Summary, Slice);
  }

private:
  const CFrontendOptions &Opts;
  UnitModel &Model;
  std::string &MainText;
  DiagnosticSink &Diags;
  std::vector<FileID> &UserFiles;
  std::vector<SourceLocation> &Pragmas;
};

class ModelAction : public ASTFrontendAction {
public:
  ModelAction(const CFrontendOptions &Opts, UnitModel &Model, std::string &MainText,
              DiagnosticSink &Diags)
      : Opts(Opts), Model(Model), MainText(MainText), Diags(Diags) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<UserFileCollector>(UserFiles));
    CI.getPreprocessor().addPPCallbacks(std::make_unique<PragmaCollector>(Pragmas));
    return std::make_unique<ModelConsumer>(Opts, Model, MainText, Diags, UserFiles, Pragmas);
  }

private:
  const CFrontendOptions &Opts;
  UnitModel &Model;
  std::string &MainText;
  DiagnosticSink &Diags;
  std::vector<FileID> UserFiles;
  std::vector<SourceLocation> Pragmas;
};

class ModelActionFactory : public tooling::FrontendActionFactory {
public:
  ModelActionFactory(const CFrontendOptions &Opts, UnitModel &Model, std::string &MainText,
                     DiagnosticSink &Diags)
      : Opts(Opts), Model(Model), MainText(MainText), Diags(Diags) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<ModelAction>(Opts, Model, MainText, Diags);
  }

private:
  const CFrontendOptions &Opts;
  UnitModel &Model;
  std::string &MainText;
  DiagnosticSink &Diags;
};

} // namespace

bool analyzeC(const std::string &Source, const std::vector<std::string> &CompilerArgs,
              const CFrontendOptions &Opts, UnitModel &Model, std::string &MainText,
              DiagnosticSink &Diags) {
  Model.Source = Opts.UnitPath.empty() ? Source : Opts.UnitPath;
  Model.Language = "c";
  Model.Defines = unitDefines(CompilerArgs);
  Model.Flags = CompilerArgs;
  Model.UnitId = computeUnitId(Model.Source, Model.Defines);

  std::vector<std::string> Args = parsingArgs(CompilerArgs);
  Args.insert(Args.begin(),
              {"-xc", "-w", "-ferror-limit=20", "-Wno-error=implicit-int",
               "-Wno-error=implicit-function-declaration", "-Wno-error=int-conversion",
               "-Wno-error=incompatible-function-pointer-types", "-Wno-error=return-type"});
  if (!Opts.ResourceDir.empty())
    Args.push_back("-resource-dir=" + Opts.ResourceDir);

  std::error_code EC;
  std::string Cwd = std::filesystem::current_path(EC).string();
  tooling::FixedCompilationDatabase DB(Cwd, Args);
  tooling::ClangTool Tool(DB, {Source});
  ModelActionFactory Factory(Opts, Model, MainText, Diags);
  unsigned ErrorsBefore = Diags.errorCount();
  int Rc = Tool.run(&Factory);
  if (Rc != 0) {
    Diags.error({Source, 0, 0},
                "Clang could not parse this file (see the errors above); mpiete needs a unit "
                "that Clang 19 accepts",
                "parse");
    return false;
  }
  return Diags.errorCount() == ErrorsBefore;
}

} // namespace mpiete
