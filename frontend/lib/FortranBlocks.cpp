// The Fortran frontend's block partition: splits the bodies of communicating procedures into
// compute blocks (or, in segment mode, hooks only the loops that contain MPI, and finds the
// loops of pure computation the timing probe may sample, in every procedure) and records every
// MPI call site, from Flang's parse tree (FortranAnalysis.h has what it shares with the analysis).
#include "FortranAnalysis.h"

#include "mpiete/frontend/BlockPartition.h"

#include "flang/Evaluate/fold.h"

#include <cstring>
#include <map>
#include <utility>

namespace mpiete {
using namespace fortran;
namespace sem = Fortran::semantics;

namespace {

/// Where a procedure's new declarations go (D.Offset, D.After): at the end of its USE / IMPORT
/// / IMPLICIT statements, which every declaration may follow; without those, after the
/// procedure's first statement, or before the first statement of a main program without one.
bool placeDeclarations(const SourceMap &SM, const ProcInfo &P, CounterDecl &D,
                       DiagnosticSink &Diags) {
  std::optional<unsigned> After;
  LastStatementWalker W{SM, After};
  const p::SpecificationPart &Spec = *P.Spec;
  p::Walk(std::get<std::list<p::Statement<Fortran::common::Indirection<p::UseStmt>>>>(Spec.t), W);
  p::Walk(std::get<std::list<p::Statement<Fortran::common::Indirection<p::ImportStmt>>>>(Spec.t),
          W);
  p::Walk(std::get<p::ImplicitPart>(Spec.t), W);
  if (!After)
    After = SM.endOf(P.UnitStmt);
  if (After) {
    D.Offset = *After;
    D.After = true;
    return true;
  }
  p::CharBlock First = spanOf(Spec);
  if (First.empty())
    First = spanOf(*P.Exec);
  auto B = SM.beginOf(First);
  if (!B) {
    Diags.error(SM.loc(First),
                "cannot find where to declare mpiete's hooks in procedure '" + P.Name + "'",
                "unsupported");
    return false;
  }
  D.Offset = *B;
  D.After = false;
  return true;
}

/// The labels of every plain `GOTO L` under a node.
struct GotoFinder {
  std::set<p::Label> Labels;
  template <typename U> bool Pre(const U &) { return true; }
  template <typename U> void Post(const U &) {}
  bool Pre(const p::GotoStmt &S) {
    Labels.insert(S.v);
    return false;
  }
};

/// Partitions the bodies of communicating procedures into blocks and records every MPI call;
/// in segment mode, finds the sampled loops of every procedure.
class UnitBuilder {
public:
  UnitBuilder(const SourceMap &SM, const std::string &Main, const CommunicationAnalysis &CA,
              const FortranFrontendOptions &Opts, UnitModel &Model, DiagnosticSink &Diags)
      : SM(SM), Main(Main), CA(CA), Opts(Opts), Model(Model), Diags(Diags),
        Segments(Opts.Mode == Partition::Segments) {}

  void procedure(const ProcInfo &P) {
    begin(P);
    Model.Procedures.push_back(Procedure);
    sequence(P.Exec->v, std::nullopt);
    if (!Counters.empty() || CapHook || OpaqueCapHook || SampleHook)
      counterDecl(P);
  }

  /// Segments: a procedure that does not communicate holds no blocks but its sampled loops.
  void quietProcedure(const ProcInfo &P) {
    begin(P);
    for (const p::ExecutionPartConstruct &EPC : P.Exec->v)
      if (const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u))
        quietLoops(*EC, /*Opaque=*/false, /*Sample=*/NoSampling == 0);
    if (!SampleHook)
      return;
    Model.Procedures.push_back(Procedure);
    counterDecl(P);
  }

private:
  void begin(const ProcInfo &P) {
    Procedure = P.Name;
    Exec = P.Exec;
    LoopStack.clear();
    TerminalStack.clear();
    Counters.clear();
    CapHook = OpaqueCapHook = SampleHook = false;
    NoSampling = P.Pure;
    TargetCollector TC;
    p::Walk(*P.Exec, TC);
    Targets = std::move(TC.Targets);
  }

  // ---- classification ----------------------------------------------------------------------

  template <typename T> StmtFacts facts(const T &Node) const {
    StmtFacts F;
    FactsWalker W{CA, F};
    p::Walk(Node, W);
    return F;
  }
  static StmtTraits traitsOf(const StmtFacts &F) {
    StmtTraits T;
    T.Communicates = F.MpiCall || F.CommunicatingCall;
    T.Jumps = F.Jump;
    return T;
  }

  /// An action statement for the partition policy: a jump target (or the terminal statement of
  /// an enclosing labelled DO, Terminal) is entered from elsewhere; CONTINUE executes nothing.
  StmtTraits actionTraits(const p::Statement<p::ActionStmt> &S, const StmtFacts &F,
                          std::optional<p::Label> Terminal) const {
    StmtTraits T = traitsOf(F);
    T.Entered = S.label && (Targets.count(*S.label) || (Terminal && *S.label == *Terminal));
    T.NoCode = std::holds_alternative<p::ContinueStmt>(S.statement.u);
    return T;
  }

  /// Any other construct: DO, IF and SELECT CASE are the partition's loops and branches;
  /// WHERE, FORALL and the others compute like one statement when nothing in them
  /// communicates or jumps; a compiler directive binds to the statement after it.
  StmtTraits constructTraits(const p::ExecutableConstruct &EC, StmtFacts &F) const {
    using Fortran::common::Indirection;
    F = Fortran::common::visit([&](const auto &X) { return facts(X); }, EC.u);
    StmtTraits T = traitsOf(F);
    T.Directive = std::holds_alternative<Indirection<p::CompilerDirective>>(EC.u);
    T.Structured = std::holds_alternative<Indirection<p::DoConstruct>>(EC.u) ||
                   std::holds_alternative<Indirection<p::IfConstruct>>(EC.u) ||
                   std::holds_alternative<Indirection<p::CaseConstruct>>(EC.u);
    return T;
  }

  /// Calls F on each block of an IF, SELECT CASE, ASSOCIATE, BLOCK, CRITICAL, SELECT TYPE or
  /// SELECT RANK construct, the constructs whose blocks run like sequences of statements; false
  /// for any other construct.
  template <typename Fn> static bool forEachBlock(const p::ExecutableConstruct &EC, Fn &&F) {
    using Fortran::common::Indirection;
    if (const auto *I = std::get_if<Indirection<p::IfConstruct>>(&EC.u)) {
      const p::IfConstruct &If = I->value();
      F(std::get<p::Block>(If.t));
      for (const auto &EI : std::get<std::list<p::IfConstruct::ElseIfBlock>>(If.t))
        F(std::get<p::Block>(EI.t));
      if (const auto &E = std::get<std::optional<p::IfConstruct::ElseBlock>>(If.t))
        F(std::get<p::Block>(E->t));
    } else if (const auto *C = std::get_if<Indirection<p::CaseConstruct>>(&EC.u)) {
      for (const auto &Case : std::get<std::list<p::CaseConstruct::Case>>(C->value().t))
        F(std::get<p::Block>(Case.t));
    } else if (const auto *A = std::get_if<Indirection<p::AssociateConstruct>>(&EC.u)) {
      F(std::get<p::Block>(A->value().t));
    } else if (const auto *B = std::get_if<Indirection<p::BlockConstruct>>(&EC.u)) {
      F(std::get<p::Block>(B->value().t));
    } else if (const auto *Cr = std::get_if<Indirection<p::CriticalConstruct>>(&EC.u)) {
      F(std::get<p::Block>(Cr->value().t));
    } else if (const auto *T = std::get_if<Indirection<p::SelectTypeConstruct>>(&EC.u)) {
      for (const auto &Case : std::get<std::list<p::SelectTypeConstruct::TypeCase>>(T->value().t))
        F(std::get<p::Block>(Case.t));
    } else if (const auto *R = std::get_if<Indirection<p::SelectRankConstruct>>(&EC.u)) {
      for (const auto &Case : std::get<std::list<p::SelectRankConstruct::RankCase>>(R->value().t))
        F(std::get<p::Block>(Case.t));
    } else {
      return false;
    }
    return true;
  }

  /// ENTRY, and what the parser could not read: control may arrive there from outside.
  static bool isEntry(const p::ExecutionPartConstruct &EPC) {
    return std::holds_alternative<p::Statement<Fortran::common::Indirection<p::EntryStmt>>>(
               EPC.u) ||
           std::holds_alternative<p::ErrorRecovery>(EPC.u);
  }

  // ---- the partition ---------------------------------------------------------------------

