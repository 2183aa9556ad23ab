// The Fortran instrumentation. Fortran has no braces and (in fixed form) no room on a line, so
// hooks are whole new statement lines before or after the statements the frontend located;
// only MPI calls are edited inside a line, and a fixed-form line that grows past its last
// column is re-broken with continuation lines.
#include "mpiete/transforms/FortranEdits.h"

#include "mpiete/BlockId.h"
#include "mpiete/transforms/EditSet.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

namespace mpiete {

std::string fortranUnitLiteral(uint32_t UnitId) {
  int32_t S = static_cast<int32_t>(UnitId);
  if (S == INT32_MIN)
    return "(-2147483647-1)";
  return std::to_string(S);
}

namespace {

/// The lines of the text, with where each starts; a last line without '\n' counts.
class Lines {
public:
  explicit Lines(const std::string &Text) : Text(Text) {
    Starts.push_back(0);
    for (size_t I = 0; I < Text.size(); ++I)
      if (Text[I] == '\n' && I + 1 < Text.size())
        Starts.push_back(I + 1);
  }
  size_t count() const { return Starts.size(); }
  unsigned lineOf(unsigned Offset) const {
    auto It = std::upper_bound(Starts.begin(), Starts.end(), Offset);
    return static_cast<unsigned>(It - Starts.begin()) - 1;
  }
  size_t start(unsigned Line) const { return Starts[Line]; }
  /// The line without its '\n'.
  std::string text(unsigned Line) const {
    size_t B = Starts[Line];
    size_t E = Line + 1 < Starts.size() ? Starts[Line + 1] : Text.size();
    if (E > B && Text[E - 1] == '\n')
      --E;
    return Text.substr(B, E - B);
  }
  bool endsWithNewline(unsigned Line) const {
    size_t E = Line + 1 < Starts.size() ? Starts[Line + 1] : Text.size();
    return E > Starts[Line] && Text[E - 1] == '\n';
  }

private:
  const std::string &Text;
  std::vector<size_t> Starts;
};

struct LineEdits {
  std::vector<std::string> Before, After; ///< whole new lines (without '\n')
  EditSet Inline;                         ///< offsets relative to the line's start
  bool HasInline = false;
  unsigned Growth = 0;    ///< bytes the inline edits add before the statement field's end
  int ArgsInsertEnd = -1; ///< in the edited line: just past an inserted site argument list
  int ArgsOriginal = -1;  ///< in the original line: where that insertion was made
  bool Removed = false;   ///< the skeleton: the line is replaced by Replacement
  std::string Replacement;
  bool BlankLabel = false; ///< a GOTO loop's head: its label moved onto the hook line before it
};

class FortranInstrumenter {
public:
  FortranInstrumenter(const UnitModel &Model, const std::string &Text, Variant V,
                      bool Skeleton = false, bool SampleHooks = false)
      : Model(Model), Text(Text), L(Text), V(V), Fixed(Model.FixedForm),
        Width(Model.FixedColumns ? Model.FixedColumns : 72), Skeleton(Skeleton),
        Samples(V == Variant::Timing && SampleHooks) {}

