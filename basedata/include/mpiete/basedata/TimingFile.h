// A rank's timing file, rank<N>.timing, as the timing probe's runtime writes it
// (runtime/lib/Recorder.cpp), and the machine file's rank made from it.
#ifndef MPIETE_BASEDATA_TIMINGFILE_H
#define MPIETE_BASEDATA_TIMINGFILE_H

#include "mpiete/basedata/MachineFile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpiete {

/// One timed block's line: totals over its executions, the timer's overhead included.
struct BlockTiming {
  uint64_t Id = 0;
  bool Loop = false; ///< a loop timed whole (a line of kind "loop"), else "block"
  uint64_t Executions = 0;
  uint64_t Trips = 0; ///< loops: iterations over all executions
  uint64_t Nanos = 0;
  double MinNs = 0, MaxNs = 0, StddevNs = 0;
};

/// One compute segment's lines (segment mode, docs/probes.md): the computation between the
/// outermost MPI call at site From and the next one, at site To, timed by the clock reads the
/// MPI entry points do anyway. No hook runs inside it, so no overhead is in its times.
struct SegmentTiming {
  uint64_t From = 0, To = 0;
  uint64_t Executions = 0;
  uint64_t Nanos = 0; ///< total over all executions
  double MinNs = 0, MaxNs = 0, StddevNs = 0;
  /// Its `series` line, if the runtime wrote one: bucket k is the sum of SeriesWidth
  /// consecutive occurrences (the last bucket the remainder); empty if none.
  uint64_t SeriesWidth = 0;
  std::vector<uint64_t> Series;
  /// Its `# capped-mean` header line, if probe-compute --cap left a loop it occurs in early:
  /// its occurrences and their total in the measured iterations of those loops (the warm-up
  /// left out). Its mean is the one the skipped occurrences take. 0: none.
  uint64_t CappedExecutions = 0, CappedNanos = 0;
};

struct RankTiming {
  int Rank = -1;
  double OverheadNs = 0; ///< one begin/end pair of the timer
  bool TokenPassing = false;
  int Cpu = -1;
  int RanksPerNode = 1;
  /// `# heap kept|native`: whether the probe kept the top of the C heap occupied at MPI calls
  /// (runtime/lib/HeapPin.cpp); empty in files of runtimes before it.
  std::string Heap;
  std::vector<BlockTiming> Blocks; ///< timed ones only: communication is counted, not timed
  /// `# partition segments|blocks`; empty in files of runtimes before segment mode (blocks).
  std::string Partition;
  std::vector<SegmentTiming> Segments;
};

/// Reads Path, rank Rank's timing file. Returns an error message, empty on success.
std::string readRankTiming(const std::string &Path, int Rank, RankTiming &Out);

/// The machine file's rank: seconds per execution (per iteration for loops) net of the timer's
/// overhead, which is in every execution's interval once. Segments are taken as measured: they
/// are timed by the MPI entry points' own clock reads, with no hook of their own to subtract.
/// A segment with a capped mean gets it as its mean_seconds: the estimator fills the
/// occurrences past the measured ones (those of the skipped iterations) with the mean.
MachineRank machineRankOf(const RankTiming &R);

} // namespace mpiete

#endif
