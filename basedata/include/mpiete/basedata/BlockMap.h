// Reads and writes the block map (`<output>.blocks.yaml`), per unit and per linked program.
#ifndef MPIETE_BASEDATA_BLOCKMAP_H
#define MPIETE_BASEDATA_BLOCKMAP_H

#include "mpiete/basedata/ProgramModel.h"

#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

struct BlockMap {
  static constexpr int FormatVersion = 1;
  std::string Program;  ///< the object or executable it describes
  std::string Tool;     ///< "mpiete 0.1.0"
  std::string Date;     ///< ISO 8601, UTC
  std::string Compiler; ///< the native compiler and its version, if known (provenance)
  std::vector<UnitModel> Units;

  /// A hash over every unit's id and content hash: base data taken from another build of
  /// the program carries another fingerprint.
  uint64_t fingerprint() const;
};

void writeBlockMap(std::ostream &OS, const BlockMap &Map);

/// Reads a block map; on a malformed file reports `file: error: ...` naming the record and
/// returns false.
bool readBlockMap(const std::string &Path, BlockMap &Map, DiagnosticSink &Diags);

/// Current UTC time as ISO 8601.
std::string isoDateNow();

} // namespace mpiete

#endif