  std::optional<std::string> run(std::string &Error) {
    Error.clear();
    if (Skeleton)
      for (const SkeletonRemoval &R : Model.SkeletonRemovals)
        if (!remove(R, Error))
          return std::nullopt;
    for (const CounterDecl &D : Model.CounterDecls) {
      std::vector<std::string> Decls;
      for (uint32_t B : D.Blocks)
        Decls.push_back(Fixed ? "INTEGER*8 " + counter(B) : "integer(kind=8) :: " + counter(B));
      if (D.CapHook)
        Decls.push_back(Fixed ? "INTEGER MPIETE_ITER_CAPPED" : "integer :: mpiete_iter_capped");
      if (D.OpaqueCapHook)
        Decls.push_back(Fixed ? "INTEGER MPIETE_ITER_OPAQUE_CAPPED"
                              : "integer :: mpiete_iter_opaque_capped");
      if (D.SampleHook && Samples) {
        Decls.push_back(Fixed ? "INTEGER MPIETE_SAMPLE_SKIP" : "integer :: mpiete_sample_skip");
        // Four bytes whatever -fdefault-integer-8 says: the runtime's C int.
        Decls.push_back(Fixed ? "INTEGER*4 MPIETE_SAMPLE_ON" : "integer(4) :: mpiete_sample_on");
        Decls.push_back(kw("common /mpiete_smpl/ mpiete_sample_on"));
      }
      if (D.TaskHook && !Skeleton)
        Decls.push_back(Fixed ? "INTEGER MPIETE_TASK_BEGIN" : "integer :: mpiete_task_begin");
      if (D.TaskMessageHook && !Skeleton)
        Decls.push_back(Fixed ? "INTEGER MPIETE_TASK_BEGIN_MESSAGE"
                              : "integer :: mpiete_task_begin_message");
      for (const std::string &Decl : Decls) {
        if (D.After)
          after(D.Offset, Decl, /*LikeNext=*/true);
        else
          before(D.Offset, Decl);
      }
    }
    for (const Block &B : Model.Blocks)
      if (B.Compute >= 0)
        compute(B, Model.Computes[B.Compute]);
    for (const CallSite &S : Model.Sites)
      site(S);
    // The skeleton runs no task: it drops their computation, as the C skeleton drops
    // MPIETE_TASK's (docs/skeleton.md); the task set comes from the full trace probe.
    if (!Skeleton) {
      for (const TaskRegion &T : Model.Tasks)
        task(T);
      for (const TaskMessage &M : Model.TaskMessages)
        message(M);
    }
    return assemble(Error);
  }

private:
  // ---- spelling ----------------------------------------------------------------------------

  std::string kw(std::string S) const {
    if (Fixed)
      for (char &C : S)
        C = static_cast<char>(std::toupper(static_cast<unsigned char>(C)));
    return S;
  }
  std::string counter(uint32_t Block) const { return kw("mpiete_n" + std::to_string(Block)); }
  /// `unit, index`: a block's index, or a call site's without ierror (noErrorIndex).
  std::string ids(int64_t Index) const {
    return fortranUnitLiteral(Model.UnitId) + ", " + std::to_string(Index);
  }
  std::string hook(const char *Name, uint32_t Block, bool Trips = false) const {
    std::string S = kw(std::string("call ") + Name) + "(" + ids(Block);
    if (Trips)
      S += ", " + counter(Block);
    return S + ")";
  }

  // ---- positions -----------------------------------------------------------------------------

  /// Where the statement field starts on a line (after the label), as a column from 0.
  unsigned statementColumn(const std::string &Line) const {
    size_t I = 0;
    if (Fixed) {
      if (Line.size() <= 6)
        return 6;
      I = 6;
    } else {
      while (I < Line.size() && (Line[I] == ' ' || Line[I] == '\t'))
        ++I;
      // A free-form label: digits, then blanks.
      size_t J = I;
      while (J < Line.size() && std::isdigit(static_cast<unsigned char>(Line[J])))
        ++J;
      if (J > I && J < Line.size() && (Line[J] == ' ' || Line[J] == '\t'))
        return static_cast<unsigned>(I);
    }
    while (I < Line.size() && (Line[I] == ' ' || Line[I] == '\t'))
      ++I;
    return static_cast<unsigned>(I);
  }

  /// A new statement line, indented like Like's statement.
  std::string newLine(const std::string &Stmt, const std::string &Like) const {
    unsigned Col = statementColumn(Like);
    if (Fixed) {
      Col = std::max(6u, Col);
      if (Col + Stmt.size() > Width)
        Col = 6;
      return std::string(Col, ' ') + Stmt;
    }
    // Free form: the same leading blanks as the statement's line (tabs included, as written).
    size_t I = 0;
    while (I < Like.size() && (Like[I] == ' ' || Like[I] == '\t'))
      ++I;
    return Like.substr(0, std::min<size_t>(I, Col)) + Stmt;
  }

  /// True when the line before the one holding Offset is a directive (!$omp do, !$acc loop).
  bool directiveBefore(unsigned Offset) const {
    unsigned Line = L.lineOf(Offset);
    return Line > 0 && isDirectiveLine(L.text(Line - 1), /*EndOnly=*/false);
  }

  /// True when only blanks (and a label) precede Offset on its line: a new line can go
  /// before the line.
  bool startsLine(unsigned Offset) const {
    unsigned Line = L.lineOf(Offset);
    std::string Prefix = Text.substr(L.start(Line), Offset - L.start(Line));
    for (size_t I = 0; I < Prefix.size(); ++I) {
      char C = Prefix[I];
      if (C == ' ' || C == '\t' || std::isdigit(static_cast<unsigned char>(C)))
        continue;
      return false;
    }
    return true;
  }

