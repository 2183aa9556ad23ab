// The C frontend: reads one translation unit with Clang and builds its program model.
#ifndef MPIETE_FRONTEND_CFRONTEND_H
#define MPIETE_FRONTEND_CFRONTEND_H

#include "mpiete/basedata/LinkSummary.h"
#include "mpiete/basedata/ProgramModel.h"
#include "mpiete/frontend/BlockPartition.h"
#include "mpiete/frontend/CompilerOptions.h"

#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

struct CFrontendOptions {
  /// Path recorded for the unit (ids, block map, #line); the source as given when empty.
  std::string UnitPath;
  /// MPI routines to leave uninstrumented (with a warning) instead of rejecting them.
  std::vector<std::string> PassThrough;
  bool PassThroughAll = false;
  /// Clang's resource directory (builtin headers such as stddef.h).
  std::string ResourceDir;
  /// The partition (BlockPartition.h): by default segments (no compute blocks; loops that
  /// contain MPI calls get iteration and exit hooks); Coarse: compute blocks, loops and branches
  /// of pure computation part of the block around them; Seed: seed 004's (every loop and branch
  /// ends a compute block, a loop whose body is one block is timed whole).
  Partition Mode = Partition::Segments;
  /// Also slice the unit for the skeleton trace probe (UnitModel::SkeletonRemovals; segment
  /// mode only).
  bool Skeleton = false;
  /// The link step's knowledge of the other units' procedures for the slice (docs/skeleton.md,
  /// "Whole program"); null: none, every call of another unit's procedure may communicate.
  const LinkSummary *Program = nullptr;
  /// When set, receives the unit's link summary (also for a unit without MPI calls).
  LinkSummary *Summary = nullptr;
};

/// Parses Source with the user's compiler flags (only those that affect preprocessing and
/// parsing are used) and fills Model; MainText receives the main file's bytes, the text the
/// transforms edit. Reports problems to Diags; returns false on any error.
bool analyzeC(const std::string &Source, const std::vector<std::string> &CompilerArgs,
              const CFrontendOptions &Opts, UnitModel &Model, std::string &MainText,
              DiagnosticSink &Diags);

} // namespace mpiete

#endif
