// What the block map beside the traces tells an estimate: where each block is in the source,
// and which block a FILE:LINE region bound means.
#ifndef MPIETE_ESTIMATOR_PROGRAMBLOCKS_H
#define MPIETE_ESTIMATOR_PROGRAMBLOCKS_H

#include "mpiete/estimator/Event.h"
#include "mpiete/support/Diagnostics.h"

#include <map>
#include <optional>
#include <string>

namespace mpiete::estimator {

/// The block map probe-program copied into the program directory (ProgramDir/blocks.yaml), if
/// it is there: each block as `file:lines procedure[: routine (phase) | : loop]` for the report.
std::map<BlockId, std::string> blockDescriptions(const std::string &ProgramDir,
                                                 DiagnosticSink &Diags);

/// A region bound (seed 004 section 3.2.1): a block id, or FILE:LINE of a statement, resolved
/// through the block map in the program directory to the block holding that line (for the
/// start the first such block, for the end the last; a line between blocks takes the next
/// block for the start and the previous one for the end). Nullopt (reported) if there is none.
std::optional<BlockId> regionBlock(const std::string &Spec, bool IsStart,
                                   const std::string &ProgramDir, DiagnosticSink &Diags);

} // namespace mpiete::estimator

#endif
