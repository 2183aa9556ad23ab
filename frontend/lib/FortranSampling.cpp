// Which DO loops the timing probe may sample (issue 15, ComputeEdits::SampledLoop): the checks
// of one loop that its own parse tree and its procedure's jumps answer. Skipping an iteration
// must skip nothing but computation, and every way into and out of the loop must pass its
// hooks, so when in doubt a loop is not sampled.
#include "FortranAnalysis.h"

namespace mpiete::fortran {
namespace {

/// The names of the constructs under a node: a named EXIT or CYCLE of one of them stays inside.
struct ConstructNames {
  std::set<std::string> Names;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename S> void add(const S &Stmt) {
    if (const std::optional<p::Name> &N = std::get<0>(Stmt.t))
      Names.insert(lower(N->ToString()));
  }
  bool Pre(const p::BlockStmt &S) {
    if (S.v)
      Names.insert(lower(S.v->ToString()));
    return true;
  }
#define MPIETE_NAMED(Type)                                                                         \
  bool Pre(const p::Type &S) {                                                                     \
    add(S);                                                                                        \
    return true;                                                                                   \
  }
  MPIETE_NAMED(NonLabelDoStmt)
  MPIETE_NAMED(IfThenStmt)
  MPIETE_NAMED(SelectCaseStmt)
  MPIETE_NAMED(SelectRankStmt)
  MPIETE_NAMED(SelectTypeStmt)
  MPIETE_NAMED(AssociateStmt)
  MPIETE_NAMED(CriticalStmt)
  MPIETE_NAMED(ChangeTeamStmt)
  MPIETE_NAMED(ForallConstructStmt)
  MPIETE_NAMED(WhereConstructStmt)
#undef MPIETE_NAMED
};

/// What a loop's body holds: another loop, a way out other than the loop's end, the labels of
/// its statements (a jump there stays inside).
struct BodyWalker {
  BodyWalker(const CommunicationAnalysis &CA, const std::set<std::string> &Inner,
             const std::string &Own)
      : CA(CA), Inner(Inner), Own(Own) {}
  const CommunicationAnalysis &CA;
  const std::set<std::string> &Inner; ///< the construct names inside the body
  const std::string &Own;             ///< the loop's own name, or empty
  unsigned Depth = 0;                 ///< DO constructs entered inside the body
  bool Nested = false, Leaves = false;
  std::set<p::Label> Labels;

  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &S) {
    if (S.label)
      Labels.insert(*S.label);
    return true;
  }
  bool Pre(const p::DoConstruct &) {
    Nested = true;
    ++Depth;
    return true;
  }
  void Post(const p::DoConstruct &) { --Depth; }
  bool Pre(const p::ForallConstruct &) {
    Nested = true;
    return true;
  }
  bool Pre(const p::ForallStmt &) {
    Nested = true;
    return true;
  }
  /// EXIT without a name leaves the innermost DO: this loop, outside the loops in its body.
  bool Pre(const p::ExitStmt &S) {
    Leaves = Leaves || (S.v ? !Inner.count(lower(S.v->ToString())) : Depth == 0);
    return true;
  }
  /// CYCLE without a name, or of this loop, stays in it; of an enclosing one, leaves it.
  bool Pre(const p::CycleStmt &S) {
    if (S.v) {
      const std::string N = lower(S.v->ToString());
      Leaves = Leaves || (N != Own && !Inner.count(N));
    }
    return true;
  }
  /// An assigned GOTO goes to a label only run time knows; control arrives at an ENTRY from
  /// outside; what the parser could not read may be anything.
#define MPIETE_LEAVES(Type)                                                                        \
  bool Pre(const p::Type &) {                                                                      \
    Leaves = true;                                                                                 \
    return false;                                                                                  \
  }
  MPIETE_LEAVES(AssignedGotoStmt)
  MPIETE_LEAVES(EntryStmt)
  MPIETE_LEAVES(ErrorRecovery)
#undef MPIETE_LEAVES
  /// A procedure of this unit that calls what the unit cannot see may communicate; the EXIT
  /// and ABORT extensions end the program.
  void call(const p::Call &C) {
    const p::Name *N = designatorName(C);
    if (!N)
      return;
    const std::string L = calleeName(*N);
    Leaves = Leaves || CA.hides(L) || L == "exit" || L == "abort";
  }
  bool Pre(const p::CallStmt &S) {
    call(S.call);
    return true;
  }
  bool Pre(const p::FunctionReference &R) {
    call(R.v);
    return true;
  }
};

/// The jump targets of a procedure's statements outside one DO loop.
struct OutsideTargets : TargetCollector {
  const p::DoConstruct *Skip = nullptr;
  using TargetCollector::Post;
  using TargetCollector::Pre;
  bool Pre(const p::DoConstruct &D) { return &D != Skip; }
};

} // namespace

bool sampleable(const p::DoConstruct &D, const CommunicationAnalysis &CA,
                const p::ExecutionPart &Exec, const std::set<p::Label> &Targets) {
  // A counted loop: DO WHILE runs until its data says so, DO CONCURRENT may call nothing
  // impure, a DO without control ends only by EXIT.
  const std::optional<p::LoopControl> &Control = D.GetLoopControl();
  if (!Control || !std::holds_alternative<p::LoopControl::Bounds>(Control->u))
    return false;
  // No MPI and nothing that may communicate: the ranks may skip different iterations. No
  // RETURN, STOP or alternate return: the exit hook would not run.
  StmtFacts F;
  FactsWalker FW{CA, F};
  p::Walk(D, FW);
  if (F.MpiCall || F.CommunicatingCall || F.HiddenCall || F.HiddenFunction || F.LeavesUnit)
    return false;
  const auto &DoS = std::get<p::Statement<p::NonLabelDoStmt>>(D.t);
  const std::optional<p::Name> &Name = std::get<std::optional<p::Name>>(DoS.statement.t);
  const std::string Own = Name ? lower(Name->ToString()) : "";
  const p::Block &Body = std::get<p::Block>(D.t);
  ConstructNames CN;
  p::Walk(Body, CN);
  BodyWalker BW(CA, CN.Names, Own);
  p::Walk(Body, BW);
  p::Walk(std::get<p::Statement<p::EndDoStmt>>(D.t), BW);
  // Its hook runs per iteration of this loop: with a loop inside, never per element.
  if (!BW.Nested || BW.Leaves)
    return false;
  // Every jump in it stays in it (GOTO, computed GOTO, arithmetic IF, ERR=, END=, EOR=; the
  // DO statement's own label is outside: a jump there starts the loop again).
  TargetCollector In;
  p::Walk(D, In);
  for (p::Label L : In.Targets)
    if (!BW.Labels.count(L))
      return false;
  // No jump from outside into it: it would skip the DO statement's hook.
  if (std::none_of(BW.Labels.begin(), BW.Labels.end(),
                   [&](p::Label L) { return Targets.count(L) != 0; }))
    return true;
  OutsideTargets Out;
  Out.Skip = &D;
  p::Walk(Exec, Out);
  return std::none_of(BW.Labels.begin(), BW.Labels.end(),
                      [&](p::Label L) { return Out.Targets.count(L) != 0; });
}

} // namespace mpiete::fortran
