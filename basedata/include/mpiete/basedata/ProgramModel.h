// The language-neutral program model: blocks, loops and MPI call sites of one translation unit.
#ifndef MPIETE_BASEDATA_PROGRAMMODEL_H
#define MPIETE_BASEDATA_PROGRAMMODEL_H

#include "mpiete/BlockId.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpiete {

/// The unit of prediction (docs/method.md).
enum class BlockKind : uint8_t {
  Compute,    ///< straight-line statements, or a whole loop whose body is one such run
  Comm,       ///< start of one point-to-point transfer
  Wait,       ///< completion of earlier transfers
  Collective, ///< a collective call site; its point-to-point parts carry this id
  CommMgmt,   ///< communicator creation / release (collective)
  Init,       ///< MPI_Init / MPI_Init_thread
  Finalize,   ///< MPI_Finalize
  Loop,       ///< a loop that contains MPI calls: the id of its iteration and exit hooks
};

/// How an MPI call site is rewritten and how many blocks it owns (routines.def).
enum class MpiRole : uint8_t {
  Init,
  Finalize,
  Send,
  Recv,
  SendRecv,
  Start,
  Wait,
  Probe,
  Collective,
  Comm,
  ICollective ///< a non-blocking collective: one block, as a collective's
};

std::string_view toString(BlockKind K);
std::optional<BlockKind> parseBlockKind(std::string_view S);
std::string_view toString(MpiRole R);

// Block ids (makeBlockId, formatBlockId, parseBlockId) are the ground floor's mpiete/BlockId.h.

struct LoopInfo {
  std::string Kind; ///< for, while, do (C); do, do-while (Fortran)
  std::string Procedure;
  unsigned Line = 0;
  unsigned Col = 0;
  int Parent = -1; ///< the enclosing loop, or -1
};

/// Text positions (byte offsets into the unit's main file) the transforms edit for one compute
/// block. The frontend finds them; the transforms never look at syntax.
struct ComputeEdits {
  unsigned Begin = 0;  ///< before the block's first statement
  unsigned End = 0;    ///< after its last statement, including the ';'
  bool Braces = false; ///< the block fills a single-statement slot (if/else/loop body): brace it
  /// Seed 004 section 3.1.1: a loop whose body is exactly this block is timed as a whole and
  /// divided by its trip count. Then the loop's and its body's positions are given too.
  bool WholeLoop = false;
  unsigned LoopBegin = 0, LoopEnd = 0;
  unsigned BodyBegin = 0, BodyEnd = 0;
  bool BodyIsCompound = false; ///< BodyBegin is just after the body's '{'
  /// Segments: a loop with no MPI call the unit can see, but calls into procedures it cannot
  /// (another unit's, through a pointer; Fortran: a CALL of an external subroutine or one of a
  /// module without facts): its hooks are the opaque ones, which only the timing probe's cap
  /// uses, and only once its iterations make MPI calls at run time.
  bool OpaqueLoop = false;
  /// Segments: the loop's iteration hook can leave it, so the timing probe's cap can stop it
  /// (C: the `mpiete_iter` macro's `break`; Fortran: `IF (MPIETE_ITER_CAPPED(...) .NE. 0) EXIT`,
  /// the function typed by its procedure's CounterDecl). False where leaving would run code
  /// the original does not run there: a loop left by return, goto, STOP or exit(), or (Fortran)
  /// whose EXIT would leave another loop too (a shared terminal).
  bool Leaves = false;
  /// Segments, Fortran: a loop made by a backward GOTO (`10 IF (...) THEN ... GOTO 10 END IF`,
  /// `10 CONTINUE ... GOTO 10`). LoopBegin is its labelled head statement, whose label moves
  /// onto the iteration hook `L IF (MPIETE_ITER_CAPPED(...) .NE. 0) GOTO X`; BodyBegin the
  /// statement after it, where the original goes on after the loop (X, its label, or a new
  /// `X CONTINUE` before it). No exit hook.
  bool GotoLoop = false;
  /// Segments: a loop of pure computation that probe-compute --sample may sample (issue 15,
  /// docs/probes.md "Sampled loops"): a counted loop (Fortran DO with a loop control; C `for`
  /// whose controlling variables the body does not change) with no MPI call and no call into
  /// code the unit cannot see, no exit other than its end (no break/EXIT, return, goto out,
  /// STOP), whose body holds another loop (so its hook costs per outer iteration, never per
  /// element), and outermost of such loops in its procedure. Its hooks: at the top of the body
  /// `if (mpiete_sample_skip(id)) continue;` (C, the `mpiete_sample` macro; Fortran `IF
  /// (MPIETE_SAMPLE_SKIP(u, i) .NE. 0) CYCLE`) and after the loop `mpiete_sample_exit(id)`.
  /// BodyBegin and LoopEnd place them, as for a loop with MPI calls.
  bool SampledLoop = false;
};