  /// True when nothing but blanks, a ';' or a comment follows Offset on its line.
  bool endsLine(unsigned Offset) const {
    unsigned Line = L.lineOf(Offset > 0 ? Offset - 1 : 0);
    size_t LineEnd = L.start(Line) + L.text(Line).size();
    for (size_t I = Offset; I < LineEnd; ++I) {
      char C = Text[I];
      if (Fixed && I - L.start(Line) >= Width)
        return true; // past the statement field: ignored text
      if (C == ' ' || C == '\t' || C == '\r' || C == ';')
        continue;
      return C == '!';
    }
    return true;
  }

  /// A directive line (!$omp, c$omp, !$acc, !dir$, !gcc$ ...): it binds to the statement that
  /// follows, so nothing may come between them.
  bool isDirectiveLine(const std::string &Line, bool EndOnly = false) const {
    size_t I = 0;
    if (Fixed && !Line.empty() &&
        (Line[0] == 'c' || Line[0] == 'C' || Line[0] == '*' || Line[0] == '!')) {
      I = 1;
    } else {
      I = Line.find_first_not_of(" \t");
      if (I == std::string::npos || Line[I] != '!')
        return false;
      ++I;
    }
    std::string Rest;
    for (size_t J = I; J < Line.size() && Rest.size() < 12; ++J)
      Rest += static_cast<char>(std::tolower(static_cast<unsigned char>(Line[J])));
    bool Directive = Rest.rfind("$omp", 0) == 0 || Rest.rfind("$acc", 0) == 0 ||
                     Rest.rfind("dir$", 0) == 0 || Rest.rfind("gcc$", 0) == 0 ||
                     Rest.rfind("dec$", 0) == 0;
    if (!Directive || !EndOnly)
      return Directive;
    size_t E = Rest.find_first_not_of(" ", 4);
    return E != std::string::npos && Rest.compare(E, 3, "end") == 0;
  }

  void before(unsigned Offset, const std::string &Stmt) {
    unsigned Line = L.lineOf(Offset);
    if (startsLine(Offset)) {
      // Above the directives that bind to this statement (an OpenMP DO, a vector hint).
      std::string Like = L.text(Line);
      while (Line > 0 && isDirectiveLine(L.text(Line - 1)) &&
             !isDirectiveLine(L.text(Line - 1), /*EndOnly=*/true))
        --Line;
      Edits[Line].Before.push_back(newLine(Stmt, Like));
      return;
    }
    inlineInsert(Line, Offset, Stmt + "; ", EditOrder::Open);
  }

  /// A comment or blank line, which says nothing about indentation.
  bool isCommentLine(const std::string &Line) const {
    if (Fixed && !Line.empty() && (Line[0] == 'C' || Line[0] == 'c' || Line[0] == '*'))
      return true;
    size_t I = Line.find_first_not_of(" \t");
    return I == std::string::npos || Line[I] == '!';
  }

  /// A new statement after the one ending at Offset; indented like the next line when it
  /// opens a loop body (LikeNext), else like the statement.
  void after(unsigned Offset, const std::string &Stmt, bool LikeNext = false) {
    unsigned Line = L.lineOf(Offset > 0 ? Offset - 1 : 0);
    if (endsLine(Offset)) {
      std::string Like = L.text(Line);
      if (LikeNext && Line + 1 < L.count() && !isCommentLine(L.text(Line + 1)) &&
          statementColumn(L.text(Line + 1)) > statementColumn(Like))
        Like = L.text(Line + 1);
      // Below the directives that close this construct (!$omp end parallel do).
      while (!LikeNext && Line + 1 < L.count() &&
             isDirectiveLine(L.text(Line + 1), /*EndOnly=*/true))
        ++Line;
      Edits[Line].After.push_back(newLine(Stmt, Like));
      return;
    }
    inlineInsert(Line, Offset, "; " + Stmt, EditOrder::Close);
  }

  void inlineInsert(unsigned Line, unsigned Offset, std::string S, EditOrder O) {
    LineEdits &E = Edits[Line];
    E.Growth += S.size();
    E.Inline.insert(Offset - L.start(Line), std::move(S), O);
    E.HasInline = true;
  }

  // ---- the edits ---------------------------------------------------------------------------

