// The compute base data file, machine.yaml (format mpiete-compute, version 2; version 1 is still
// read): every rank's compute blocks (seed mode) or compute segments (segment mode) and their
// seconds per execution on one machine type; types, writer, reader.
#ifndef MPIETE_BASEDATA_MACHINEFILE_H
#define MPIETE_BASEDATA_MACHINEFILE_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

/// One compute block of one rank, net of the timer's own overhead.
struct MachineBlock {
  uint64_t Id = 0;
  bool Loop = false; ///< a loop timed whole: the times are per iteration
  uint64_t Executions = 0;
  uint64_t Iterations = 0; ///< loops only
  double MeanSeconds = 0, StddevSeconds = 0, MinSeconds = 0, MaxSeconds = 0;
};

/// One compute segment of one rank (segment mode): the computation between the MPI call at
/// site From and the next one, at site To. Times as measured (no hook inside, no overhead).
struct MachineSegment {
  uint64_t From = 0, To = 0;
  uint64_t Executions = 0;
  double MeanSeconds = 0, StddevSeconds = 0, MinSeconds = 0, MaxSeconds = 0;
  /// The per-occurrence variation, when it matters: bucket k is the sum of SeriesWidth
  /// consecutive occurrences (the last bucket holds the remainder). Empty: the mean serves.
  uint64_t SeriesWidth = 0;
  std::vector<double> SeriesSeconds;
  /// probe-compute --repeat N: the segment's mean in each of the timing runs that made it, in
  /// run order; the record's mean is their median, its spread and series those of the run
  /// nearest the median, scaled to it. Empty after a single run. Their spread is the measurement's
  /// noise (`mpiete model`).
  std::vector<double> RepeatSeconds;
  /// Occurrences in bucket K (the last one may hold fewer than SeriesWidth).
  uint64_t bucketCount(size_t K) const {
    if (K + 1 < SeriesSeconds.size())
      return SeriesWidth;
    const uint64_t Before = SeriesWidth * K;
    return Executions > Before ? Executions - Before : 0;
  }
};

struct MachineRank {
  int Rank = -1;
  double TimerOverheadSeconds = 0;
  std::vector<MachineBlock> Blocks;
  std::vector<MachineSegment> Segments;
};

/// How the program was partitioned when it was measured: seed 004's compute blocks
/// (--mpiete-seed-blocks, every version-1 file) or compute segments between MPI calls.
enum class MachinePartition { Blocks, Segments };

/// How the times were measured.
struct MachineProvenance {
  std::string Program;
  std::vector<std::string> Arguments;
  int Ranks = 0;
  std::string Host, CpuModel, CpuMhz;
  int Cpu = -1;             ///< the first processor the ranks ran on
  bool TokenPassing = true; ///< one rank (or RanksPerNode) computing at a time
  int RanksPerNode = 1;     ///< ranks that computed at once (probe-compute --ranks-per-node)
  /// kept (the top of the C heap kept occupied at MPI calls, the default) or native
  /// (probe-compute --heap native); empty in older files.
  std::string Heap;
  std::string Compiler = "unknown", Flags = "unknown";
  std::string BlockMap;    ///< the program's block map; empty if there was none
  std::string Fingerprint; ///< the block map's fingerprint; empty if not recorded
  std::string Date, Tool;
  std::string Command; ///< the launch command line; empty in files written before it was kept
  /// The timing probe's wall time (launch included), a cost of the prediction; 0 if unknown.
  double ProbeSeconds = 0;
  /// probe-compute --cap: measured iterations per capped loop (0: every iteration ran), and
  /// the loops left early, each "LOOP after N iterations" (the later ones' times are the mean).
  int SampleCap = 0;
  std::vector<std::string> CappedLoops;
  /// probe-compute --sample S: 1 in S iterations of the sampled loops of pure computation ran
  /// (0: not sampled); the loops that skipped some, each "LOOP: R of N iterations run in E
  /// entries, X% of its time estimated, spread CV", and the skipped iterations' estimated
  /// seconds over all ranks (inside the segments' times).
  int SampleStride = 0;
  std::vector<std::string> SampledLoops;
  double SampledSeconds = 0;
  /// probe-compute --program: the traces whose wildcard matches the run's MPI_ANY_SOURCE
  /// receives and probes took (empty: the token's own order).
  std::string WildcardsFrom;
  /// probe-compute --repeat N: the timing runs taken (1: one); each record the median of them.
  int Repeats = 1;
  /// The rank each timing run started with (probe-compute --first-rank, rotated by --repeat);
  /// empty when every run started at rank 0.
  std::vector<int> FirstRanks;
  /// probe-compute --combine: the files combined, each "PATH (its date)", in order (Repeats
  /// of them); empty for a file of one probe-compute command.
  std::vector<std::string> CombinedFrom;
};

struct MachineFile {
  static constexpr int FormatVersion = 2;
  MachineProvenance Provenance;
  MachinePartition Partition = MachinePartition::Blocks;
  double TimerOverheadSeconds = 0; ///< the largest of the ranks'
  std::vector<MachineRank> Ranks;
};

void writeMachineFile(std::ostream &OS, const MachineFile &File);

/// Reads machine.yaml from Text (Name for diagnostics, tagged [mpiete-compute]). With Only,
/// just those ranks are taken, and each must be in the file (a cluster puts the ranks of its
/// nodes of another machine type on that type's file). False (reported) on error.
bool parseMachineFile(const std::string &Name, const std::string &Text, MachineFile &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only = nullptr);
/// The same from a file; `Path: error: cannot open the compute file` if missing.
bool loadMachineFile(const std::string &Path, MachineFile &Out, DiagnosticSink &Diags,
                     const std::vector<int> *Only = nullptr);

/// The median of V (the mean of the two middle values when their count is even; 0 if empty).
double medianOf(std::vector<double> V);

/// One file from timing runs of the same program, input and rank count (probe-compute
/// --repeat): per rank and segment (block) the median of the runs' means, the spread and series
/// of the run nearest it scaled to it, every run's mean of a segment in its RepeatSeconds. (The
/// least of each segment is biased short wherever segments' times move from run to run for
/// reasons other than preemption; the least disturbed run whole keeps, once the ranks are many,
/// every rank that some preemption hit in it: docs/probes.md, "Combining the runs".) The
/// provenance and partition are the first run's, with Repeats set. False, with Why, unless
/// every run measured the same ranks.
bool combineRepeatedRuns(const std::vector<MachineFile> &Runs, MachineFile &Out, std::string &Why);

/// A file of repeated timing runs (combineRepeatedRuns, segment partition): per run, its compute
/// summed over the ranks (each segment's mean in that run times its executions; a segment only
/// one run made counts its record in every run), and in Records the records' sum (what a replay
/// charges). Empty for a single run or the block partition.
std::vector<double> repeatedRunsCompute(const MachineFile &File, double &Records);

/// Parses the readable block id `0aa758c0:11` by the ground floor's one rule (mpiete/BlockId.h:
/// exactly 8 hex digits); false if malformed.
bool parseBlockId(const std::string &Text, uint64_t &Out);

} // namespace mpiete

#endif