  struct Run {
    std::vector<p::CharBlock> Stmts;
    std::vector<StmtTraits> Traits;
    std::vector<std::string> Opaque;
    bool empty() const { return Stmts.empty(); }
  };

  void sequence(const p::Block &B, std::optional<p::Label> Terminal) {
    if (Segments)
      gotoLoops(B);
    Run R;
    for (const p::ExecutionPartConstruct &EPC : B) {
      if (const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u)) {
        construct(*EC, R, Terminal);
      } else if (isEntry(EPC)) {
        // ENTRY: control arrives here from outside; a block cannot span it.
        flush(R);
      }
      // FORMAT, DATA, NAMELIST: not executed; they do not break a run.
    }
    flush(R);
  }

  void construct(const p::ExecutableConstruct &EC, Run &R, std::optional<p::Label> Terminal) {
    if (const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC.u)) {
      action(*S, R, Terminal);
      return;
    }
    p::CharBlock Span = Fortran::common::visit([&](const auto &X) { return spanOf(X); }, EC.u);
    StmtFacts F;
    StmtTraits T = constructTraits(EC, F);
    if (Segments && !T.Communicates) {
      // Nothing to rewrite, and no hooks where no MPI call runs, unless a loop in it calls a
      // subroutine the unit cannot see, which may communicate: then that loop gets the opaque
      // hooks (the timing probe's cap follows it; nothing else does); or a loop of pure
      // computation may be sampled.
      quietLoops(EC, /*Opaque=*/F.HiddenCall, /*Sample=*/NoSampling == 0);
      return;
    }
    if (Policy.isComputation(T) && !Span.empty()) {
      add(R, Span, T, F);
      return;
    }
    flush(R);
    if (const auto *D = std::get_if<Fortran::common::Indirection<p::DoConstruct>>(&EC.u)) {
      loop(D->value());
      return;
    }
    using Fortran::common::Indirection;
    auto Partition = [&](const p::Block &B) { sequence(B, std::nullopt); };
    if (std::holds_alternative<Indirection<p::IfConstruct>>(EC.u) ||
        std::holds_alternative<Indirection<p::CaseConstruct>>(EC.u)) {
      forEachBlock(EC, Partition);
      return;
    }
    if (T.Directive || !T.Communicates)
      return;
    if (std::holds_alternative<Indirection<p::WhereConstruct>>(EC.u) ||
        std::holds_alternative<Indirection<p::ForallConstruct>>(EC.u)) {
      Fortran::common::visit([&](const auto &X) { collectCalls(X); }, EC.u);
      return;
    }
    // Constructs whose blocks run like a sequence of statements: partition them in place (no
    // loop in a CRITICAL construct is sampled).
    const bool Critical = std::holds_alternative<Indirection<p::CriticalConstruct>>(EC.u);
    NoSampling += Critical;
    const bool Partitioned = forEachBlock(EC, Partition);
    NoSampling -= Critical;
    if (Partitioned)
      return;
    Diags.error(SM.loc(Span),
                "MPI communication inside this construct (CHANGE TEAM, OpenMP or OpenACC) is "
                "not supported",
                "unsupported");
  }

  void action(const p::Statement<p::ActionStmt> &S, Run &R, std::optional<p::Label> Terminal) {
    // A jump target or the terminal statement of a labelled DO keeps its label and stays
    // outside every block: a hook before it would be skipped by the jump (or, for the
    // terminal, land outside the loop) and leave the timing unbalanced.
    StmtFacts F = facts(S.statement);
    StmtTraits T = actionTraits(S, F, Terminal);
    if (Policy.isComputation(T)) {
      add(R, S.source, T, F);
      return;
    }
    flush(R);
    collectCalls(S);
  }

  void add(Run &R, p::CharBlock Src, const StmtTraits &T, const StmtFacts &F) {
    R.Stmts.push_back(Src);
    R.Traits.push_back(T);
    for (const std::string &N : F.Opaque)
      if (std::find(R.Opaque.begin(), R.Opaque.end(), N) == R.Opaque.end())
        R.Opaque.push_back(N);
  }

  void flush(Run &R) {
    if (R.empty())
      return;
    Run Cur = std::move(R);
    R = Run();
    if (Segments)
      return; // computation is timed between MPI calls by the runtime
    // Leading and trailing CONTINUE statements are no work (BlockPartition.h).
    BlockRange Range = Policy.blockOf(Cur.Traits);
    if (Range.empty())
      return; // only CONTINUE: no work, no block
    p::CharBlock B = Cur.Stmts[Range.First], E = Cur.Stmts[Range.Last - 1];
    auto Begin = SM.beginOf(B);
    auto End = SM.endOf(E);
    if (!Begin || !End || *End < *Begin) {
      Diags.error(SM.loc(B),
                  "statements of procedure '" + Procedure +
                      "' that come from an included file or a macro cannot be instrumented",
                  "unsupported");
      return;
    }
    ComputeEdits CE;
    CE.Begin = *Begin;
    CE.End = *End;
    Block Blk = newBlock(BlockKind::Compute, B, E);
    Blk.OpaqueCalls = Cur.Opaque;
    Blk.Compute = Model.Computes.size();
    Model.Computes.push_back(CE);
    Model.Blocks.push_back(std::move(Blk));
  }

  void loop(const p::DoConstruct &D) {
    const auto &DoS = std::get<p::Statement<p::NonLabelDoStmt>>(D.t);
    const p::Block &Body = std::get<p::Block>(D.t);
    std::optional<p::Label> Lab = doLabel(DoS);

    LoopInfo Info;
    Info.Kind = D.IsDoWhile() ? "do-while" : D.IsDoConcurrent() ? "do-concurrent" : "do";
    Info.Procedure = Procedure;
    DiagLoc L = SM.loc(DoS.source);
    Info.Line = L.Line;
    Info.Col = L.Col;
    Info.Parent = LoopStack.empty() ? -1 : static_cast<int>(LoopStack.back());
    unsigned LoopIndex = Model.Loops.size();
    Model.Loops.push_back(Info);

    if (Segments)
      loopSite(D, DoS, Lab);
    else if (wholeLoop(D, DoS, Body, Lab, LoopIndex))
      return;
    LoopStack.push_back(LoopIndex);
    TerminalStack.push_back(Lab);
    NoSampling += D.IsDoConcurrent();
    sequence(Body, Lab);
    NoSampling -= D.IsDoConcurrent();
    TerminalStack.pop_back();
    LoopStack.pop_back();
  }

  /// The label of a labelled DO (`DO 10 I = 1, N`), which canonicalization turned into a DO
  /// construct: read from the statement's cooked text, where digits right after DO can only
  /// be a label.
  static std::optional<p::Label> doLabel(const p::Statement<p::NonLabelDoStmt> &S) {
    if (auto L = std::get<std::optional<p::Label>>(S.statement.t))
      return L;
    std::string_view T(S.source.begin(), S.source.size());
    size_t I = 0;
    if (std::get<std::optional<p::Name>>(S.statement.t)) {
      size_t Colon = T.find(':');
      if (Colon == std::string_view::npos)
        return std::nullopt;
      I = Colon + 1;
    }
    while (I < T.size() && T[I] == ' ')
      ++I;
    if (T.substr(I, 2) != "do")
      return std::nullopt;
    I += 2;
    while (I < T.size() && T[I] == ' ')
      ++I;
    p::Label L = 0;
    size_t Digits = 0;
    while (I < T.size() && std::isdigit(static_cast<unsigned char>(T[I]))) {
      L = L * 10 + (T[I++] - '0');
      ++Digits;
    }
    return Digits ? std::optional<p::Label>(L) : std::nullopt;
  }

  /// A DO loop's text positions: the DO statement's start and end and the loop's end; none
  /// when they come from an included file or a macro (no hooks can go there).
  struct DoPositions {
    unsigned Begin, BodyBegin, End;
  };
  std::optional<DoPositions> doPositions(const p::DoConstruct &D,
                                         const p::Statement<p::NonLabelDoStmt> &DoS) const {
    auto LB = SM.beginOf(DoS.source), BB = SM.endOf(DoS.source), LE = SM.endOf(spanOf(D));
    if (!LB || !BB || !LE || *LB >= *BB || *BB > *LE)
      return std::nullopt;
    return DoPositions{*LB, *BB, *LE};
  }
  /// Whether a labelled DO's terminal statement is shared with an enclosing labelled DO (`do 10
  /// j` / `do 10 i` / `10 continue`): there is no place after the inner loop only.
  bool sharesTerminal(std::optional<p::Label> Lab) const {
    return Lab && std::find(TerminalStack.begin(), TerminalStack.end(), Lab) != TerminalStack.end();
  }

  /// Segments: a DO loop that contains MPI calls is a site of kind loop: its iteration hook
  /// goes after the DO statement, its exit hook after the loop's last statement, except when
  /// that statement is the terminal statement an enclosing labelled DO shares (`do 10 j` /
  /// `do 10 i` / `10 continue`): there is no place after the inner loop only, and the runtime
  /// discovers the exit lazily.
  void loopSite(const p::DoConstruct &D, const p::Statement<p::NonLabelDoStmt> &DoS,
                std::optional<p::Label> Lab, bool Opaque = false) {
    p::CharBlock Span = spanOf(D);
    const auto At = doPositions(D, DoS);
    if (!At)
      return; // from an included file or a macro: no hooks
    const bool Shared = sharesTerminal(Lab);
    ComputeEdits E;
    E.LoopBegin = E.Begin = At->Begin;
    E.BodyBegin = At->BodyBegin;
    E.LoopEnd = E.End = E.BodyEnd = Shared ? 0 : At->End;
    // EXIT leaves the innermost loop, this one (its hook is in its own body), unless the
    // terminal statement is shared, or the program leaves the loop by RETURN or STOP (capped,
    // it would run what follows the loop, which the original never does there): then the loop
    // is followed, not capped.
    E.Leaves = !Shared && !facts(D).LeavesUnit;
    // An opaque loop the cap could not leave gets no hooks at all: nothing else uses them.
    if (Opaque && !E.Leaves)
      return;
    E.OpaqueLoop = Opaque;
    if (E.Leaves)
      (Opaque ? OpaqueCapHook : CapHook) = true;
    Block B = newBlock(BlockKind::Loop, DoS.source, Span);
    B.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
  }

  /// The label of a construct's first statement (a labelled action statement, IF-THEN, DO or
  /// SELECT CASE statement).
  static std::optional<p::Label> headLabel(const p::ExecutableConstruct &EC) {
    using Fortran::common::Indirection;
    if (const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC.u))
      return S->label;
    if (const auto *I = std::get_if<Indirection<p::IfConstruct>>(&EC.u))
      return std::get<p::Statement<p::IfThenStmt>>(I->value().t).label;
    if (const auto *D = std::get_if<Indirection<p::DoConstruct>>(&EC.u))
      return std::get<p::Statement<p::NonLabelDoStmt>>(D->value().t).label;
    if (const auto *C = std::get_if<Indirection<p::CaseConstruct>>(&EC.u))
      return std::get<p::Statement<p::SelectCaseStmt>>(C->value().t).label;
    return std::nullopt;
  }

  /// Segments, Fortran 77's other loop: a labelled statement of B and, later in B (or inside
  /// it), a `GOTO` back to it. Such a loop that makes MPI calls (or CALLs a subroutine the unit
  /// cannot see) gets the cap's iteration hook at its head, leaving to the statement after its
  /// last GOTO, where the original goes on after it: only where the original gets there too
  /// (the last statement can fall through, or a jump in the loop goes there) and the loop
  /// stops nowhere else (no RETURN or STOP). f77-sor's `10 IF (...) THEN ... GOTO 10 END IF`,
  /// f77-cg's `10 CONTINUE ... IF (...) GOTO 20 ... GOTO 10 / 20 CONTINUE`.
  void gotoLoops(const p::Block &B) {
    // Each statement of B walked once: its facts, every label it may jump to, and the labels
    // of its plain GOTOs (which make the loops).
    struct Stmt {
      const p::ExecutableConstruct *EC = nullptr; // null: FORMAT, DATA, ENTRY...
      bool Entry = false;                         // ENTRY, or what the parser could not read
      StmtFacts F;
      std::set<p::Label> Jumps, Gotos;
    };
    std::vector<Stmt> V;
    bool AnyGoto = false;
    for (const p::ExecutionPartConstruct &EPC : B) {
      Stmt S{std::get_if<p::ExecutableConstruct>(&EPC.u), isEntry(EPC)};
      if (S.EC) {
        S.F = facts(*S.EC);
        TargetCollector TC;
        p::Walk(*S.EC, TC);
        S.Jumps = std::move(TC.Targets);
        GotoFinder G;
        p::Walk(*S.EC, G);
        S.Gotos = std::move(G.Labels);
        AnyGoto = AnyGoto || !S.Gotos.empty();
      }
      V.push_back(std::move(S));
    }
    if (!AnyGoto)
      return;
    for (size_t I = 0; I < V.size(); ++I) {
      const std::optional<p::Label> L = V[I].EC ? headLabel(*V[I].EC) : std::nullopt;
      if (!L)
        continue;
      size_t J = V.size();
      for (size_t K = V.size(); K-- > I;)
        if (V[K].Gotos.count(*L)) {
          J = K;
          break;
        }
      if (J == V.size() || J + 1 >= V.size() || !V[J + 1].EC)
        continue;
      bool Communicates = false, Hidden = false, Stops = false, Entry = false;
      std::set<p::Label> Jumps;
      for (size_t K = I; K <= J; ++K) {
        const Stmt &S = V[K];
        Entry = Entry || S.Entry;
        Communicates = Communicates || S.F.MpiCall || S.F.CommunicatingCall;
        Hidden = Hidden || S.F.HiddenCall;
        Stops = Stops || S.F.LeavesUnit;
        Jumps.insert(S.Jumps.begin(), S.Jumps.end());
      }
      const std::optional<p::Label> Next = headLabel(*V[J + 1].EC);
      const bool FallsThrough = !endsFlow(*V[J].EC); // V[J] holds the GOTO: a statement
      const bool GoesOn = FallsThrough || (Next && Jumps.count(*Next));
      if ((Communicates || Hidden) && !Stops && !Entry && GoesOn)
        gotoLoopSite(*V[I].EC, *V[J].EC, *V[J + 1].EC, /*Opaque=*/!Communicates);
      I = J; // a loop inside it is not the outermost: the cap takes the outermost only
    }
  }

  /// An action statement after which control never goes on to the next one (an unconditional
  /// GOTO, an arithmetic IF, RETURN, STOP...; a logical IF's GOTO may not jump).
  static bool endsFlow(const p::ExecutableConstruct &EC) {
    using Fortran::common::Indirection;
    const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC.u);
    if (!S)
      return false; // a construct: its blocks end at its END statement
    const auto &U = S->statement.u;
    return std::holds_alternative<Indirection<p::GotoStmt>>(U) ||
           std::holds_alternative<Indirection<p::ArithmeticIfStmt>>(U) ||
           std::holds_alternative<Indirection<p::AssignedGotoStmt>>(U) ||
           std::holds_alternative<Indirection<p::ReturnStmt>>(U) ||
           std::holds_alternative<Indirection<p::StopStmt>>(U) ||
           std::holds_alternative<p::FailImageStmt>(U) ||
           std::holds_alternative<Indirection<p::ExitStmt>>(U) ||
           std::holds_alternative<Indirection<p::CycleStmt>>(U);
  }

  void gotoLoopSite(const p::ExecutableConstruct &Head, const p::ExecutableConstruct &Last,
                    const p::ExecutableConstruct &After, bool Opaque) {
    auto First = [](const p::ExecutableConstruct &EC) {
      return Fortran::common::visit([](const auto &X) { return spanOf(X); }, EC.u);
    };
    const p::CharBlock H = First(Head), A = First(After);
    auto HB = SM.beginOf(H), AB = SM.beginOf(A);
    if (!HB || !AB || *HB >= *AB)
      return; // from an included file or a macro: no hooks
    ComputeEdits E;
    E.GotoLoop = true;
    E.LoopBegin = E.Begin = *HB;
    E.BodyBegin = *AB;
    E.Leaves = true;
    E.OpaqueLoop = Opaque;
    (Opaque ? OpaqueCapHook : CapHook) = true;
    Block Blk = newBlock(BlockKind::Loop, H, First(Last));
    Blk.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(Blk));
  }

  /// Segments, EC makes no MPI call the unit can see. Opaque: its outermost DO loops that call
  /// a subroutine the unit cannot see get the opaque hooks (their iterations may communicate at
  /// run time). Sample: its outermost loops the timing probe may sample get the sampled loops'
  /// hooks; the search goes on inside the loops that may not be sampled, except where no CYCLE
  /// or impure call may go (DO CONCURRENT, CRITICAL; OpenMP, OpenACC and CHANGE TEAM are
  /// never entered).
  void quietLoops(const p::ExecutableConstruct &EC, bool Opaque, bool Sample) {
    using Fortran::common::Indirection;
    if (!Opaque && !Sample)
      return;
    if (const auto *D = std::get_if<Indirection<p::DoConstruct>>(&EC.u)) {
      const p::DoConstruct &Do = D->value();
      const auto &DoS = std::get<p::Statement<p::NonLabelDoStmt>>(Do.t);
      const std::optional<p::Label> Lab = doLabel(DoS);
      if (Opaque && facts(Do).HiddenCall) {
        loopSite(Do, DoS, Lab, /*Opaque=*/true);
        Opaque = false; // the cap takes the outermost only
      } else if (Sample && sampledLoop(Do, DoS, Lab)) {
        return;
      }
      if (Do.IsDoConcurrent())
        return;
      TerminalStack.push_back(Lab);
      for (const p::ExecutionPartConstruct &EPC : std::get<p::Block>(Do.t))
        if (const auto *In = std::get_if<p::ExecutableConstruct>(&EPC.u))
          quietLoops(*In, Opaque, Sample);
      TerminalStack.pop_back();
      return;
    }
    Sample = Sample && !std::holds_alternative<Indirection<p::CriticalConstruct>>(EC.u);
    forEachBlock(EC, [&](const p::Block &B) {
      for (const p::ExecutionPartConstruct &EPC : B)
        if (const auto *In = std::get_if<p::ExecutableConstruct>(&EPC.u))
          quietLoops(*In, Opaque, Sample);
    });
  }

  /// Segments: a loop of pure computation the timing probe may sample (sampleable), except
  /// where its terminal statement is shared with an enclosing labelled DO (no place after this
  /// loop only) or it comes from an included file or a macro. Its hooks: after the DO statement
  /// and after the loop (ComputeEdits::SampledLoop), nor in a task's body, whose own time is
  /// the task's cost (docs/taskfarm.md; findTaskRegions ran first).
  bool sampledLoop(const p::DoConstruct &D, const p::Statement<p::NonLabelDoStmt> &DoS,
                   std::optional<p::Label> Lab) {
    if (sharesTerminal(Lab) || !sampleable(D, CA, *Exec, Targets))
      return false;
    const auto At = doPositions(D, DoS);
    if (!At || inTask(At->Begin))
      return false;
    p::CharBlock Span = spanOf(D);
    ComputeEdits E;
    E.SampledLoop = true;
    E.LoopBegin = E.Begin = At->Begin;
    E.BodyBegin = At->BodyBegin;
    E.LoopEnd = E.End = E.BodyEnd = At->End;
    SampleHook = true;
    Block B = newBlock(BlockKind::Loop, DoS.source, Span);
    B.Compute = Model.Computes.size();
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
    return true;
  }

  /// Seed 004 section 3.1.1: a loop whose body is exactly one compute block is timed whole.
  bool wholeLoop(const p::DoConstruct &D, const p::Statement<p::NonLabelDoStmt> &DoS,
                 const p::Block &Body, std::optional<p::Label> Lab, unsigned LoopIndex) {
    // A terminal statement shared with an enclosing labelled DO ends both loops on one line:
    // there is no place after the inner loop only.
    if (sharesTerminal(Lab))
      return false;
    // A DO's control is no work of the program's: a DO of only CONTINUE is no block. A jump
    // to the DO statement would skip the hooks before it.
    StmtTraits Header = traitsOf(facts(DoS.statement));
    Header.Entered = DoS.label && Targets.count(*DoS.label);
    Header.NoCode = true;
    std::vector<StmtTraits> Traits;
    std::vector<std::string> Opaque;
    for (const p::ExecutionPartConstruct &EPC : Body) {
      const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u);
      StmtFacts F;
      if (!EC) {
        if (isEntry(EPC))
          Traits.push_back(StmtTraits{.Entered = true});
        continue; // FORMAT, DATA, NAMELIST: not executed
      }
      // The loop's own terminal statement is inside the whole loop's hooks.
      if (const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC->u))
        Traits.push_back(actionTraits(*S, F = facts(S->statement), std::nullopt));
      else
        Traits.push_back(constructTraits(*EC, F));
      for (std::string &N : F.Opaque)
        if (std::find(Opaque.begin(), Opaque.end(), N) == Opaque.end())
          Opaque.push_back(std::move(N));
    }
    if (!Policy.timedWhole(Header, Traits))
      return false;
    const auto At = doPositions(D, DoS);
    if (!At)
      return false;
    p::CharBlock Span = spanOf(D);
    ComputeEdits E;
    E.WholeLoop = true;
    E.LoopBegin = E.Begin = At->Begin;
    E.LoopEnd = E.End = At->End;
    E.BodyBegin = At->BodyBegin;
    E.BodyEnd = At->End;
    LoopStack.push_back(LoopIndex);
    Block B = newBlock(BlockKind::Compute, DoS.source, Span);
    LoopStack.pop_back();
    B.WholeLoop = true;
    B.OpaqueCalls = std::move(Opaque);
    B.Compute = Model.Computes.size();
    Counters.push_back(B.Index);
    Model.Computes.push_back(E);
    Model.Blocks.push_back(std::move(B));
    return true;
  }

  /// The counters go at the end of the USE / IMPORT / IMPLICIT statements, which every
  /// declaration may follow; without those, after the procedure's first statement.
  void counterDecl(const ProcInfo &P) {
    CounterDecl D;
    D.Blocks = Counters;
    D.CapHook = CapHook;
    D.OpaqueCapHook = OpaqueCapHook;
    D.SampleHook = SampleHook;
    if (placeDeclarations(SM, P, D, Diags))
      Model.CounterDecls.push_back(std::move(D));
  }

  bool inTask(unsigned Offset) const {
    return std::any_of(Model.Tasks.begin(), Model.Tasks.end(), [Offset](const TaskRegion &T) {
      return Offset > T.Begin && Offset < T.End;
    });
  }

  Block newBlock(BlockKind K, p::CharBlock Begin, p::CharBlock End) {
    Block B;
    B.Index = Model.Blocks.size();
    B.Kind = K;
    B.Procedure = Procedure;
    DiagLoc L = SM.loc(Begin);
    B.File = L.File;
    B.BeginLine = L.Line;
    B.BeginCol = L.Col;
    B.EndLine = SM.line(End, true);
    B.Loops = LoopStack;
    return B;
  }

  // ---- MPI call sites --------------------------------------------------------------------

  template <typename T> void collectCalls(const T &Node) {
    auto Fn = [this](const p::CallStmt &C) { site(C); };
    CallStmtFinder<decltype(Fn)> F{Fn};
    p::Walk(Node, F);
  }

  void site(const p::CallStmt &C) {
    const p::Name *N = designatorName(C.call);
    if (!N)
      return;
    std::string L = calleeName(*N);
    if (!isMpiName(L))
      return;
    std::string Name = canonicalMpi(L);
    const MpiRoutineInfo *Info = findRewrittenRoutine(Name);
    if (!Info)
      return; // local, passed through or rejected: reported by the checker
    auto NB = SM.beginOf(N->source), NE = SM.endOf(N->source);
    bool Written = NB && NE && *NE - *NB == N->source.size() &&
                   lower(std::string_view(Main).substr(*NB, *NE - *NB)) == N->ToString();
    if (!Written) {
      Diags.error(SM.loc(N->source),
                  "the name of this call to '" + Name +
                      "' is split across lines, comes from an included file or a macro; "
                      "mpiete can only rewrite names written whole in the source file",
                  "unsupported");
      return;
    }
    // The '(' after the name, in the cooked text (blanks are insignificant in fixed form).
    const char *Q = N->source.end();
    const char *StmtEnd = C.source.end();
    while (Q < StmtEnd && *Q == ' ')
      ++Q;
    std::optional<unsigned> LParen = Q < StmtEnd && *Q == '(' ? SM.offsetOf(Q) : std::nullopt;
    if (!LParen || Main[*LParen] != '(') {
      Diags.error(SM.loc(N->source), "cannot find the argument list of this call to '" + Name + "'",
                  "unsupported");
      return;
    }
    const char *A = Q + 1;
    while (A < StmtEnd && *A == ' ')
      ++A;

    CallSite CS;
    // The error argument, optional with mpi_f08. A last `ierror=` lost its keyword before
    // semantics (checkFortranParseTree); its text goes from the instrumented call too. (Any
    // other keyword never gets here: Flang rejects it in a call without an explicit
    // interface, which the analysis-only modules do not give, and mpiete-fc builds such a
    // file natively.)
    const auto &Specs = std::get<std::list<p::ActualArgSpec>>(C.call.t);
    const size_t Actuals = Specs.size();
    const unsigned Before = fortranArgsBeforeError(*Info);
    if (Actuals == Before + 1 && !errorKeyword(Specs.back(), C.source.begin(), CS.Edits)) {
      Diags.error(SM.loc(N->source),
                  "the 'ierror' keyword of this call to '" + Name +
                      "' and its '=' are on different lines; mpiete cannot drop the keyword",
                  "unsupported");
      return;
    }
    if (Actuals != Before && Actuals != Before + 1) {
      Diags.error(SM.loc(N->source),
                  "this call to '" + Name + "' passes " + std::to_string(Actuals) + " arguments; " +
                      Name + " takes " + std::to_string(Before) + " and an optional ierror",
                  "unsupported");
      return;
    }
    CS.Edits.NoError = Actuals == Before;
    CS.Routine = Name;
    CS.RuntimeName = std::string(Info->RuntimeName);
    CS.Role = Info->Role;
    CS.FirstBlock = Model.Blocks.size();
    CS.Edits.CalleeBegin = *NB;
    CS.Edits.CalleeEnd = *NE;
    CS.Edits.ArgsBegin = *LParen + 1;
    CS.Edits.HasArgs = !(A < StmtEnd && *A == ')');
    unsigned SiteIndex = Model.Sites.size();
    Model.Sites.push_back(CS);

    std::string Text = callText(*N, C);
    unsigned Count = blocksForRole(Info->Role);
    for (unsigned I = 0; I < Count; ++I) {
      RoleBlock RB = roleBlock(Info->Role, I);
      Block B = newBlock(RB.Kind, N->source, C.source);
      B.Phase = RB.Phase;
      B.Routine = Name;
      B.CallText = Text;
      B.Site = SiteIndex;
      Model.Blocks.push_back(std::move(B));
    }
  }

  /// A last argument written `ierror = value` (its keyword already gone from the parse tree):
  /// sets the span of `ierror =` in E. The keyword is read back from the cooked text before
  /// the value (continuations joined, so the value may sit on a later line); false where
  /// `ierror` and its `=` are not on one line of the file; true with nothing set where the
  /// argument has no keyword. Start is the call statement's first cooked character.
  bool errorKeyword(const p::ActualArgSpec &Spec, const char *Start, CallEdits &E) const {
    const auto *X =
        std::get_if<Fortran::common::Indirection<p::Expr>>(&std::get<p::ActualArg>(Spec.t).u);
    if (!X || X->value().source.empty())
      return true;
    const char *P = X->value().source.begin();
    while (P > Start && P[-1] == ' ')
      --P;
    if (P == Start || P[-1] != '=')
      return true; // positional
    const char *Eq = P - 1, *NameEnd = Eq;
    while (NameEnd > Start && NameEnd[-1] == ' ')
      --NameEnd;
    const char *Name = NameEnd;
    while (Name > Start && (std::isalnum(static_cast<unsigned char>(Name[-1])) || Name[-1] == '_'))
      --Name;
    if (lower(std::string_view(Name, NameEnd - Name)) != "ierror")
      return true; // not a keyword Flang let through (never happens: it rejects the others)
    auto B = SM.offsetOf(Name), EqAt = SM.offsetOf(Eq);
    if (!B || !EqAt || *EqAt < *B || Main.find('\n', *B) < *EqAt)
      return false;
    E.KeywordBegin = *B;
    E.KeywordEnd = *EqAt + 1;
    return true;
  }

  /// The call as written, on one line: continuation marks and comments removed.
  std::string callText(const p::Name &N, const p::CallStmt &C) const {
    auto B = SM.beginOf(N.source), E = SM.endOf(C.source);
    if (!B || !E || *E <= *B)
      return N.ToString();
    std::string Raw = Main.substr(*B, *E - *B), Out;
    bool Space = false, LineStart = false, InComment = false;
    unsigned Col = 0;
    char Quote = 0;
    for (size_t I = 0; I < Raw.size(); ++I) {
      char Ch = Raw[I];
      if (Ch == '\n') {
        LineStart = true;
        InComment = false;
        Col = 0;
        Space = true;
        continue;
      }
      ++Col;
      if (LineStart) {
        if (Opts.FixedForm) {
          if (Col <= 6)
            continue; // label field and continuation mark
          LineStart = false;
        } else if (Ch == ' ' || Ch == '\t') {
          continue;
        } else {
          LineStart = false;
          if (Ch == '&')
            continue;
        }
      }
      if (InComment)
        continue;
      if (!Quote && Ch == '!') {
        InComment = true;
        continue;
      }
      if (!Opts.FixedForm && !Quote && Ch == '&')
        continue;
      if (Ch == '\'' || Ch == '"')
        Quote = Quote == Ch ? 0 : (Quote ? Quote : Ch);
      if (!Quote && (Ch == ' ' || Ch == '\t' || Ch == '\r')) {
        Space = true;
        continue;
      }
      if (Space && !Out.empty() && Out.back() != '(' && Ch != ')' && Ch != ',')
        Out += ' ';
      Space = false;
      Out += Ch;
    }
    return Out;
  }

  const SourceMap &SM;
  const std::string &Main;
  const CommunicationAnalysis &CA;
  const FortranFrontendOptions &Opts;
  UnitModel &Model;
  DiagnosticSink &Diags;
  std::string Procedure;
  const p::ExecutionPart *Exec = nullptr;
  std::vector<unsigned> LoopStack;
  std::vector<std::optional<p::Label>> TerminalStack;
  std::set<p::Label> Targets;
  std::vector<uint32_t> Counters;
  bool CapHook = false;       ///< a loop of this procedure has the leaving iteration hook
  bool OpaqueCapHook = false; ///< a loop of this procedure has the opaque one
  bool SampleHook = false;    ///< a loop of this procedure is sampled
  /// Fortran's partition is seed 004's: every DO, IF and SELECT CASE ends a compute block.
  PartitionPolicy Policy{/*SeedBlocks=*/true};
  bool Segments; ///< no compute blocks: DO loops with MPI calls get (iteration) hooks, and
                 ///< sampled loops theirs
  unsigned NoSampling = 0; ///< in a PURE procedure, a CRITICAL or DO CONCURRENT construct
};

} // namespace