  /// The skeleton's removal of whole lines: each blank, but the first line of a labelled
  /// statement becomes `label CONTINUE` (columns 1-5 and 7 in fixed form).
  bool remove(const SkeletonRemoval &R, std::string &Error) {
    if (R.End > Text.size() || R.Begin > R.End) {
      Error = "a removal outside the text (the model is of another text)";
      return false;
    }
    unsigned First = L.lineOf(R.Begin), Last = L.lineOf(R.End > R.Begin ? R.End - 1 : R.Begin);
    for (unsigned Line = First; Line <= Last; ++Line) {
      LineEdits &E = Edits[Line];
      if (E.Removed) {
        Error = "line " + std::to_string(Line + 1) + ": removed twice";
        return false;
      }
      E.Removed = true;
      std::string Label = labelOf(Line);
      if (Label.empty())
        continue;
      if (Fixed)
        E.Replacement =
            std::string(Label.size() < 5 ? 5 - Label.size() : 0, ' ') + Label + " CONTINUE";
      else
        E.Replacement = std::string(statementColumn(L.text(Line)), ' ') + Label + " continue";
    }
    return true;
  }

  /// The statement label a line starts with, or empty: fixed form, digits in columns 1-5 of a
  /// line that is no comment and no continuation; free form, digits then a blank at the start
  /// of a line that does not continue the one before (which would end with '&').
  std::string labelOf(unsigned Line) const {
    const std::string T = L.text(Line);
    std::string Digits;
    if (Fixed) {
      if (T.empty() || std::strchr("cC*!dD\t", T[0]) || T[0] == '\t')
        return "";
      if (T.size() > 5 && T[5] != ' ' && T[5] != '0')
        return "";
      for (size_t I = 0; I < std::min<size_t>(5, T.size()); ++I)
        if (std::isdigit(static_cast<unsigned char>(T[I])))
          Digits += T[I];
        else if (T[I] != ' ')
          return "";
      return Digits;
    }
    size_t I = T.find_first_not_of(" \t");
    if (I == std::string::npos || !std::isdigit(static_cast<unsigned char>(T[I])))
      return "";
    while (I < T.size() && std::isdigit(static_cast<unsigned char>(T[I])))
      Digits += T[I++];
    if (I < T.size() && T[I] != ' ' && T[I] != '\t')
      return "";
    for (unsigned P = Line; P-- > 0;) {
      std::string Prev = L.text(P);
      if (isCommentLine(Prev))
        continue;
      size_t E = Prev.find_last_not_of(" \t\r");
      // A trailing comment: its '!' outside quotes ends the code (a rough scan suffices here:
      // a continued line ends with '&' before any comment).
      size_t Bang = Prev.find('!');
      if (Bang != std::string::npos) {
        size_t Amp = Prev.find_last_not_of(" \t", Bang == 0 ? 0 : Bang - 1);
        if (Amp != std::string::npos && Prev[Amp] == '&')
          return "";
      }
      return E != std::string::npos && Prev[E] == '&' ? "" : Digits;
    }
    return Digits;
  }

  /// `IF (MPIETE_ITER_CAPPED(UNIT, IDX) .NE. 0)` (the opaque hook for an opaque loop): the
  /// cap's test at the top of a loop's iteration, before the statement that leaves it.
  std::string capTest(const Block &B, const ComputeEdits &E) const {
    return kw(E.OpaqueLoop ? "if (mpiete_iter_opaque_capped(" : "if (mpiete_iter_capped(") +
           ids(B.Index) + kw(") .ne. 0)");
  }

  /// The statement Stmt on a new line with the label Label, indented like Like's statement.
  std::string labelled(const std::string &Label, const std::string &Stmt,
                       const std::string &Like) const {
    std::string S = newLine(Stmt, Like);
    if (Fixed) // columns 1-5: the label, right-aligned; newLine's statement starts at 7 or later
      return std::string(5 - std::min<size_t>(5, Label.size()), ' ') + Label + S.substr(5);
    const size_t I = S.find_first_not_of(" \t");
    return S.substr(0, I) + Label + " " + S.substr(I);
  }

  /// A statement label no line of the file has, from 99999 down (labels are local to a
  /// procedure: one the file does not use is free in every procedure).
  std::string freshLabel() {
    if (UsedLabels.empty())
      for (unsigned Line = 0; Line < L.count(); ++Line)
        if (std::string Lab = labelOf(Line); !Lab.empty())
          UsedLabels.insert(std::stoul(Lab));
    unsigned long N = 99999;
    while (UsedLabels.count(N))
      --N;
    UsedLabels.insert(N);
    return std::to_string(N);
  }