/// Text positions of an MPI call: `MPI_Send (` ... becomes `mpiete_send (SITE, ` ...
struct CallEdits {
  unsigned CalleeBegin = 0, CalleeEnd = 0; ///< the routine name as written
  unsigned ArgsBegin = 0;                  ///< just after '('
  bool HasArgs = true;                     ///< false for `MPI_Finalize()`
  /// Fortran: the call passes no ierror (optional with `use mpi_f08`); the site's index is
  /// then written as -(index + 1), and the runtime writes no error code.
  bool NoError = false;
  /// Fortran: a last argument written `ierror = value`, [KeywordBegin, KeywordEnd) its
  /// `ierror =`: removed, as the runtime's entry points have no explicit interface.
  unsigned KeywordBegin = 0, KeywordEnd = 0;
};

struct CallSite {
  std::string Routine;     ///< MPI_Send
  std::string RuntimeName; ///< mpiete_send
  MpiRole Role = MpiRole::Start;
  uint32_t FirstBlock = 0; ///< index of the first of the blocks it owns
  CallEdits Edits;
};

/// Fortran: where the trip counters of one procedure's whole loops are declared (the end of its
/// specification part), so `implicit none` procedures compile.
struct CounterDecl {
  unsigned Offset = 0; ///< just past the statement the declaration follows, or the start of
                       ///< the statement it precedes
  bool After = true;   ///< a new line after the statement ending at Offset; else before
  std::vector<uint32_t> Blocks; ///< the whole-loop blocks whose counters it declares
  bool CapHook = false;         ///< also the type of the cap hook (some loop of it Leaves)
  bool OpaqueCapHook = false;   ///< also the type of the opaque loops' cap hook
  bool SampleHook = false;      ///< also the type of the sampled loops' hook
  bool TaskHook = false;        ///< also the type of the task marker's hook (TaskRegion)
  bool TaskMessageHook = false; ///< also the type of the hook of `task from message`
};

/// Fortran: one task of a task farm, marked by the comment directives `!$mpiete task(i, j)` and
/// `!$mpiete end task` (docs/taskfarm.md): the probes run the statements between them under
/// `IF (MPIETE_TASK_BEGIN(2, (/INT(i, 8), INT(j, 8)/)) .NE. 0) THEN` .. `CALL MPIETE_TASK_END()`
/// / `END IF`, the C marker's one-trip loop. The directive lines stay as they are.
struct TaskRegion {
  unsigned Begin = 0;              ///< the end of the `task` directive's line (offset)
  unsigned End = 0;                ///< the start of the `end task` directive's line
  unsigned First = 0;              ///< the start of the body's first statement
  std::vector<std::string> Params; ///< the parameters' expressions as written
  /// `!$mpiete task from message`: the parameters are the work message's elements the last
  /// `task message(...)` named, read when the task begins (Params empty).
  bool FromMessage = false;
};