void fortran::buildProcedureBlocks(const SourceMap &SM, const std::string &MainText,
                                   const CommunicationAnalysis &CA,
                                   const std::vector<ProcInfo> &Procs,
                                   const FortranFrontendOptions &Opts, UnitModel &Model,
                                   DiagnosticSink &Diags) {
  UnitBuilder Builder(SM, MainText, CA, Opts, Model, Diags);
  for (const ProcInfo &P : Procs) {
    const bool Communicates = CA.communicates(P.Name);
    if (!Communicates && Opts.Mode != Partition::Segments)
      continue;
    auto B = SM.beginOf(spanOf(*P.Exec));
    if (!B && !spanOf(*P.Exec).empty())
      continue; // a procedure from an included file: its MPI calls cannot be rewritten
    if (Communicates)
      Builder.procedure(P);
    else
      Builder.quietProcedure(P);
  }
}

size_t fortran::taskSentinel(std::string_view Line, bool FixedForm) {
  size_t S = std::string::npos;
  if (FixedForm && !Line.empty() && std::strchr("cC*!", Line[0]))
    S = 1;
  else if (size_t F = Line.find_first_not_of(" \t"); F != std::string::npos && Line[F] == '!')
    S = F + 1;
  if (S == std::string::npos || lower(Line.substr(S, 7)) != "$mpiete" ||
      (Line.size() > S + 7 && std::isalnum(static_cast<unsigned char>(Line[S + 7]))))
    return std::string::npos;
  return S;
}