  /// A loop made by a backward GOTO: its head's label moves onto the iteration hook before
  /// it, which leaves the loop by jumping to the statement after it (its label, or a new
  /// `X CONTINUE` line before it). No hooks where the head's label shares its line with
  /// another statement, where the skeleton removed the line, or under a directive.
  void gotoLoop(const Block &B, const ComputeEdits &E) {
    const unsigned H = L.lineOf(E.LoopBegin), N = L.lineOf(E.BodyBegin);
    const std::string Label = labelOf(H);
    if (Label.empty() || H >= N || !startsLine(E.LoopBegin) || !startsLine(E.BodyBegin) ||
        directiveBefore(E.LoopBegin) || Edits[H].Removed || Edits[N].Removed)
      return;
    std::string Exit = labelOf(N);
    if (Exit.empty()) {
      Exit = freshLabel();
      Edits[N].Before.push_back(labelled(Exit, kw("continue"), L.text(N)));
    }
    Edits[H].Before.push_back(labelled(Label, capTest(B, E) + kw(" goto ") + Exit, L.text(H)));
    Edits[H].BlankLabel = true;
  }

  /// A loop the timing probe may sample: after its DO statement,
  ///     IF (MPIETE_SAMPLE_ON .NE. 0) THEN
  ///       IF (MPIETE_SAMPLE_SKIP(UNIT, IDX) .EQ. 1) CYCLE
  ///     END IF
  /// skips an iteration (1 is MPIETE_SAMPLE_SKIP_IT; Fortran has no per-entry local, so an
  /// entry that runs whole still calls, and the call returns at once),
  /// `CALL MPIETE_SAMPLE_EXIT(UNIT, IDX)` after it adds the skipped ones.
  /// The flag (COMMON /MPIETE_SMPL/, set by the runtime when probe-compute samples) keeps the
  /// call off the path the iterations take otherwise: with the call on every iteration's path,
  /// gfortran kept a reduction of the inner loop in memory instead of a register (f90-moddata's
  /// sweep twice as slow, docs/probes.md). The timing variant only, when asked for (Samples):
  /// the trace variants run the loop whole (the skeleton removes pure computation, and hooks in
  /// removed text would clash). None under a directive (an OpenMP or OpenACC loop).
  void sampledLoop(const Block &B, const ComputeEdits &E) {
    if (!Samples || directiveBefore(E.LoopBegin))
      return;
    after(E.BodyBegin, kw("if (mpiete_sample_on .ne. 0) then"), /*LikeNext=*/true);
    after(E.BodyBegin, kw("  if (mpiete_sample_skip(") + ids(B.Index) + kw(") .eq. 1) cycle"),
          /*LikeNext=*/true);
    after(E.BodyBegin, kw("end if"), /*LikeNext=*/true);
    after(E.LoopEnd, hook("mpiete_sample_exit", B.Index));
  }

  /// A task of a task farm (docs/taskfarm.md): after `!$mpiete task(i, j)`,
  ///     IF (MPIETE_TASK_BEGIN(2, (/INT(i, 8), INT(j, 8)/)) .NE. 0) THEN
  /// runs the body when the probe's subset holds the task, and before `!$mpiete end task`
  ///     CALL MPIETE_TASK_END()
  ///     END IF
  /// stops its clock: the C marker's one-trip loop (mpiete/task.h). The directives stay.
  void task(const TaskRegion &T) {
    const std::string Like = L.text(L.lineOf(T.First));
    auto Statement = [&](const std::string &Separator) {
      std::string S = kw("if (mpiete_task_begin(") + std::to_string(T.Params.size()) + ", (/";
      for (size_t K = 0; K < T.Params.size(); ++K)
        S += (K ? Separator : "") + kw("int(") + T.Params[K] + ", 8)";
      return newLine(S + "/)) " + kw(".ne. 0) then"), Like);
    };
    std::string Line;
    if (T.FromMessage) { // `task from message`: the declared elements' values, read now
      Line = newLine(kw("if (mpiete_task_begin_message() .ne. 0) then"), Like);
    } else {
      Line = Statement(", ");
      if (!Fixed && Line.size() > 132) // free form: a parameter per continuation line
        Line = Statement(", &\n" + std::string(statementColumn(Like) + 4, ' ') + "& ");
    }
    Edits[L.lineOf(T.Begin)].After.push_back(Line);
    const unsigned End = L.lineOf(T.End);
    Edits[End].Before.push_back(newLine(kw("call mpiete_task_end()"), Like));
    Edits[End].Before.push_back(newLine(kw("end if"), Like));
  }

