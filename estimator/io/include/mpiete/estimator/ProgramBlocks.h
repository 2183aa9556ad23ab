// What the block map beside the traces tells an estimate: where each block is in the source,
// and which block a FILE:LINE region bound means.
#ifndef MPIETE_ESTIMATOR_PROGRAMBLOCKS_H
#define MPIETE_ESTIMATOR_PROGRAMBLOCKS_H

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/estimator/Event.h"
#include "mpiete/support/Diagnostics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpiete::estimator {

/// The block map probe-program copied into the program directory (ProgramDir/blocks.yaml), read
/// once per estimate and shared by the report's names and the FILE:LINE region bounds.
struct ProgramBlockMap {
  std::string Path;     ///< ProgramDir/blocks.yaml
  bool Present = false; ///< the file is there
  bool Ok = true;       ///< false: present but broken (reported)
  BlockMap Map;
};
ProgramBlockMap loadProgramBlockMap(const std::string &ProgramDir, DiagnosticSink &Diags);

/// Each block as `file:lines procedure[: routine (phase) | : loop]` for the report.
std::map<BlockId, std::string> blockDescriptions(const BlockMap &Map);

/// Call sites and compute segments named for the report, from the block map: a site as
/// `main.f:42 (MPI_Sendrecv)`, an MPI call made by code mpiete-cc did not build as
/// `MPI_Send (uninstrumented)`, the reserved start of the program as `program start`; a
/// segment as `main.f:42 (MPI_Sendrecv) -> main.f:57 (MPI_Allreduce) in sweep, loop main.f:30`
/// (the procedure of its end, and the innermost loop holding both ends).
class SiteNames {
public:
  /// Takes the sites of Map (without one, sites go by their ids).
  void load(const BlockMap &Map);
  std::string site(BlockId Site) const;
  std::string segment(BlockId From, BlockId To) const;

private:
  struct Site {
    std::string File, Routine, Procedure;
    unsigned Line = 0;
    std::vector<std::string> Loops; ///< enclosing loops as file:line, outer first
  };
  std::map<BlockId, Site> Sites;
};

/// The name of the MPI routine whose uninstrumented calls get the reserved pseudo site Site
/// (mpiete/BlockId.h: ffffffff:4N for routine N of routines.def); empty if Site is none.
std::string uninstrumentedRoutine(BlockId Site);

/// A region bound (seed 004 section 3.2.1): a block id, or FILE:LINE of a statement, resolved
/// through the block map in the program directory to the block holding that line (for the
/// start the first such block, for the end the last; a line between blocks takes the next
/// block for the start and the previous one for the end). On a line with an MPI call, the
/// call's blocks win (its site for a start, its last block for an end): a bound is a call
/// site, the way segment mode cuts a run. Nullopt (reported) if there is none.
std::optional<BlockId> regionBlock(const std::string &Spec, bool IsStart,
                                   const ProgramBlockMap &Blocks, DiagnosticSink &Diags);

} // namespace mpiete::estimator

#endif