bool hasTaskDirectives(p::Parsing &Parsing, bool FixedForm) {
  const p::SourceFile *Main = SourceMap(Parsing.allCooked(), "").main();
  if (!Main)
    return false;
  const std::string_view Text(Main->content().data(), Main->content().size());
  for (size_t Start = 0; Start < Text.size();) {
    size_t Stop = Text.find('\n', Start);
    if (Stop == std::string_view::npos)
      Stop = Text.size();
    if (fortran::taskSentinel(Text.substr(Start, Stop - Start), FixedForm) != std::string::npos)
      return true;
    Start = Stop + 1;
  }
  return false;
}

namespace {

/// One `!$mpiete` directive line of the main file.
struct TaskDirective {
  unsigned Line = 0;        ///< from 0
  unsigned Col = 0;         ///< of the comment character, from 1 (the diagnostics' column)
  unsigned Begin = 0;       ///< the line's first byte
  unsigned End = 0;         ///< one past its last byte (its '\n' excluded)
  bool Open = false;        ///< `task(...)` or `task from message`; else `end task` or a message
  bool FromMessage = false; ///< `task from message`
  bool Message = false;     ///< `task message(elements)`: Params are the elements
  std::vector<std::string> Params;
  std::vector<unsigned> ParamAt; ///< each parameter's first byte, from the directive's text
};

/// A directive's text after its sentinel, read case-insensitively with blanks ignored between
/// words (fixed form ignores them everywhere): `task(expr, ...)`, `end task`, `task from
/// message` or `task message(element, ...)`, then at most a comment. Empty Error: a directive;
/// else why it is none.
TaskDirective parseTaskDirective(const std::string &Rest, std::string &Error) {
  TaskDirective D;
  size_t I = 0;
  auto Blanks = [&] {
    while (I < Rest.size() && (Rest[I] == ' ' || Rest[I] == '\t' || Rest[I] == '\r'))
      ++I;
  };
  auto Word = [&](const char *W) {
    size_t J = I;
    for (const char *C = W; *C; ++C) {
      while (J < Rest.size() && (Rest[J] == ' ' || Rest[J] == '\t'))
        ++J;
      if (J >= Rest.size() || std::tolower(static_cast<unsigned char>(Rest[J])) != *C)
        return false;
      ++J;
    }
    I = J;
    return true;
  };
  auto Tail = [&] {
    Blanks();
    if (I < Rest.size() && Rest[I] != '!')
      Error = "unexpected '" + Rest.substr(I) + "' after the directive";
  };
  Blanks();
  if (Word("end")) {
    if (!Word("task"))
      Error = "expected 'end task'";
    else
      Tail();
    return D;
  }
  if (!Word("task")) {
    Error = "unknown mpiete directive '" + Rest.substr(I) +
            "': the directives are 'task(parameters)', 'task message(elements)', 'task from "
            "message' and 'end task'";
    return D;
  }
  if (Word("from")) {
    if (!Word("message")) {
      Error = "expected 'task from message'";
      return D;
    }
    D.Open = D.FromMessage = true;
    Tail();
    return D;
  }
  D.Message = Word("message");
  D.Open = !D.Message;
  const char *What = D.Message ? "the work message's elements" : "the task's parameters";
  Blanks();
  if (I >= Rest.size() || Rest[I] != '(') {
    Error = std::string("expected '(' and ") + What + " after '" +
            (D.Message ? "task message" : "task") + "'";
    return D;
  }
  int Depth = 0;
  char Quote = 0;
  std::string Param;
  size_t ParamStart = I + 1;
  for (++I; I < Rest.size(); ++I) {
    const char C = Rest[I];
    if (Quote) {
      Quote = C == Quote ? 0 : Quote;
    } else if (C == '\'' || C == '"') {
      Quote = C;
    } else if (C == '(') {
      ++Depth;
    } else if (C == ')' && Depth > 0) {
      --Depth;
    } else if ((C == ')' || C == ',') && Depth == 0) {
      const size_t F = Param.find_first_not_of(" \t"), L = Param.find_last_not_of(" \t\r");
      if (F == std::string::npos) {
        Error = D.Message ? "an empty element of the work message" : "an empty task parameter";
        return D;
      }
      D.Params.push_back(Param.substr(F, L - F + 1));
      D.ParamAt.push_back(static_cast<unsigned>(ParamStart + F));
      Param.clear();
      ParamStart = I + 1;
      if (C == ')')
        break;
      continue;
    }
    Param += C;
  }
  if (I >= Rest.size()) {
    Error = std::string(What) + " have no closing ')' on the directive's line (a directive is "
                                "not continued)";
    return D;
  }
  ++I;
  if (D.Params.size() > 8)
    Error = std::string(D.Message ? "a work message names" : "a task has") +
            " 1 to 8 parameters, this one " + std::to_string(D.Params.size());
  else
    Tail();
  return D;
}

/// Why the task hook's `INT(P, 8)` cannot take the parameter P, as far as the symbols of the
/// procedure's scope tell: a name, alone or with a subscript or argument list, of a CHARACTER,
/// LOGICAL or derived-type entity; a whole array (its elements would each become a parameter);
/// a name alone that the procedure does not know (a typo would read an undefined variable).
/// Empty: nothing against it here; gfortran checks the rest when it compiles the probe.
/// A parameter written as NAME or NAME(...) with nothing after its closing parenthesis: the
/// name, lower case, and whether it stands alone. nullopt for any other expression.
struct Designator {
  std::string Name;
  bool Alone = true;
};
std::optional<Designator> designator(const std::string &P) {
  if (P.empty() || !std::isalpha(static_cast<unsigned char>(P[0])))
    return std::nullopt;
  size_t I = 0;
  while (I < P.size() && (std::isalnum(static_cast<unsigned char>(P[I])) || P[I] == '_'))
    ++I;
  const size_t J = P.find_first_not_of(" \t", I);
  if (J != std::string::npos) {
    if (P[J] != '(' || P.back() != ')')
      return std::nullopt;
    int Depth = 0;
    for (size_t K = J; K < P.size(); ++K) {
      Depth += P[K] == '(' ? 1 : P[K] == ')' ? -1 : 0;
      if (Depth == 0 && K + 1 < P.size())
        return std::nullopt;
    }
  }
  return Designator{lower(P.substr(0, I)), J == std::string::npos};
}

std::string badTaskParam(const std::string &P, const sem::Scope *Scope) {
  const std::optional<Designator> D = designator(P);
  if (!Scope || !D)
    return "";
  const std::string &Name = D->Name;
  const bool Alone = D->Alone;
  const sem::Symbol *Sym = Scope->FindSymbol(p::CharBlock{Name});
  if (!Sym)
    return Alone ? "'" + Name +
                       "' is no name this procedure knows: a task parameter is an integer or "
                       "real expression of its variables"
                 : "";
  const sem::Symbol &U = Sym->GetUltimate();
  if (const sem::DeclTypeSpec *T = U.GetType()) {
    const char *What = T->category() == sem::DeclTypeSpec::Logical     ? "LOGICAL"
                       : T->category() == sem::DeclTypeSpec::Character ? "CHARACTER"
                       : T->category() == sem::DeclTypeSpec::Numeric   ? nullptr
                                                                       : "of a derived type";
    if (What)
      return "'" + Name + "' is " + What +
             ": a task parameter is an integer or real value (the hook converts it with INT)";
  }
  if (Alone && U.has<sem::ObjectEntityDetails>() && U.Rank() > 0)
    return "'" + Name +
           "' is an array: a task parameter is one value (an element, or a scalar expression)";
  return "";
}

/// Why `task message(...)` cannot name P as an element of the work message: the runtime keeps
/// its address and reads it when each `task from message` begins, so P is an INTEGER variable
/// or an element of an INTEGER array (NAME or NAME(subscripts)), never an expression (its
/// address would be a temporary's) nor a whole array. Empty: accepted, with its kind (bytes:
/// 1, 2, 4 or 8) in Kind.
std::string badMessageElement(const std::string &P, const sem::Scope *Scope, int &Kind) {
  const std::optional<Designator> D = designator(P);
  if (!D)
    return "'" + P +
           "' is no variable: the work message's elements are named as INTEGER variables or "
           "array elements (the runtime reads them by address when each task begins)";
  const std::string &Name = D->Name;
  const bool Alone = D->Alone;
  const sem::Symbol *Sym = Scope ? Scope->FindSymbol(p::CharBlock{Name}) : nullptr;
  if (!Sym)
    return "'" + Name + "' is no name this procedure knows";
  const sem::Symbol &U = Sym->GetUltimate();
  const sem::DeclTypeSpec *T = U.GetType();
  if (!T || !T->IsNumeric(Fortran::common::TypeCategory::Integer))
    return "'" + Name + "' is not INTEGER: a task's parameters are integers";
  if (!U.has<sem::ObjectEntityDetails>())
    return "'" + Name + "' is no variable";
  const std::optional<int64_t> K = Fortran::evaluate::ToInt64(T->numericTypeSpec().kind());
  if (!K || (*K != 1 && *K != 2 && *K != 4 && *K != 8))
    return "'" + Name + "' is an INTEGER of kind " + (K ? std::to_string(*K) : "unknown") +
           ": a task parameter is an INTEGER of kind 1, 2, 4 or 8";
  Kind = int(*K);
  if (Alone && U.Rank() > 0)
    return "'" + Name + "' is an array: name its elements, one per parameter (" + Name + "(2), " +
           Name + "(3))";
  if (!Alone && U.Rank() == 0)
    return "'" + Name + "' is no array";
  return "";
}

/// Where the CASE statements of SELECT CASE, SELECT TYPE and SELECT RANK begin.
struct CaseCollector {
  const SourceMap &SM;
  std::vector<unsigned> Starts;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::Statement<p::CaseStmt> &S) { return add(S.source); }
  bool Pre(const p::Statement<p::TypeGuardStmt> &S) { return add(S.source); }
  bool Pre(const p::Statement<p::SelectRankCaseStmt> &S) { return add(S.source); }
  bool add(p::CharBlock B) {
    if (const auto At = SM.beginOf(B))
      Starts.push_back(*At);
    return true;
  }
};