  /// `!$mpiete task message(w(2), w(3))` (the C MPIETE_TASK_MESSAGE), before the statement
  /// after it:
  ///     CALL MPIETE_TASK_MESSAGE(2)
  ///     CALL MPIETE_TASK_MESSAGE_AT4(1, w(2), KIND(w(2)))
  ///     CALL MPIETE_TASK_MESSAGE_AT4(2, w(3), KIND(w(3)))
  /// The runtime keeps each element's address (an element or variable is passed by reference,
  /// never copied) and reads it when a `task from message` begins. A hook per kind (the
  /// analysis's): gfortran refuses one external called with INTEGER(4) here and INTEGER(8)
  /// there. KIND, its size in bytes (gfortran's and Flang's integer kinds), lets the runtime
  /// check that the compiler agrees.
  void message(const TaskMessage &M) {
    const unsigned Line = L.lineOf(M.First);
    const std::string Like = L.text(Line);
    Edits[Line].Before.push_back(
        newLine(kw("call mpiete_task_message(") + std::to_string(M.Elements.size()) + ")", Like));
    for (size_t K = 0; K < M.Elements.size(); ++K)
      Edits[Line].Before.push_back(newLine(kw("call mpiete_task_message_at") +
                                               std::to_string(M.Kinds[K]) + "(" +
                                               std::to_string(K + 1) + ", " + M.Elements[K] + ", " +
                                               kw("kind(") + M.Elements[K] + "))",
                                           Like));
  }

  void compute(const Block &B, const ComputeEdits &E) {
    if (B.Kind == BlockKind::Loop && E.GotoLoop) {
      gotoLoop(B, E);
      return;
    }
    if (B.Kind == BlockKind::Loop && E.SampledLoop) {
      sampledLoop(B, E);
      return;
    }
    if (B.Kind == BlockKind::Loop) {
      // Segments: a DO loop with MPI calls; no exit hook where the frontend found no place.
      // Its iteration hook leaves it when the timing probe's cap says so, except in a loop an
      // OpenMP or OpenACC directive governs (EXIT may not leave it). An opaque loop (its calls
      // go into subroutines the unit cannot see) has the opaque hooks, which only the cap uses:
      // none where it cannot leave.
      const bool CanLeave = E.Leaves && !directiveBefore(E.LoopBegin);
      if (E.OpaqueLoop && !CanLeave)
        return;
      if (CanLeave)
        after(E.BodyBegin, capTest(B, E) + kw(" exit"), /*LikeNext=*/true);
      else
        after(E.BodyBegin, hook("mpiete_iter", B.Index), /*LikeNext=*/true);
      if (E.LoopEnd != 0)
        after(E.LoopEnd,
              hook(E.OpaqueLoop ? "mpiete_loop_exit_opaque" : "mpiete_loop_exit", B.Index));
      return;
    }
    if (E.WholeLoop) {
      std::string N = counter(B.Index);
      before(E.LoopBegin, N + " = 0");
      if (V == Variant::Timing)
        before(E.LoopBegin, hook("mpiete_tm_begin", B.Index));
      after(E.BodyBegin, N + " = " + N + " + 1", /*LikeNext=*/true);
      after(E.LoopEnd, V == Variant::Trace ? hook("mpiete_tr_loop", B.Index, true)
                                           : hook("mpiete_tm_loop_end", B.Index, true));
      return;
    }
    if (V == Variant::Trace) {
      before(E.Begin, hook("mpiete_tr_block", B.Index));
      return;
    }
    before(E.Begin, hook("mpiete_tm_begin", B.Index));
    after(E.End, hook("mpiete_tm_end", B.Index));
  }

