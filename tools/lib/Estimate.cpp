// `mpiete estimate`: reads the three base data, replays the traces and writes the prediction.
#include "CommandUtil.h"

#include "mpiete/basedata/ProbeRun.h"
#include "mpiete/estimator/BaseData.h"
#include "mpiete/estimator/Cluster.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/ProgramBlocks.h"
#include "mpiete/estimator/RecordedMatches.h"
#include "mpiete/estimator/Report.h"
#include "mpiete/export/Otf2Writer.h"
#include "mpiete/farm/FarmPrediction.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/tools/Commands.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace mpiete {

namespace {

using namespace estimator;

/// --region-instance: all -> 0, last -> -1, N -> N (from 1); nullopt if malformed.
std::optional<int> parseRegionInstance(const std::string &Text) {
  if (Text == "all")
    return 0;
  if (Text == "last")
    return -1;
  if (Text == "first")
    return 1;
  if (Text.empty() || Text.size() > 9 || Text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int N = std::stoi(Text);
  return N >= 1 ? std::optional<int>(N) : std::nullopt;
}

/// Both timelines at once (--timeline and --otf2).
struct TeeSink : TimelineSink {
  std::vector<TimelineSink *> Sinks;
  void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) override {
    for (TimelineSink *S : Sinks)
      S->span(Rank, Kind, Block, Begin, End);
  }
  void message(const MessageArrow &M) override {
    for (TimelineSink *S : Sinks)
      S->message(M);
  }
  void highlight(int Rank, TimeNs Begin, TimeNs End, std::string_view Label) override {
    for (TimelineSink *S : Sinks)
      S->highlight(Rank, Begin, End, Label);
  }
  void finish() override {
    for (TimelineSink *S : Sinks)
      S->finish();
  }
};

/// The cost of the prediction: the two probes' wall times (recorded in their outputs, or given
/// with --probe-seconds TRACE,TIMING) against the predicted run time.
struct PredictionCost {
  double Trace = -1, Timing = -1; ///< seconds; -1 unknown
  bool known() const { return Trace >= 0 && Timing >= 0; }
};

bool parseProbeSeconds(const std::string &Text, PredictionCost &Cost) {
  const size_t Comma = Text.find(',');
  if (Comma == std::string::npos)
    return false;
  char *End = nullptr;
  const double T = std::strtod(Text.c_str(), &End);
  if (End != Text.c_str() + Comma)
    return false;
  const double M = std::strtod(Text.c_str() + Comma + 1, &End);
  if (*End != '\0' || !(T >= 0) || !(M >= 0))
    return false;
  Cost = {T, M};
  return true;
}

std::string secondsList(const std::vector<double> &Seconds, const char *Sep, int Digits = 6) {
  std::string Out;
  char Buf[32];
  for (double S : Seconds) {
    std::snprintf(Buf, sizeof Buf, "%.*g", Digits, S);
    Out += (Out.empty() ? "" : Sep) + std::string(Buf);
  }
  return Out;
}

/// probe-compute --repeat: what each timing run measured of the compute the replay charges,
/// beside what the replay takes (each segment's median; LoadedBaseData::RunComputeSeconds).
void writeTimingRunsText(std::ostream &OS, const LoadedBaseData &R) {
  OS << "timing runs: " << R.RunComputeSeconds.size()
     << (R.MachineProv.CombinedFrom.empty() ? " (probe-compute --repeat)"
                                            : " (probe-compute --combine)")
     << ", their compute summed over the ranks " << secondsList(R.RunComputeSeconds, ", ", 4)
     << " s; the replay takes each segment's median (" << secondsList({R.ComputeSeconds}, "", 4)
     << " s)\n";
}

void writeTimingRunsYaml(std::ostream &OS, const LoadedBaseData &R) {
  OS << "timing_runs:\n  count: " << R.RunComputeSeconds.size() << "\n  compute_seconds: ["
     << secondsList(R.RunComputeSeconds, ", ")
     << "]\n  median_compute_seconds: " << secondsList({R.ComputeSeconds}, "") << "\n";
}

void writeTimingRunsJson(std::ostream &OS, const LoadedBaseData &R) {
  OS << "  \"timing_runs\": {\"count\": " << R.RunComputeSeconds.size()
     << ", \"compute_seconds\": [" << secondsList(R.RunComputeSeconds, ", ")
     << "], \"median_compute_seconds\": " << secondsList({R.ComputeSeconds}, "") << "}\n";
}

} // namespace