/// Statements and executable constructs of a node, as [begin, end) offsets in the main file.
struct SpanCollector {
  const SourceMap &SM;
  std::vector<std::pair<unsigned, unsigned>> Statements, Constructs;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &S) {
    add(Statements, S.source);
    return true;
  }
  template <typename T> bool Pre(const p::UnlabeledStatement<T> &S) {
    add(Statements, S.source);
    return true;
  }
  bool Pre(const p::ExecutionPartConstruct &E) {
    add(Constructs, spanOf(E));
    return true;
  }
  void add(std::vector<std::pair<unsigned, unsigned>> &To, p::CharBlock B) {
    const auto Bg = SM.beginOf(B), En = SM.endOf(B);
    if (Bg && En)
      To.push_back({*Bg, *En});
  }
};

/// The control flow a task's body may not take out of it (or into it) in one procedure: jumps
/// to labels, EXIT and CYCLE with the DO loop they leave, RETURN, and where each label is.
struct FlowCollector {
  const SourceMap &SM;
  struct Jump {
    unsigned At = 0;
    p::CharBlock Source;
    std::optional<p::Label> Target;                    ///< a label; none: an assigned GOTO
    std::optional<std::pair<unsigned, unsigned>> Loop; ///< EXIT / CYCLE: the loop's span
    bool Leaves = false;                               ///< RETURN or an alternate return
    const char *What = "";
  };
  std::vector<Jump> Jumps;
  std::map<p::Label, unsigned> Labels;
  unsigned At = 0;
  p::CharBlock Source;
  struct Loop {
    std::optional<std::string> Name;
    std::pair<unsigned, unsigned> Span;
  };
  std::vector<Loop> Loops;

  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &S) {
    enter(S.source);
    if (S.label)
      Labels[*S.label] = At;
    return true;
  }
  template <typename T> bool Pre(const p::UnlabeledStatement<T> &S) {
    enter(S.source);
    return true;
  }
  void enter(p::CharBlock B) {
    if (auto O = SM.beginOf(B)) {
      At = *O;
      Source = B;
    }
  }
  void jump(std::optional<p::Label> L, const char *What, bool Leaves = false) {
    Jump J;
    J.At = At;
    J.Source = Source;
    J.Target = L;
    J.Leaves = Leaves;
    J.What = What;
    Jumps.push_back(J);
  }
  bool Pre(const p::DoConstruct &D) {
    const auto &Stmt = std::get<p::Statement<p::NonLabelDoStmt>>(D.t);
    const auto &Name = std::get<std::optional<p::Name>>(Stmt.statement.t);
    const p::CharBlock Span = spanOf(D);
    const auto Bg = SM.beginOf(Span), En = SM.endOf(Span);
    Loops.push_back({Name ? std::optional<std::string>(lower(Name->ToString())) : std::nullopt,
                     {Bg.value_or(0), En.value_or(0)}});
    return true;
  }
  void Post(const p::DoConstruct &) { Loops.pop_back(); }
  void leaveLoop(const std::optional<p::Name> &Name, const char *What) {
    Jump J;
    J.At = At;
    J.Source = Source;
    J.What = What;
    for (auto It = Loops.rbegin(); It != Loops.rend(); ++It)
      if (!Name || (It->Name && *It->Name == lower(Name->ToString()))) {
        J.Loop = It->Span;
        break;
      }
    if (!J.Loop) // a named construct that is no DO loop: where it ends is not known here
      J.Loop = std::pair<unsigned, unsigned>{0, 0};
    Jumps.push_back(J);
  }
  bool Pre(const p::ExitStmt &S) {
    leaveLoop(S.v, "EXIT");
    return true;
  }
  bool Pre(const p::CycleStmt &S) {
    leaveLoop(S.v, "CYCLE");
    return true;
  }
  bool Pre(const p::GotoStmt &S) {
    jump(S.v, "GOTO");
    return true;
  }
  bool Pre(const p::ComputedGotoStmt &S) {
    for (p::Label L : std::get<std::list<p::Label>>(S.t))
      jump(L, "computed GOTO");
    return true;
  }
  bool Pre(const p::AssignedGotoStmt &) {
    jump(std::nullopt, "assigned GOTO");
    return true;
  }
  bool Pre(const p::ArithmeticIfStmt &S) {
    jump(std::get<1>(S.t), "arithmetic IF");
    jump(std::get<2>(S.t), "arithmetic IF");
    jump(std::get<3>(S.t), "arithmetic IF");
    return true;
  }
  bool Pre(const p::ErrLabel &S) {
    jump(S.v, "ERR=");
    return true;
  }
  bool Pre(const p::EndLabel &S) {
    jump(S.v, "END=");
    return true;
  }
  bool Pre(const p::EorLabel &S) {
    jump(S.v, "EOR=");
    return true;
  }
  bool Pre(const p::AltReturnSpec &) {
    jump(std::nullopt, "alternate return", /*Leaves=*/true);
    return true;
  }
  bool Pre(const p::ReturnStmt &) {
    jump(std::nullopt, "RETURN", /*Leaves=*/true);
    return true;
  }
};

