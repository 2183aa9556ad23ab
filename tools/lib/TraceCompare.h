// Record-by-record comparison of two runs' traces (the full and the skeleton trace probe):
// `mpiete probe-program --verify-skeleton`.
#ifndef MPIETE_TOOLS_LIB_TRACECOMPARE_H
#define MPIETE_TOOLS_LIB_TRACECOMPARE_H

#include "mpiete/trace/TraceReader.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_set>

namespace mpiete {

/// Whether two decoded records say the same (every field a consumer reads; the file position
/// fields Number and Offset excepted: compression may store the same sequence differently).
bool sameRecord(const trace::Record &A, const trace::Record &B);

/// Two Wait records of the same call whose difference is MPI's own nondeterminism: which
/// requests a waitany / waitsome / test* found complete depends on timing, in any two runs.
bool sameUpToTiming(const trace::Record &A, const trace::Record &B);

/// One line: the site, the kind and its fields (`0aa758c0:3 send to=1 tag=5 bytes=800`).
std::string describeRecord(const trace::Record &R);

/// The first place two traces of the same rank differ.
struct TraceDifference {
  int Rank = 0;
  uint64_t Record = 0;        ///< index in the expanded record sequence, from 0
  std::string Full, Skeleton; ///< the records (describeRecord), or "(end of trace)"
  uint64_t FullSite = 0;      ///< the full trace's record's site (0 at its end)
  uint64_t PreviousSite = 0;  ///< the site of the last record both agree on (0: none)
};

/// Compares DIR/rank<N>.trace of FullDir and SkeletonDir for N < Ranks; the records of the
/// non-blocking collectives' sites (Nonblocking) per site, as their place in the trace depends
/// on timing, every other record in order. Records counts the
/// records compared, Timing those of them equal only up to timing (sameUpToTiming). Returns
/// the first difference, or nothing when all are equal or a trace could not be read (then Ok
/// is false, reported to Diags).
std::optional<TraceDifference> compareTraceDirs(const std::filesystem::path &FullDir,
                                                const std::filesystem::path &SkeletonDir, int Ranks,
                                                const std::unordered_set<uint64_t> &Nonblocking,
                                                DiagnosticSink &Diags, bool &Ok, uint64_t &Records,
                                                uint64_t &Timing);

} // namespace mpiete

#endif