  void site(const CallSite &S) {
    unsigned Line = L.lineOf(S.Edits.CalleeBegin);
    unsigned ArgsLine = L.lineOf(S.Edits.ArgsBegin);
    std::string Written = Text.substr(S.Edits.CalleeBegin, S.Edits.CalleeEnd - S.Edits.CalleeBegin);
    bool Upper = std::none_of(Written.begin(), Written.end(),
                              [](char C) { return std::islower(static_cast<unsigned char>(C)); });
    std::string Name = S.RuntimeName;
    if (Upper)
      for (char &C : Name)
        C = static_cast<char>(std::toupper(static_cast<unsigned char>(C)));
    LineEdits &E = Edits[Line];
    E.Inline.replace(S.Edits.CalleeBegin - L.start(Line), Written.size(), Name);
    E.Growth += Name.size() - Written.size();
    E.HasInline = true;
    std::string Args = ids(S.Edits.NoError ? noErrorIndex(S.FirstBlock) : S.FirstBlock) +
                       (S.Edits.HasArgs ? ", " : "");
    if (S.Edits.KeywordEnd > S.Edits.KeywordBegin) {
      const unsigned KwLine = L.lineOf(S.Edits.KeywordBegin);
      LineEdits &K = Edits[KwLine];
      K.Inline.replace(S.Edits.KeywordBegin - L.start(KwLine),
                       S.Edits.KeywordEnd - S.Edits.KeywordBegin, "");
      K.HasInline = true;
    }
    LineEdits &A = Edits[ArgsLine];
    unsigned Rel = S.Edits.ArgsBegin - L.start(ArgsLine);
    A.Inline.insert(Rel, Args, EditOrder::Open);
    A.Growth += Args.size();
    A.HasInline = true;
    if (A.ArgsOriginal < 0) {
      A.ArgsOriginal = static_cast<int>(Rel);
      // Where the insertion ends in the edited line: every edit on this line before it is
      // the callee rename (when on the same line).
      int Shift =
          ArgsLine == Line ? static_cast<int>(Name.size()) - static_cast<int>(Written.size()) : 0;
      A.ArgsInsertEnd = static_cast<int>(Rel) + Shift + static_cast<int>(Args.size());
    } else {
      A.ArgsOriginal = -2; // two sites on one line: no structured break
    }
  }

  // ---- output ------------------------------------------------------------------------------

  /// A fixed-form statement too long for the statement field, broken into continuation lines
  /// at exactly the last column (legal anywhere in fixed form, even inside a literal).
  std::vector<std::string> breakFixed(const std::string &Body) const {
    std::vector<std::string> Out;
    Out.push_back(Body.substr(0, Width));
    for (size_t Pos = Width; Pos < Body.size(); Pos += Width - 6)
      Out.push_back("     &" + Body.substr(Pos, Width - 6));
    return Out;
  }

  /// The code of a fixed-form line up to its comment (outside quotes), without trailing blanks.
  static size_t codeEnd(const std::string &Line, size_t Limit) {
    char Quote = 0;
    size_t End = std::min(Line.size(), Limit);
    for (size_t I = 6; I < End; ++I) {
      char C = Line[I];
      if (Quote) {
        if (C == Quote)
          Quote = 0;
      } else if (C == '\'' || C == '"') {
        Quote = C;
      } else if (C == '!') {
        End = I;
        break;
      }
    }
    while (End > 6 && (Line[End - 1] == ' ' || Line[End - 1] == '\t'))
      --End;
    return End;
  }