/// The statements of a task's body that call MPI, or a procedure that does.
struct BodyCalls {
  const SourceMap &SM;
  const CommunicationAnalysis &CA;
  unsigned Begin, End;
  std::optional<p::CharBlock> First;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &S) {
    check(S.source, S.statement);
    return true;
  }
  template <typename T> bool Pre(const p::UnlabeledStatement<T> &S) {
    check(S.source, S.statement);
    return true;
  }
  template <typename T> void check(p::CharBlock Src, const T &Stmt) {
    const auto At = SM.beginOf(Src);
    if (First || !At || *At < Begin || *At >= End)
      return;
    StmtFacts F;
    FactsWalker W{CA, F};
    p::Walk(Stmt, W);
    if (F.MpiCall || F.CommunicatingCall)
      First = Src;
  }
};

} // namespace

void fortran::findTaskRegions(const SourceMap &SM, const std::string &MainText,
                              const CommunicationAnalysis &CA, const std::vector<ProcInfo> &Procs,
                              const p::Program &Prog, const FortranFrontendOptions &Opts,
                              UnitModel &Model, DiagnosticSink &Diags) {
  // The directive lines, in order.
  std::vector<TaskDirective> Found;
  const std::string &File = Model.Source;
  unsigned Line = 0;
  for (size_t Start = 0; Start < MainText.size(); ++Line) {
    size_t Stop = MainText.find('\n', Start);
    if (Stop == std::string::npos)
      Stop = MainText.size();
    const std::string Text = MainText.substr(Start, Stop - Start);
    if (const size_t S = taskSentinel(Text, Opts.FixedForm); S != std::string::npos) {
      std::string Error;
      TaskDirective D = parseTaskDirective(Text.substr(S + 7), Error);
      D.Line = Line;
      D.Col = static_cast<unsigned>(S);
      D.Begin = static_cast<unsigned>(Start);
      D.End = static_cast<unsigned>(Stop);
      if (!Error.empty())
        Diags.error({File, Line + 1, D.Col}, Error, "task");
      else
        Found.push_back(std::move(D));
    }
    Start = Stop + 1;
  }
  if (Found.empty())
    return;
  if (Opts.Mode != Partition::Segments) {
    Diags.error({File, Found[0].Line + 1, Found[0].Col},
                "task directives need the default partition (segments); seed 004's fine "
                "partition (--seed-blocks) does not place blocks around them",
                "task");
    return;
  }
  // Pairs, in order, without nesting.
  std::vector<std::pair<const TaskDirective *, const TaskDirective *>> Pairs;
  const TaskDirective *Open = nullptr;
  for (const TaskDirective &D : Found) {
    if (D.Message)
      continue;
    if (D.Open && Open) {
      Diags.error({File, D.Line + 1, D.Col},
                  "a task inside the task opened at line " + std::to_string(Open->Line + 1) +
                      ": tasks do not nest",
                  "task");
      return;
    }
    if (!D.Open && !Open) {
      Diags.error({File, D.Line + 1, D.Col}, "'end task' without a 'task' before it", "task");
      return;
    }
    if (D.Open)
      Open = &D;
    else
      Pairs.push_back({std::exchange(Open, nullptr), &D});
  }
  if (Open) {
    Diags.error({File, Open->Line + 1, Open->Col}, "this task has no 'end task'", "task");
    return;
  }

  SpanCollector All{SM, {}, {}};
  p::Walk(Prog, All);
  std::vector<SpanCollector> PerProc;
  for (const ProcInfo &P : Procs) {
    SpanCollector C{SM, {}, {}};
    p::Walk(*P.Exec, C);
    PerProc.push_back(std::move(C));
  }
  // Procedures that declare a hook: their declaration in Model.CounterDecls, if it was placed.
  std::map<size_t, std::optional<size_t>> Declared;
  auto Declare = [&](size_t Owner, bool FromMessage) {
    auto [It, New] = Declared.try_emplace(Owner);
    if (New) {
      CounterDecl D;
      if (placeDeclarations(SM, Procs[Owner], D, Diags)) {
        It->second = Model.CounterDecls.size();
        Model.CounterDecls.push_back(std::move(D));
      }
    }
    if (It->second)
      (FromMessage ? Model.CounterDecls[*It->second].TaskMessageHook
                   : Model.CounterDecls[*It->second].TaskHook) = true;
  };
  std::map<size_t, FlowCollector> Flows; // their jumps and labels, walked once
  for (const auto &[BeginD, EndD] : Pairs) {
    const unsigned B = BeginD->End, E = EndD->Begin;
    const std::string Where = "the task of lines " + std::to_string(BeginD->Line + 1) + "-" +
                              std::to_string(EndD->Line + 1);
    // Every statement between the directives must lie in an executable construct of one
    // procedure that lies between them whole.
    std::optional<size_t> Owner;
    std::optional<std::pair<unsigned, unsigned>> Stray, First;
    for (const auto &St : All.Statements) {
      if (St.second <= B || St.first >= E)
        continue;
      if (!First || St.first < First->first)
        First = St;
      auto WholeIn = [&](size_t K) {
        return std::any_of(PerProc[K].Constructs.begin(), PerProc[K].Constructs.end(),
                           [&](const std::pair<unsigned, unsigned> &C) {
                             return C.first >= B && C.second <= E && C.first <= St.first &&
                                    St.second <= C.second;
                           });
      };
      std::optional<size_t> In;
      for (size_t K = 0; K < Procs.size() && !In; ++K)
        if (WholeIn(K))
          In = K;
      if (In && (!Owner || *Owner == *In))
        Owner = In;
      else if (!Stray)
        Stray = St;
    }
    if (!First) {
      Diags.error({File, BeginD->Line + 1, BeginD->Col}, Where + " holds no statement", "task");
      continue;
    }
    auto LocAt = [&](unsigned Offset) {
      const unsigned L =
          static_cast<unsigned>(std::count(MainText.begin(), MainText.begin() + Offset, '\n'));
      const size_t LineStart = MainText.rfind('\n', Offset == 0 ? 0 : Offset - 1);
      const unsigned Col = static_cast<unsigned>(
          LineStart == std::string::npos || Offset == 0 ? Offset + 1 : Offset - LineStart);
      return DiagLoc{File, L + 1, Col};
    };
    if (Stray || !Owner) {
      Diags.error(LocAt(Stray ? Stray->first : First->first),
                  "this statement is not whole inside " + Where +
                      ": the directives must enclose whole executable statements of one "
                      "block (not part of a DO, IF or other construct, nor declarations)",
                  "task");
      continue;
    }
    const ProcInfo &P = Procs[*Owner];
    if (P.Pure) {
      Diags.error({File, BeginD->Line + 1, BeginD->Col},
                  Where + " is in the PURE or ELEMENTAL procedure '" + P.Name +
                      "', which cannot call the task's hooks",
                  "task");
      continue;
    }
    BodyCalls Calls{SM, CA, B, E, std::nullopt};
    p::Walk(*P.Exec, Calls);
    if (Calls.First) {
      Diags.error(SM.loc(*Calls.First),
                  "this statement of " + Where +
                      " calls MPI (or a procedure that does): a task's body only computes",
                  "task");
      continue;
    }
    auto [FlowAt, Walk] = Flows.try_emplace(*Owner, FlowCollector{SM, {}, {}, 0, {}, {}});
    const FlowCollector &Flow = FlowAt->second;
    if (Walk)
      p::Walk(*P.Exec, FlowAt->second);
    bool Bad = false;
    for (const FlowCollector::Jump &J : Flow.Jumps) {
      const bool In = J.At >= B && J.At < E;
      std::string Why;
      if (J.Loop) {
        if (In && !(J.Loop->first >= B && J.Loop->second <= E && J.Loop->second > 0))
          Why = std::string(J.What) + " leaves " + Where + " (its loop is not inside it)";
      } else if (J.Leaves || !J.Target) {
        if (In)
          Why = std::string(J.What) + " leaves " + Where;
      } else if (auto It = Flow.Labels.find(*J.Target); It != Flow.Labels.end()) {
        const bool TargetIn = It->second >= B && It->second < E;
        if (In && !TargetIn)
          Why = std::string(J.What) + " to label " + std::to_string(*J.Target) + " leaves " + Where;
        else if (!In && TargetIn)
          Why = std::string(J.What) + " to label " + std::to_string(*J.Target) + " jumps into " +
                Where;
      }
      if (!Why.empty()) {
        Diags.error(SM.loc(J.Source), Why + ": a task is left only at its end ('end task')",
                    "task");
        Bad = true;
        break;
      }
    }
    for (size_t K = 0; K < BeginD->Params.size() && !Bad; ++K)
      if (std::string Why = badTaskParam(BeginD->Params[K], P.Scope); !Why.empty()) {
        Diags.error({File, BeginD->Line + 1, BeginD->Col + 8 + BeginD->ParamAt[K]}, Why, "task");
        Bad = true;
      }
    if (Bad)
      continue;
    TaskRegion R;
    R.Begin = B;
    R.End = E;
    R.First = First->first;
    R.Params = BeginD->Params;
    R.FromMessage = BeginD->FromMessage;
    Model.Tasks.push_back(std::move(R));
    Declare(*Owner, BeginD->FromMessage);
  }
  CaseCollector Cases{SM, {}};
  if (std::any_of(Found.begin(), Found.end(), [](const TaskDirective &D) { return D.Message; }))
    p::Walk(Prog, Cases);
  // `task message(...)`: the runtime's calls go before the statement after the directive,
  // which must be an executable one (not a declaration, nor a procedure's END).
  for (const TaskDirective &D : Found) {
    if (!D.Message)
      continue;
    std::optional<std::pair<unsigned, unsigned>> Next;
    for (const auto &St : All.Statements)
      if (St.first >= D.End && (!Next || St.first < Next->first))
        Next = St;
    std::optional<size_t> Owner;
    for (size_t K = 0; Next && K < Procs.size() && !Owner; ++K)
      if (std::find(PerProc[K].Statements.begin(), PerProc[K].Statements.end(), *Next) !=
          PerProc[K].Statements.end())
        Owner = K;
    // Nor a CASE (TYPE IS, CLASS IS, RANK) of a SELECT, where no statement may go before it.
    if (!Owner ||
        std::find(Cases.Starts.begin(), Cases.Starts.end(), Next->first) != Cases.Starts.end()) {
      Diags.error({File, D.Line + 1, D.Col},
                  "a 'task message' directive goes before an executable statement of a "
                  "procedure (its calls are placed there), not among declarations, before an "
                  "END or before a CASE",
                  "task");
      continue;
    }
    if (Procs[*Owner].Pure) {
      Diags.error({File, D.Line + 1, D.Col},
                  "this 'task message' is in the PURE or ELEMENTAL procedure '" +
                      Procs[*Owner].Name + "', which cannot call the runtime",
                  "task");
      continue;
    }
    bool Bad = false;
    TaskMessage M;
    for (size_t K = 0; K < D.Params.size() && !Bad; ++K) {
      int Kind = 0;
      if (std::string Why = badMessageElement(D.Params[K], Procs[*Owner].Scope, Kind);
          !Why.empty()) {
        Diags.error({File, D.Line + 1, D.Col + 8 + D.ParamAt[K]}, Why, "task");
        Bad = true;
      }
      M.Kinds.push_back(Kind);
    }
    if (Bad)
      continue;
    M.First = Next->first;
    M.Elements = D.Params;
    Model.TaskMessages.push_back(std::move(M));
  }
}

} // namespace mpiete