/// Fortran: `!$mpiete task message(w(2), w(3))`, the C MPIETE_TASK_MESSAGE: names where a
/// later `task from message` reads its parameters (integer variables or array elements, by
/// address). The probes call the runtime before the statement after the directive:
/// `CALL MPIETE_TASK_MESSAGE(2)`, then `CALL MPIETE_TASK_MESSAGE_AT4(k, w(2), KIND(w(2)))`
/// per element (the hook of its kind: gfortran wants one type per external's argument).
struct TaskMessage {
  unsigned First = 0; ///< the start of the statement after the directive: the calls go before it
  std::vector<std::string> Elements;
  std::vector<int> Kinds; ///< each element's INTEGER kind (bytes) as the analysis saw it
};

/// A statement the skeleton trace probe leaves out (docs/skeleton.md): the text [Begin, End) of
/// the main file is replaced by ";" (a whole statement), nothing (a declaration's "= init") or
/// Replacement (a value not needed),
/// keeping its newlines so every later line keeps its number.
struct SkeletonRemoval {
  unsigned Begin = 0, End = 0;
  bool Initializer = false;
  /// C: a value the skeleton does not need (an argument, a return's value) is replaced by
  /// this text ("0") instead of removed.
  std::string Replacement;
  unsigned Line = 0, Col = 0;
  std::string Procedure;
  std::string Text; ///< the statement's first line, for the user
};

struct Block {
  uint32_t Index = 0;
  BlockKind Kind = BlockKind::Compute;
  std::string Phase; ///< for MPI blocks: start, wait, send-start, recv-start, waitall
  std::string Procedure;
  std::string File;
  unsigned BeginLine = 0, BeginCol = 0, EndLine = 0;
  std::vector<unsigned> Loops; ///< enclosing loops (indices into UnitModel::Loops), outer first
  bool WholeLoop = false;      ///< compute: timed as its whole loop
  std::vector<std::string> OpaqueCalls; ///< compute: callees whose bodies this unit cannot see
  std::string Routine;                  ///< MPI blocks: the routine
  std::string CallText;                 ///< MPI blocks: the call as written
  int Compute = -1;                     ///< index into UnitModel::Computes (compute blocks)
  int Site = -1;                        ///< index into UnitModel::Sites (MPI blocks)
};

/// Everything the frontend learns about one translation unit.
struct UnitModel {
  std::string Source;               ///< the source path as given to the compiler
  std::string Language;             ///< c or fortran
  std::vector<std::string> Defines; ///< -D/-U/-include options that make this unit distinct
  std::vector<std::string> Flags;   ///< the compile flags it was analysed with (provenance)
  uint32_t UnitId = 0;
  uint64_t ContentHash = 0; ///< the main file and the user headers it includes
  /// Procedures that hold blocks: those that communicate, and (segments) those with sampled
  /// loops.
  std::vector<std::string> Procedures;
  std::vector<LoopInfo> Loops;
  std::vector<ComputeEdits> Computes;
  std::vector<CallSite> Sites;
  std::vector<Block> Blocks;
  std::vector<std::string> PassedThrough; ///< unhandled MPI calls passed through on request
  // Fortran only: the source form the edits respect, and the counter declarations.
  bool FixedForm = false;
  unsigned FixedColumns = 72; ///< the statement field ends here (-ffixed-line-length-N)
  std::vector<CounterDecl> CounterDecls;
  std::vector<TaskRegion> Tasks;
  std::vector<TaskMessage> TaskMessages;
  // C only, when the skeleton was asked for (not in the block map): the removals of the
  // skeleton trace probe and the number of statements the slice looked at.
  bool Sliced = false;
  unsigned SliceStatements = 0, SliceRemovedStatements = 0;
  bool SliceKeepsMessageData = false; ///< received data steers the program (docs/skeleton.md)
  std::vector<SkeletonRemoval> SkeletonRemovals;

  uint64_t blockId(uint32_t Index) const { return makeBlockId(UnitId, Index); }
};

/// The unit id: a hash of the path as given and the options that select its code, so the same
/// file built twice with different -D is two units, and rebuilding gives the same ids.
uint32_t computeUnitId(std::string_view Source, const std::vector<std::string> &Defines);

} // namespace mpiete

#endif