  std::vector<std::string> editedLine(unsigned Line, LineEdits &E, std::string &Error) {
    if (E.Removed) {
      if (E.HasInline) {
        Error = "line " + std::to_string(Line + 1) + ": a removed statement is instrumented";
        return {};
      }
      return {E.Replacement};
    }
    std::string Orig = L.text(Line);
    if (E.BlankLabel) { // the label went onto the hook line before: blanks keep every column
      size_t I = Fixed ? 0 : Orig.find_first_not_of(" \t");
      for (; I < Orig.size() && I < (Fixed ? 5u : Orig.size()) &&
             (std::isdigit(static_cast<unsigned char>(Orig[I])) || (Fixed && Orig[I] == ' '));
           ++I)
        Orig[I] = ' ';
    }
    if (!E.HasInline)
      return {Orig};
    std::string Err;
    auto Edited = E.Inline.apply(Orig, Err);
    if (!Edited) {
      Error = "line " + std::to_string(Line + 1) + ": " + Err;
      return {};
    }
    if (!Fixed)
      return {freeBreak(Orig, *Edited, E)};
    // The statement field ends at Width in the original; the edits moved that end right.
    size_t Field = Width + E.Growth;
    size_t End = codeEnd(*Edited, Field);
    if (End <= Width)
      return {*Edited};
    std::string Comment;
    if (End < std::min(Edited->size(), Field)) {
      size_t C = Edited->find('!', End);
      if (C != std::string::npos && C < Field)
        Comment = Edited->substr(C, Field - C);
    }
    std::vector<std::string> Out;
    if (E.ArgsOriginal >= 0 && E.ArgsInsertEnd >= 0 &&
        static_cast<size_t>(E.ArgsInsertEnd) <= Width) {
      // Break just after the inserted site arguments: the rest of the original line moves to
      // a continuation line.
      std::string Head = Edited->substr(0, E.ArgsInsertEnd);
      while (!Head.empty() && Head.back() == ' ')
        Head.pop_back();
      size_t OrigEnd = codeEnd(Orig, Width);
      std::string Rest = OrigEnd > static_cast<size_t>(E.ArgsOriginal)
                             ? Orig.substr(E.ArgsOriginal, OrigEnd - E.ArgsOriginal)
                             : "";
      Out.push_back(Head);
      // The rest keeps its columns, so it fits as it did.
      std::string Cont = "     &" + std::string(std::max(E.ArgsOriginal, 6) - 6, ' ') + Rest;
      if (Cont.size() <= Width) {
        Out.push_back(Cont);
      } else {
        for (std::string &S : breakFixed(Cont))
          Out.push_back(S);
      }
    } else {
      Out = breakFixed(Edited->substr(0, End));
    }
    if (!Comment.empty())
      Out.push_back(Comment);
    return Out;
  }

  /// Free form allows 132 characters: a longer edited line is broken after the inserted site
  /// arguments with '&' continuation.
  std::string freeBreak(const std::string &Orig, const std::string &Edited,
                        const LineEdits &E) const {
    if (Edited.size() <= 132 || E.ArgsOriginal < 0 || E.ArgsInsertEnd < 0)
      return Edited;
    std::string Head = Edited.substr(0, E.ArgsInsertEnd);
    while (!Head.empty() && Head.back() == ' ')
      Head.pop_back();
    unsigned Col = statementColumn(Orig);
    return Head + " &\n" + std::string(Col + 4, ' ') + "&" + Edited.substr(E.ArgsInsertEnd);
  }

  std::optional<std::string> assemble(std::string &Error) {
    std::string Out;
    Out.reserve(Text.size() + Edits.size() * 48);
    for (unsigned Line = 0; Line < L.count(); ++Line) {
      auto It = Edits.find(Line);
      if (It == Edits.end()) {
        Out += L.text(Line);
        if (L.endsWithNewline(Line))
          Out += '\n';
        continue;
      }
      LineEdits &E = It->second;
      for (const std::string &S : E.Before)
        emit(Out, S);
      std::vector<std::string> Body = editedLine(Line, E, Error);
      if (Body.empty() || !Error.empty())
        return std::nullopt;
      for (size_t I = 0; I < Body.size(); ++I) {
        Out += Body[I];
        if (I + 1 < Body.size() || L.endsWithNewline(Line) || !E.After.empty())
          Out += '\n';
      }
      for (const std::string &S : E.After)
        emit(Out, S);
    }
    return Out;
  }

  void emit(std::string &Out, const std::string &Stmt) const {
    if (Fixed && Stmt.size() > Width) {
      for (const std::string &S : breakFixed(Stmt))
        Out += S + "\n";
      return;
    }
    Out += Stmt + "\n";
  }

  const UnitModel &Model;
  const std::string &Text;
  Lines L;
  Variant V;
  bool Fixed;
  unsigned Width;
  bool Skeleton;
  bool Samples; ///< the sampled loops' hooks: the timing variant, when asked for
  std::map<unsigned, LineEdits> Edits;
  std::set<unsigned long> UsedLabels; ///< every label of the file, and those freshLabel gave
};

} // namespace

std::optional<std::string> instrumentFortran(const UnitModel &Model, const std::string &Text,
                                             Variant V, std::string &Error, bool SampleHooks) {
  return FortranInstrumenter(Model, Text, V, /*Skeleton=*/false, SampleHooks).run(Error);
}

std::optional<std::string> skeletonFortran(const UnitModel &Model, const std::string &Text,
                                           std::string &Error) {
  return FortranInstrumenter(Model, Text, Variant::Trace, /*Skeleton=*/true).run(Error);
}

} // namespace mpiete