int runEstimate(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete estimate", 0, 0};
  CommandLine C(
      "estimate",
      "usage: mpiete estimate --program DIR --machine machine.yaml --network network.yaml\n"
      "                       [--cluster cluster.yaml] [--model table|loggps]\n"
      "                       [--format text|yaml|json] [-o FILE] [--timeline out.json]\n"
      "                       [--otf2 DIR]\n"
      "                       [--region START,END] [--region-start START] [--region-end END]\n"
      "                       [--region-instance all|first|last|N] [--probe-seconds TRACE,TIMING]",
      "Replays the program base data (DIR/rank<N>.trace) against the compute base data\n"
      "(machine.yaml) and the communication base data (network.yaml; with --cluster, ranks on "
      "one\nnode use the cluster's intra-node network) and prints the predicted run time.\n"
      "A region bound is a call site: FILE:LINE of an MPI call (main.f:42) or an id\n"
      "(0aa758c0:11); seed-mode builds also take FILE:LINE of any statement. The prediction\n"
      "then runs from the start of the START call to the end of the END call on each rank\n"
      "(default: MPI_Init to MPI_Finalize). Each time START runs again after END, the region\n"
      "has another instance (a warm-up call of the timed routine, then the real one); the\n"
      "report gives every instance's predicted time and their total.",
      "  mpiete estimate --program traces/ --machine machine.yaml --network network.yaml "
      "--timeline run.json\n");
  // Each option once: its name, value and help; the values land in Opt.
  std::map<std::string, std::string> Opt;
  C.addOptions(
      Opt,
      {{"--program", "DIR", "the program base data: rank<N>.trace (required)"},
       {"--machine", "FILE", "the compute base data (required)"},
       {"--network", "FILE", "the communication base data (required)"},
       {"--cluster", "FILE",
        "nodes, ranks per node, their machines and networks (with --ranks: each node type's "
        "speed from its machine file, cores time-shared)"},
       {"--model", "table|loggps|FILE",
        "the network model (default table); with --ranks, the scaling model (mpiete model)"},
       {"--ranks", "N", "extrapolate to N ranks from the scaling model given by --model"},
       {"--size", "W", "with --ranks: the problem size (default: the model's first run's)"},
       {"--format", "text|yaml|json", "the report's format (default text)"},
       {"-o", "FILE", "write the report there (default: standard output)"},
       {"--timeline", "FILE",
        "write the predicted timeline (Chrome trace JSON for Perfetto, messages as arrows)"},
       {"--otf2", "DIR",
        "write the predicted timeline as an OTF2 archive DIR/traces.otf2 (Vampir, otf2-print)"},
       {"--region", "START,END", "predict from START to END"},
       {"--region-start", "START", "predict from START (a block id or FILE:LINE)"},
       {"--region-end", "END", "predict to END (a block id or FILE:LINE)"},
       {"--region-instance", "all|first|last|N",
        "what predicted_seconds means when the region runs several times: the sum of all its "
        "instances (the default: the time the run spends in the region, as a profiler's "
        "inclusive time counts it, so nothing the program repeats is left out), the first, "
        "the last (e.g. the timed call after a warm-up) or the N-th (from 1); every "
        "instance is listed in the report either way"},
       {"--probe-seconds", "TRACE,TIMING",
        "the wall time of the trace probe and of the timing probe, for the cost of the "
        "prediction (default: as recorded in DIR/probe.yaml and the machine file)"}});
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  if (Opt.count("--ranks")) {
    int Ranks = 0;
    double Size = 0;
    try {
      Ranks = std::stoi(Opt["--ranks"]);
      Size = Opt.count("--size") ? std::stod(Opt["--size"]) : 0;
    } catch (...) {
    }
    if (Ranks <= 0 || !Opt.count("--model") ||
        (!Opt.count("--network") && !Opt.count("--cluster"))) {
      Diags.error(Tool, "--ranks N (N >= 1) needs --model model.yaml and --network or --cluster",
                  "usage");
      return 1;
    }
    for (const char *Ignored :
         {"--program", "--machine", "--timeline", "--otf2", "--region", "--region-start",
          "--region-end", "--region-instance", "--probe-seconds"})
      if (Opt.count(Ignored)) {
        Diags.error(Tool,
                    std::string(Ignored) +
                        " is not taken with --ranks (the replay is the scaling model's)",
                    "usage");
        return 1;
      }
    const std::string Format = Opt.count("--format") ? Opt["--format"] : "text";
    if (Format != "text" && Format != "yaml" && Format != "json") {
      Diags.error(Tool, "unknown format '" + Format + "' (text, yaml or json)", "usage");
      return 1;
    }
    return runScaledEstimate(Opt["--model"], Ranks, Size,
                             Opt.count("--network") ? Opt["--network"] : "",
                             Opt.count("--cluster") ? Opt["--cluster"] : "", Format,
                             Opt.count("-o") ? &Opt["-o"] : nullptr, joinArgs("estimate", Args));
  }
  if (!C.requireOptions({"--program", "--machine", "--network"}, Diags, Tool))
    return 1;
  std::string Format = Opt.count("--format") ? Opt["--format"] : "text";
  std::string ModelName = Opt.count("--model") ? Opt["--model"] : "table";
  if (Format != "text" && Format != "yaml" && Format != "json") {
    Diags.error(Tool, "unknown format '" + Format + "' (text, yaml or json)", "usage");
    return 1;
  }
  if (ModelName != "table" && ModelName != "loggps") {
    Diags.error(Tool, "unknown network model '" + ModelName + "' (table or loggps)", "usage");
    return 1;
  }
  NetworkModelKind Kind = ModelName == "table" ? NetworkModelKind::Table : NetworkModelKind::LogGPS;

  EngineOptions EO;
  if (Opt.count("--region-instance")) {
    std::optional<int> N = parseRegionInstance(Opt["--region-instance"]);
    if (!N) {
      Diags.error(Tool,
                  "--region-instance '" + Opt["--region-instance"] +
                      "': all, first, last or an instance number from 1",
                  "usage");
      return 1;
    }
    EO.RegionInstance = *N;
  }
  if (Opt.count("--region")) {
    size_t Comma = Opt["--region"].find(',');
    if (Comma == std::string::npos) {
      Diags.error(Tool, "--region takes START,END (block ids or FILE:LINE)", "usage");
      return 1;
    }
    Opt["--region-start"] = Opt["--region"].substr(0, Comma);
    Opt["--region-end"] = Opt["--region"].substr(Comma + 1);
  }
  // The block map names the report's sites and resolves FILE:LINE bounds: read once. A broken
  // one is an error (the report would name nothing, silently); a missing one a warning
  // (probe-program copies it: a directory put together by hand may lack it).
  const ProgramBlockMap Blocks = loadProgramBlockMap(Opt["--program"], Diags);
  if (!Blocks.Ok)
    return 1;
  if (!Blocks.Present)
    Diags.warning({Opt["--program"], 0, 0},
                  "no blocks.yaml in the program base data: the report cannot name call sites "
                  "and segments by file:line (mpiete probe-program copies the block map there)",
                  "estimate");
  for (auto [Key, Field, IsStart] : {std::tuple{"--region-start", &EO.RegionStart, true},
                                     std::tuple{"--region-end", &EO.RegionEnd, false}}) {
    if (!Opt.count(Key))
      continue;
    std::optional<BlockId> B = regionBlock(Opt[Key], IsStart, Blocks, Diags);
    if (!B)
      return 1;
    *Field = *B;
  }

  // The replay runs once more, each wildcard receive matching the message the recorded run
  // matched, when matching by earliest predicted arrival left ranks blocked: the trace's calls
  // after such a receive follow the recorded match (RecordedMatches.h). Every input is opened
  // again for it (the streams are read once; the models count fallbacks as they replay).
  std::unique_ptr<LoadedBaseData> Loaded;
  std::ofstream TimelineFile;
  std::unique_ptr<ChromeTraceWriter> Timeline;
  std::unique_ptr<exporter::Otf2Writer> Otf2;
  TeeSink Sinks;
  farm::FarmInputs FarmIn;
  bool FarmFailed = false, UnmarkedScan = false;
  std::unique_ptr<farm::FarmScan> Scan;
  std::vector<std::unique_ptr<EventSource>> Watched;
  std::vector<std::unique_ptr<RecordedMatchSource>> Recorded;
  EstimateResult R;
  const CallSites Sites = Blocks.Present ? CallSites::fromBlockMap(Blocks.Map) : CallSites{};
  SiteNames Names;
  Names.load(Blocks.Map);
  // The second load says again what the first one said: each line is printed once.
  std::unordered_set<std::string> Shown;
  EstimateResult Stuck; // the first replay, when it was the one that ended blocked
  for (bool FollowRecorded : {false, true}) {
    Diags.recordLines(Shown, FollowRecorded);
    Loaded = std::make_unique<LoadedBaseData>();
    if (!loadBaseData(Opt["--program"], Opt["--machine"], Opt["--network"],
                      Opt.count("--cluster") ? Opt["--cluster"] : "", Kind, Diags, *Loaded))
      return 1;
    // Each call-start record is checked against the block map (issue 14: a flipped call site
    // must be an error, not a silently different prediction).
    if (Blocks.Present)
      for (auto &T : Loaded->Traces)
        T->setCallSites(&Sites);
    auto &Traces = Loaded->Traces;
    TableComputeModel &Compute = Loaded->Compute;
    std::unique_ptr<ClusterNetworkModel> &Net = Loaded->Net;
    ClusterSpec &Spec = Loaded->Spec;

    Recorded.clear();
    Watched.clear();
    Scan.reset();
    Otf2.reset();
    Timeline.reset();
    Sinks.Sinks.clear();
    EO.Timeline = nullptr; // the sinks of this replay, set up below
    if (Opt.count("--timeline")) {
      TimelineFile.close();
      TimelineFile.open(Opt["--timeline"]);
      if (!TimelineFile) {
        Diags.error({Opt["--timeline"], 0, 0}, "cannot write the timeline", "io");
        return 1;
      }
      Timeline = std::make_unique<ChromeTraceWriter>(TimelineFile, int(Traces.size()));
      Sinks.Sinks.push_back(Timeline.get());
    }
    if (Opt.count("--otf2")) {
      Otf2 = std::make_unique<exporter::Otf2Writer>(Opt["--otf2"], int(Traces.size()),
                                                    [&Names](BlockId B) { return Names.site(B); });
      Sinks.Sinks.push_back(Otf2.get());
    }
    if (Sinks.Sinks.size() == 1)
      EO.Timeline = Sinks.Sinks.front();
    else if (!Sinks.Sinks.empty())
      EO.Timeline = &Sinks;

    // A task farm (docs/taskfarm.md): with task costs beside the machine file, the farm is
    // recognised as the engine replays it and re-simulated with them afterwards.
    FarmIn = farm::FarmInputs{};
    UnmarkedScan = false;
    if (farm::loadFarmInputs(Opt["--machine"], Opt.count("--cluster") ? &Spec : nullptr,
                             Opt["--cluster"], int(Traces.size()), Diags, FarmIn, FarmFailed)) {
      if (!farm::loadFarmShape(Opt["--program"], Diags, FarmIn))
        return 1;
      Scan = std::make_unique<farm::FarmScan>(int(Traces.size()), EO.Timeline);
      EO.Timeline = Scan.get();
    } else if (FarmFailed) {
      return 1;
    } else {
      // No task costs: a farm may still be found in the trace alone (unmarked, under a memory
      // cap) and re-simulated with each task's replayed time.
      UnmarkedScan = true;
      Scan = std::make_unique<farm::FarmScan>(int(Traces.size()), EO.Timeline, UnmarkedScan);
      EO.Timeline = Scan.get();
    }

    std::vector<EventSource *> Sources;
    for (auto &T : Traces) {
      // Segment mode: a Segment event (the computation since the previous call) before the first
      // record of every call. Always on: the engine charges them when the compute base data has
      // segments, and otherwise reports a segment-mode trace replayed against seed-mode blocks.
      T->setEmitSegments(true);
      T->setEmitLocalCopies(true); // collectives' own-block copies (docs/collectives.md)
      Sources.push_back(T.get());
      if (Scan) {
        Watched.push_back(Scan->watch(int(Sources.size() - 1), *T));
        Sources.back() = Watched.back().get();
      }
      // Outermost, so that the farm's scan still sees the wildcards the program posted.
      if (FollowRecorded) {
        Recorded.push_back(std::make_unique<RecordedMatchSource>(*Sources.back()));
        Sources.back() = Recorded.back().get();
      }
    }
    Engine E(Compute, *Net, EO);
    R = E.run(Sources);
    if (!FollowRecorded && R.stuckOnWildcards()) {
      Stuck = std::move(R);
      continue;
    }
    if (EO.Timeline)
      EO.Timeline->finish();
    if (Otf2 && !Otf2->error().empty()) {
      Diags.error({Opt["--otf2"], 0, 0}, Otf2->error(), "io");
      return 1;
    }
    break;
  }
  Diags.stopRecording();
  auto &Traces = Loaded->Traces;
  TableComputeModel &Compute = Loaded->Compute;
  std::unique_ptr<ClusterNetworkModel> &Net = Loaded->Net;
  ClusterSpec &Spec = Loaded->Spec;
  LoadedBaseData &Data = *Loaded;
  if (!Recorded.empty()) {
    uint64_t Resolved = 0, Unresolved = 0;
    for (const auto &S : Recorded) {
      Resolved += S->resolved();
      Unresolved += S->unresolved();
    }
    Diags.warning(Tool,
                  "the replay matching each wildcard receive with the earliest predicted "
                  "arrival left ranks blocked, where the trace's calls after the receive follow "
                  "the message the recorded run matched; replayed again with each wildcard "
                  "receive taking its recorded match (" +
                      std::to_string(Resolved) + " receives" +
                      (Unresolved ? ", " + std::to_string(Unresolved) +
                                        " without a recorded status left wildcard"
                                  : std::string()) +
                      ")",
                  "estimate");
    // What the first replay said: where it blocked, and the first receive it matched otherwise.
    for (size_t I = 0; I < Stuck.Errors.size() && I < 2; ++I)
      Diags.note(Stuck.Errors[I].File.empty() ? Tool : DiagLoc{Stuck.Errors[I].File, 0, 0},
                 "first replay: " + Stuck.Errors[I].Message, "estimate");
    if (!Stuck.NondeterminismNotes.empty())
      Diags.note(Tool, "first replay: " + Stuck.NondeterminismNotes.front(), "estimate");
  }
  for (const EngineError &Err : R.Errors)
    Diags.error(Err.File.empty() ? Tool : DiagLoc{Err.File, 0, 0}, Err.Message, "estimate");
  if (!R.Ok)
    return 1;
  std::optional<farm::FarmPrediction> Farm;
  if (Scan && UnmarkedScan) {
    if (std::optional<farm::RecognizedFarm> F = Scan->recognize()) {
      std::vector<double> Factors;
      std::vector<std::string> Notes;
      if (Opt.count("--cluster") &&
          !farm::segmentTimeFactors(Opt["--machine"], Spec, Opt["--cluster"], F->Workers,
                                    int(Traces.size()), Diags, Factors, Notes))
        return 1;
      std::string WhyNot;
      Farm = farm::predictUnmarkedFarm(*F, Scan->replayedTaskTimes(*F), Factors, *Net, WhyNot);
      // Each task's time is the timing run's for the worker's j-th task: the traced task only
      // when that run took the traced wildcard matches (docs/taskfarm.md).
      std::error_code Ec;
      const std::string &From = Data.MachineProv.WildcardsFrom;
      if (Farm)
        farm::applyFarm(R, *Farm);
      if (Farm && (From.empty() || !std::filesystem::equivalent(From, Opt["--program"], Ec)))
        Diags.note({Opt["--machine"], 0, 0},
                   "the timing probe's wildcard receives " +
                       (From.empty() ? std::string("took the token's order")
                                     : "followed the traces in '" + From + "'") +
                       ", not the matches of '" + Opt["--program"] +
                       "': a worker's tasks there are not the ones traced, and the re-simulated "
                       "tasks take other tasks' times; run probe-compute --program " +
                       Opt["--program"],
                   "estimate");
      if (!Farm)
        Diags.warning(Tool,
                      "the task farm of rank " + std::to_string(F->Master) +
                          " (found in the trace) keeps the traced assignment: " + WhyNot,
                      "estimate");
      for (const std::string &N : Notes)
        Diags.note({Opt["--machine"], 0, 0}, N, "estimate");
    }
  } else if (Scan) {
    if (std::optional<farm::RecognizedFarm> F = Scan->recognize()) {
      std::string WhyNot;
      Farm = farm::predictFarm(*F, FarmIn, *Net, WhyNot);
      if (Farm)
        farm::applyFarm(R, *Farm);
      else
        Diags.warning({FarmIn.ReferencePath, 0, 0},
                      "the task farm of rank " + std::to_string(F->Master) +
                          " keeps the traced assignment: " + WhyNot,
                      "estimate");
    } else {
      Diags.warning({FarmIn.ReferencePath, 0, 0},
                    "task costs, but no task farm in the traces (a rank whose wildcard receives "
                    "collect the results of the work it sent): nothing re-simulated",
                    "estimate");
    }
    for (const std::string &N : FarmIn.Notes)
      Diags.note({FarmIn.ReferencePath, 0, 0}, N, "estimate");
  }
  // What the traces held that the network file may not price: one pass over the sources.
  uint64_t Copies = 0, PackedCopies = 0, Same = 0, Packed = 0, Largest = 0;
  for (auto &T : Traces) {
    Copies += T->localCopies();
    PackedCopies += T->packedLocalCopies();
    Same += T->sameBufferReceives();
    Packed += T->packedMessages();
    Largest = std::max(Largest, T->largestMessage());
  }
  const LinkModel &Link = Net->link(0, 0);
  auto Note = [&](const std::string &Text) {
    Diags.note({Opt["--network"], 0, 0}, Text, "estimate");
  };
  if (Copies && !Link.hasCopyTable())
    Note("no memory_copy table (a probe-comm before it): the " + std::to_string(Copies) +
         " local copies of collectives' own blocks cost nothing; run probe-comm again");
  if (Same && !Link.hasSameBufferTable())
    Note("no same_buffer table (a probe-comm before it): the " + std::to_string(Same) +
         " receives into a buffer just sent from cost no more than other messages; run "
         "probe-comm again");
  if (const uint64_t Measured = Link.largestMeasured(); Measured > 0 && Largest > Measured)
    Note("the largest message, " + std::to_string(Largest) +
         " bytes, is larger than any probe-comm measured (" + std::to_string(Measured) +
         "): larger messages are extrapolated along the last octave of sizes, across any cache "
         "or protocol step above it; run probe-comm --max-size " +
         std::to_string(Largest) + " to measure them");
  if (PackedCopies && Link.hasCopyTable() && !Link.hasPackedCopyTables())
    Note("no memory_copy_packed tables (a probe-comm before them): the " +
         std::to_string(PackedCopies) +
         " local copies of own blocks with gaps cost what a memcpy of their size does; run "
         "probe-comm again");
  if (R.Messages > 0 && !Link.hasExchangeTable())
    Note("no exchange table (a probe-comm before it): a rank's simultaneous transfers within a "
         "node stream as if each were alone; run probe-comm again");
  if (Packed && !Link.hasPackedTables())
    Note("no packed tables (a probe-comm before them): the " + std::to_string(Packed) +
         " sends and receives of non-contiguous datatypes cost what contiguous messages of "
         "their size do; run probe-comm again");
  else if (Packed && !Link.hasUnpackedTables())
    Note("no unpacked tables (a probe-comm before them): of the " + std::to_string(Packed) +
         " sends and receives of non-contiguous datatypes, a message with gaps on both sides "
         "costs one side's packing, and one received into gaps costs what packing it would; "
         "run probe-comm again");
  if (!Compute.fallbacks().empty()) {
    const auto &[Rank, Block] = Compute.fallbacks().front();
    Diags.warning({Opt["--machine"], 0, 0},
                  std::to_string(Compute.fallbacks().size()) +
                      " (rank, block) pairs ran in the trace but not in the timing probe, e.g. "
                      "rank " +
                      std::to_string(Rank) + " block " + formatBlock(Block) +
                      "; they take the mean time of the ranks that ran them, or of the "
                      "segments ending at the same call (the program is nondeterministic)",
                  "estimate");
  }
  if (!Compute.segmentFallbacks().empty()) {
    const auto &[Rank, From, To] = Compute.segmentFallbacks().front();
    Diags.warning({Opt["--machine"], 0, 0},
                  std::to_string(Compute.segmentFallbacks().size()) +
                      " (rank, segment) pairs ran in the trace but not in the timing probe, e.g. "
                      "rank " +
                      std::to_string(Rank) + " segment " + formatBlock(From) + " -> " +
                      formatBlock(To) +
                      "; they take the mean time of the ranks that ran them, or of the "
                      "segments ending at the same call (the program is nondeterministic)",
                  "estimate");
  }
  if (R.NondeterministicReceives) {
    Diags.warning(Tool,
                  std::to_string(R.NondeterministicReceives) +
                      " wildcard receives are predicted to match another message than the "
                      "recorded run: the program is nondeterministic",
                  "estimate");
    for (const std::string &N : R.NondeterminismNotes)
      Diags.note(Tool, N, "estimate");
    if (Farm)
      Diags.note(Tool,
                 "the task farm of rank " + std::to_string(Farm->Setup.Master) +
                     " was re-simulated: its " + std::to_string(Farm->Setup.Costs.size()) +
                     " tasks go to whichever worker returns first in predicted time",
                 "estimate");
  }

  // The cost of the prediction, when both probes' wall times are known.
  PredictionCost Cost;
  if (Opt.count("--probe-seconds")) {
    if (!parseProbeSeconds(Opt["--probe-seconds"], Cost)) {
      Diags.error(Tool,
                  "--probe-seconds '" + Opt["--probe-seconds"] +
                      "': two numbers of seconds >= 0, TRACE,TIMING",
                  "usage");
      return 1;
    }
  } else {
    const std::string RunPath = Opt["--program"] + "/probe.yaml";
    ProbeRun Run;
    std::ostringstream Ignored; // optional: a directory put together by hand may lack it
    DiagnosticSink Quiet(Ignored);
    if (std::ifstream(RunPath) && loadProbeRun(RunPath, Run, Quiet))
      Cost.Trace = Run.WallSeconds;
    if (Data.MachineProv.ProbeSeconds > 0)
      Cost.Timing = Data.MachineProv.ProbeSeconds;
  }

  ReportOptions RO;
  std::map<BlockId, std::string> Where = blockDescriptions(Blocks.Map);
  RO.DescribeSegment = [&Names](BlockId From, BlockId To) { return Names.segment(From, To); };
  RO.Describe = [&Where](BlockId B) -> std::string {
    if (isReservedBlock(B)) {
      std::string Routine = uninstrumentedRoutine(B);
      return Routine.empty() ? "MPI call from uninstrumented code" : Routine + " (uninstrumented)";
    }
    auto It = Where.find(B);
    return It == Where.end() ? std::string() : It->second;
  };
  RO.CappedLoops = Data.MachineProv.CappedLoops;
  RO.SampleCap = Data.MachineProv.SampleCap;
  RO.SampleStride = Data.MachineProv.SampleStride;
  RO.SampledLoops = Data.MachineProv.SampledLoops;
  RO.SampledSeconds = Data.MachineProv.SampledSeconds;
  RO.Provenance = {{"program", Opt["--program"]},
                   {"machine", Opt["--machine"]},
                   {"network", Opt["--network"]},
                   {"network_model", ModelName}};
  if (Net->endpointCapacity() > 0) { // docs/estimator.md, "Contention"
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%.3g", Link.exchangeShare());
    RO.Provenance.emplace_back("exchange_share", Buf);
    std::snprintf(Buf, sizeof Buf, "%.3g", Link.packedExchangeShare());
    RO.Provenance.emplace_back("packed_exchange_share", Buf);
  }
  if (!Recorded.empty()) // the replay took the recorded wildcard matches (warned above)
    RO.Provenance.emplace_back("wildcard_matches", "recorded");
  const double Predicted = R.predictedSeconds();
  char CostLine[256] = "";
  if (Cost.known()) {
    const double Total = Cost.Trace + Cost.Timing;
    for (auto [Key, V] : {std::pair{"trace_probe_seconds", Cost.Trace},
                          {"timing_probe_seconds", Cost.Timing},
                          {"prediction_cost_ratio", Predicted > 0 ? Total / Predicted : 0.0}}) {
      char Buf[32];
      std::snprintf(Buf, sizeof Buf, "%.6g", V);
      RO.Provenance.emplace_back(Key, Buf);
    }
    std::snprintf(CostLine, sizeof CostLine,
                  "cost of prediction: trace probe %.3g s + timing probe %.3g s = %.3g s, %.3g "
                  "times the predicted run time\n",
                  Cost.Trace, Cost.Timing, Total, Predicted > 0 ? Total / Predicted : 0.0);
  }
  std::ofstream OutFile;
  std::ostream *OS = openOutput(Opt.count("-o") ? &Opt["-o"] : nullptr, OutFile, "output", Diags);
  if (!OS)
    return 1;
  const bool Runs = !Data.RunComputeSeconds.empty();
  if (Farm || Runs) {
    RO.ExtraYaml = [&](std::ostream &Out) {
      if (Farm)
        farm::writeFarmYaml(Out, *Farm);
      if (Runs)
        writeTimingRunsYaml(Out, Data);
    };
    RO.ExtraJson = [&](std::ostream &Out) {
      if (Farm)
        farm::writeFarmJson(Out, *Farm);
      if (Farm && Runs)
        Out << ",\n";
      if (Runs)
        writeTimingRunsJson(Out, Data);
    };
  }
  if (Format == "yaml") {
    writeYaml(*OS, R, RO);
  } else if (Format == "json") {
    writeJson(*OS, R, RO);
  } else {
    writeText(*OS, R, RO);
    if (Farm)
      farm::writeFarmText(*OS, *Farm);
  }
  if (Format == "text") {
    *OS << CostLine;
    if (Runs)
      writeTimingRunsText(*OS, Data);
  }
  return 0;
}

} // namespace mpiete
