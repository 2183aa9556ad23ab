// The block partition policy both frontends follow (docs/transforms.md, docs/fortran.md): which
// statements a compute block may hold, where its run of statements ends, which statements at
// its edges stay outside, and which loops are timed whole. Language-neutral: a frontend
// describes each statement in these terms and asks.
#ifndef MPIETE_FRONTEND_BLOCKPARTITION_H
#define MPIETE_FRONTEND_BLOCKPARTITION_H

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace mpiete {

/// How a frontend divides a communicating procedure (docs/transforms.md).
enum class Partition : uint8_t {
  /// The default: no compute blocks at all. The computation between two MPI calls is a segment
  /// the runtime times at its MPI entry points; only loops that contain MPI calls get hooks
  /// (mpiete_iter at the top of each iteration, mpiete_loop_exit after the loop).
  Segments,
  /// Compute blocks between MPI calls; a loop or branch of pure computation is part of the block
  /// around it (C only: --mpiete-coarse-blocks).
  Coarse,
  /// Seed 004's partition: every loop and branch ends a compute block (--mpiete-seed-blocks).
  Seed,
};

/// One statement (or construct, or loop header) as the partition sees it.
struct StmtTraits {
  /// Calls an MPI routine mpiete rewrites, or a procedure that communicates.
  bool Communicates = false;
  /// Control can leave it other than at its end: return, goto, break or continue out of it,
  /// exit(), STOP, EXIT, CYCLE, ERR=, alternate returns. A hook after it could be skipped.
  bool Jumps = false;
  /// Control can arrive other than from the statement before: a jump target, a case label,
  /// ENTRY, the terminal statement of a labelled DO. A hook before it could be skipped.
  bool Entered = false;
  /// A directive for the statement after it: nothing may come between them.
  bool Directive = false;
  /// A loop or branch, or a statement holding one (not hidden in a macro).
  bool Structured = false;
  /// Executes nothing: an empty statement, CONTINUE, a declaration without run-time code.
  bool NoCode = false;
  /// A declaration, which C wants ahead of statements in its scope.
  bool Declaration = false;
  /// The file its lines are presented in (a #line directive may change it).
  std::string File = {};

  /// Adds what a part of this statement holds (a compound's statements, a loop's header
  /// parts); NoCode, Declaration and File stay this statement's own.
  StmtTraits &operator+=(const StmtTraits &O);
};

/// The half-open range of a run's statements that form its block; empty: no block.
struct BlockRange {
  size_t First = 0, Last = 0;
  bool empty() const { return First == Last; }
};

class PartitionPolicy {
public:
  /// Seed 004's partition: every loop and branch ends a compute block. Otherwise a loop or
  /// branch made only of computation is computation, timed inside the block around it.
  explicit PartitionPolicy(bool SeedBlocks) : SeedBlocks(SeedBlocks) {}

  bool seedBlocks() const { return SeedBlocks; }

  /// Whether a compute block may hold S: nothing in it communicates, nothing jumps out or in,
  /// and in seed mode no loop or branch.
  bool isComputation(const StmtTraits &S) const;

  /// Whether S, computation, continues a run whose last statement is Last: a block's lines are
  /// in one file.
  bool continuesRun(const StmtTraits &Last, const StmtTraits &S) const;

  /// The block a run of computation makes: from its first statement that executes code to its
  /// last one. Statements that execute nothing stay outside at both edges (a block starts
  /// where work starts and ends where it ends), except that a declaration never follows the
  /// block's end hook: a hook is a statement and C wants its declarations first.
  BlockRange blockOf(std::span<const StmtTraits> Run) const;

  /// Seed 004 section 3.1.1: a loop is one compute block timed whole when its header and
  /// every statement of its body are computation and it executes some code (its header's, or
  /// its body's).
  bool timedWhole(const StmtTraits &Header, std::span<const StmtTraits> Body) const;

private:
  bool SeedBlocks;
};

} // namespace mpiete

#endif
