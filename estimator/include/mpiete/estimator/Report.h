// Writers of an estimate's summary for people (text) and programs (YAML, JSON): the predicted
// time, each rank's compute / communication / wait time and the blocks that cost most.
#ifndef MPIETE_ESTIMATOR_REPORT_H
#define MPIETE_ESTIMATOR_REPORT_H

#include "mpiete/estimator/Engine.h"

#include <functional>
#include <ostream>
#include <string>

namespace mpiete::estimator {

struct ReportOptions {
  size_t TopBlocks = 10;
  /// Provenance written into YAML/JSON (program, machine and network data, tool version).
  std::vector<std::pair<std::string, std::string>> Provenance;
  /// Where a block is in the source ("halo.c:17-18 exchange_halo: MPI_Waitall"), from the
  /// program's block map; empty when unknown.
  std::function<std::string(BlockId)> Describe;
  size_t TopSegments = 10;
  /// A segment as `main.f:42 (MPI_Sendrecv) -> main.f:57 (MPI_Allreduce) in sweep, loop
  /// main.f:30` (estimator/io's SiteNames); unset: the two ids.
  std::function<std::string(BlockId, BlockId)> DescribeSegment;
  /// Extra top-level members (a task farm's resimulation): writeYaml calls ExtraYaml at the
  /// end, writeJson calls ExtraJson before the closing brace after writing ",\n". Each writes
  /// whole lines ("key: ...\n"; JSON: `  "key": ...\n`, no trailing comma); unset: none.
  std::function<void(std::ostream &)> ExtraYaml;
  std::function<void(std::ostream &)> ExtraJson;
  /// The compute base data's capped loops ("LOOP after N iterations") and its --cap N (0: not
  /// capped): the report says which part of the prediction rests on their skipped iterations.
  std::vector<std::string> CappedLoops;
  int SampleCap = 0;
  /// Its sampled loops of pure computation (probe-compute --sample S; 0: none), each "LOOP: R
  /// of N iterations run ...", and the seconds estimated for their skipped iterations.
  int SampleStride = 0;
  std::vector<std::string> SampledLoops;
  double SampledSeconds = 0;
};

/// Seconds from integer nanoseconds, exactly ("-1.500000000"; no floating point rounding), as
/// every report of an estimate (estimate, whatif) prints them.
std::string formatSeconds(TimeNs Ns);
/// A string in double quotes with `"`, `\` and newlines escaped: valid in YAML and JSON.
std::string quotedString(const std::string &S);

/// What predicted_seconds means: "all", "last" or the instance's number.
std::string regionInstanceName(int RegionInstance);

void writeText(std::ostream &OS, const EstimateResult &R, const ReportOptions &Opt = {});
void writeYaml(std::ostream &OS, const EstimateResult &R, const ReportOptions &Opt = {});
void writeJson(std::ostream &OS, const EstimateResult &R, const ReportOptions &Opt = {});

} // namespace mpiete::estimator

#endif
