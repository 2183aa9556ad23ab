// `mpiete whatif`: where to fix a program and what the fix buys (seed 003), on the base data
// of `mpiete estimate`: replays under assumptions, suggestions, critical path, F3 bounds.
#include "CommandUtil.h"

#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/ProgramBlocks.h"
#include "mpiete/estimator/RecordedMatches.h"
#include "mpiete/estimator/Timeline.h"
#include "mpiete/export/Otf2Writer.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/whatif/Analysis.h"

#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>

namespace mpiete {

namespace {

using namespace estimator;
using namespace whatif;

/// Forwards to a timeline but keeps it open after the replay, for the critical path's marks.
class HeldTimeline : public TimelineSink {
public:
  explicit HeldTimeline(TimelineSink &T) : T(T) {}
  void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) override {
    T.span(Rank, Kind, Block, Begin, End);
  }
  // Arrows and marks pass through to the writer (ChromeTraceWriter draws them as flow events
  // and highlighted slices); only finish() is held.
  void message(const MessageArrow &M) override { T.message(M); }
  void highlight(int Rank, TimeNs Begin, TimeNs End, std::string_view Label) override {
    T.highlight(Rank, Begin, End, Label);
  }

private:
  TimelineSink &T;
};

std::optional<double> factor(const std::string &Text) {
  try {
    size_t Used = 0;
    double F = std::stod(Text, &Used);
    if (Used == Text.size() && F >= 0)
      return F;
  } catch (...) {
  }
  return std::nullopt;
}

/// rank=R,peer=P,tag=T,site=SITE (any subset) as a message set; nullopt if malformed.
template <typename SiteFn>
std::optional<MessageSet> parseMessageSet(const std::string &Spec, SiteFn &&Site) {
  MessageSet M;
  size_t Pos = 0;
  while (Pos <= Spec.size()) {
    size_t Comma = Spec.find(',', Pos);
    std::string Item =
        Spec.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    size_t Eq = Item.find('=');
    if (Eq == std::string::npos)
      return std::nullopt;
    std::string Key = Item.substr(0, Eq), Value = Item.substr(Eq + 1);
    if (Key == "site") {
      std::optional<BlockId> B = Site(Value);
      if (!B)
        return std::nullopt;
      M.Site = *B;
    } else {
      std::optional<double> N = factor(Value);
      if (!N || *N != double(int(*N)))
        return std::nullopt;
      if (Key == "rank")
        M.Rank = int(*N);
      else if (Key == "peer")
        M.Peer = int(*N);
      else if (Key == "tag")
        M.Tag = int(*N);
      else
        return std::nullopt;
    }
    if (Comma == std::string::npos)
      break;
    Pos = Comma + 1;
  }
  return M;
}

/// A replay matching wildcard receives by earliest predicted arrival blocked (docs/estimator.md,
/// RecordedMatches.h): runWhatIf starts over with every replay taking the recorded matches, so
/// that the replays it compares follow one rule.
struct ReplayWithRecordedMatches {};

/// Shown collects the diagnostics printed; the run that starts over prints each only once.
int runWhatIfOnce(const CommandArgs &Args, bool FollowRecorded,
                  std::unordered_set<std::string> &Shown);

} // namespace

int runWhatIf(const CommandArgs &Args) {
  std::unordered_set<std::string> Shown;
  try {
    return runWhatIfOnce(Args, false, Shown);
  } catch (const ReplayWithRecordedMatches &) {
  }
  DiagnosticSink Diags(std::cerr);
  Diags.warning({"mpiete whatif", 0, 0},
                "a replay matching each wildcard receive with the earliest predicted arrival "
                "left ranks blocked, where the trace's calls after the receive follow the "
                "message the recorded run matched: every replay takes the recorded matches",
                "whatif");
  return runWhatIfOnce(Args, true, Shown);
}

namespace {

int runWhatIfOnce(const CommandArgs &Args, bool FollowRecorded,
                  std::unordered_set<std::string> &Shown) {
  DiagnosticSink Diags(std::cerr);
  Diags.recordLines(Shown, FollowRecorded);
  const DiagLoc Tool{"mpiete whatif", 0, 0};
  CommandLine C(
      "whatif",
      "usage: mpiete whatif --program DIR --machine machine.yaml --network network.yaml\n"
      "                     [--cluster cluster.yaml] [--model table|loggps] [--step SITE]\n"
      "                     [assumptions...] [--format text|yaml|json] [-o FILE]\n"
      "                     [--timeline-before F.json] [--timeline-after F.json]\n"
      "                     [--otf2-before DIR] [--otf2-after DIR]\n"
      "                     [--region START,END] [--region-start START] [--region-end END]",
      "What to fix (seed 003, PerWiz): replays the base data of `mpiete estimate` under\n"
      "assumptions and ranks suggestions by the predicted time after each: the domino path\n"
      "(waits whose removal shortens the run most), wait sites, the parallel step or segment\n"
      "whose balancing helps most, kernels on the critical path made faster, and the F3 upper\n"
      "bound (sum of times, no waits; labelled as a bound). Given assumptions, it also predicts\n"
      "that combination (F2) and its F3 bound. A SITE is FILE:LINE of an MPI call or a block\n"
      "id; with --step SITE each execution of that call closes a parallel step\n"
      "(docs/whatif.md). --region bounds the analysis like `mpiete estimate --region`\n"
      "(every instance): only the region is recorded, so a long run is analysed on a part.",
      "  mpiete whatif --program traces/ --machine machine.yaml --network network.yaml\n"
      "  mpiete whatif --program traces/ --machine machine.yaml --network network.yaml "
      "--step main.c:120 --balance-step all --format yaml\n"
      "  mpiete whatif --program traces/ --machine m.yaml --network n.yaml --zero-wait-site "
      "wave.c:96 --latency 0.5\n"
      "  mpiete whatif --program traces/ --machine m.yaml --network n.yaml --step main.c:120 "
      "--zero-wait-messages rank=1,peer=0,tag=31 --balance-volume 3\n");
  std::map<std::string, std::string> Opt;
  C.addOptions(
      Opt,
      {{"--program", "DIR", "the program base data: rank<N>.trace (required)"},
       {"--machine", "FILE", "the compute base data (required)"},
       {"--network", "FILE", "the communication base data (required)"},
       {"--cluster", "FILE", "nodes, ranks per node, their machines and networks"},
       {"--model", "table|loggps", "the network model (default table)"},
       {"--format", "text|yaml|json", "the report's format (default text)"},
       {"-o", "FILE", "write the report there (default: standard output)"},
       {"--step", "SITE", "each execution of this MPI call closes a parallel step"},
       {"--zero-wait", "RANK:RECORD", "assume no wait at this completion record of a rank"},
       {"--zero-wait-site", "SITE", "assume no wait at any completion of this call"},
       {"--scale", "SITE=F",
        "compute ending at this call takes F times as long (0.5: twice as "
        "fast, 0: free)"},
       {"--balance-step", "N|all",
        "the compute of step N (from 1), or of every step, "
        "equal across ranks (the mean; needs --step)"},
       {"--zero-wait-messages", "rank=R,peer=P,tag=T,site=SITE",
        "assume no wait for these messages (any subset of the keys; rank: the waiting rank, "
        "peer: its partner)"},
       {"--balance-volume", "N|all",
        "the bytes each rank sends in step N (from 1) or in every step (with --step; "
        "without: over the run) equal across ranks (the mean)"},
       {"--balance-segment", "FROM,TO",
        "the compute between these two calls equal across "
        "ranks over the whole run (FROM '*': every computation ending at TO)"},
       {"--latency", "F", "network latency scaled by F"},
       {"--bandwidth", "F", "network bandwidth scaled by F"},
       {"--overhead", "F", "send and receive start overheads scaled by F"},
       {"--eager-limit", "BYTES", "the eager/rendezvous threshold moved to BYTES"},
       {"--region", "START,END",
        "analyse from START to END only (call sites; every instance of the region)"},
       {"--region-start", "START", "analyse from START (a block id or FILE:LINE)"},
       {"--region-end", "END", "analyse to END (a block id or FILE:LINE)"},
       {"--timeline-before", "FILE", "the predicted run's timeline, critical path marked"},
       {"--timeline-after", "FILE",
        "the timeline under the assumptions (without any: under "
        "the first suggestion)"},
       {"--otf2-before", "DIR",
        "the predicted run as an OTF2 archive DIR/traces.otf2 (Vampir, otf2-print)"},
       {"--otf2-after", "DIR", "the run under the assumptions (as --timeline-after) as OTF2"}});
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  if (!C.requireOptions({"--program", "--machine", "--network"}, Diags, Tool))
    return 1;
  auto usage = [&](const std::string &Message) {
    Diags.error(Tool, Message, "usage");
    return 1;
  };
  std::string Format = Opt.count("--format") ? Opt["--format"] : "text";
  std::string ModelName = Opt.count("--model") ? Opt["--model"] : "table";
  if (Format != "text" && Format != "yaml" && Format != "json")
    return usage("unknown format '" + Format + "' (text, yaml or json)");
  if (ModelName != "table" && ModelName != "loggps")
    return usage("unknown network model '" + ModelName + "' (table or loggps)");
  NetworkModelKind Kind = ModelName == "table" ? NetworkModelKind::Table : NetworkModelKind::LogGPS;

  const ProgramBlockMap Blocks = loadProgramBlockMap(Opt["--program"], Diags);
  if (!Blocks.Ok)
    return 1;
  LoadedBaseData Data;
  if (!loadBaseData(Opt["--program"], Opt["--machine"], Opt["--network"],
                    Opt.count("--cluster") ? Opt["--cluster"] : "", Kind, Diags, Data))
    return 1;
  const int Ranks = int(Data.Traces.size());
  // Every call-start record is checked against the block map, as estimate does (issue 14).
  const CallSites Sites = Blocks.Present ? CallSites::fromBlockMap(Blocks.Map) : CallSites{};
  const CallSites *Check = Blocks.Present ? &Sites : nullptr;
  auto site = [&](const std::string &Spec) { return regionBlock(Spec, true, Blocks, Diags); };
  // A call's waits are charged to its last block (a blocking MPI_Recv: the start, then the
  // wait), its compute ends at its first.
  auto waitSite = [&](const std::string &Spec) { return regionBlock(Spec, false, Blocks, Diags); };
  // The region, as `mpiete estimate` bounds it: every replay predicts (and the base run
  // records) only what runs inside it; the step map and the message index still cover the run.
  std::optional<BlockId> RegionStart, RegionEnd;
  if (Opt.count("--region")) {
    const std::string &V = Opt["--region"];
    size_t Comma = V.find(',');
    if (Comma == std::string::npos || Opt.count("--region-start") || Opt.count("--region-end"))
      return usage("--region takes START,END (and replaces --region-start/--region-end)");
    Opt["--region-start"] = V.substr(0, Comma);
    Opt["--region-end"] = V.substr(Comma + 1);
  }
  for (auto [Key, Field, IsStart] : {std::tuple{"--region-start", &RegionStart, true},
                                     std::tuple{"--region-end", &RegionEnd, false}}) {
    if (!Opt.count(Key))
      continue;
    *Field = regionBlock(Opt[Key], IsStart, Blocks, Diags);
    if (!*Field)
      return 1;
  }

  // Each replay reads the traces afresh.
  auto openSources = [&](std::vector<std::unique_ptr<TraceEventSource>> &Own,
                         std::vector<EventSource *> &Src) {
    if (!openTraceDirectory(Opt["--program"], Diags, Own))
      return false;
    for (auto &T : Own) {
      T->setEmitSegments(true);
      T->setCallSites(Check);
      Src.push_back(T.get());
    }
    return true;
  };
  // The first pass over the traces (the step map or the message index) reads the sources
  // loadBaseData opened, unread so far; each later pass opens the directory again.
  bool BaseTracesRead = false;
  auto sourcesForPass = [&](std::vector<std::unique_ptr<TraceEventSource>> &Own,
                            std::vector<EventSource *> &Src) {
    if (BaseTracesRead)
      return openSources(Own, Src);
    BaseTracesRead = true;
    for (auto &T : Data.Traces) {
      T->setEmitSegments(true);
      T->setCallSites(Check);
      Src.push_back(T.get());
    }
    return true;
  };
  // A scenario changing message volumes rewrites the streams' sends on the way in.
  auto withScenario = [&](const Scenario *S, std::vector<EventSource *> &Src,
                          std::vector<std::unique_ptr<ScenarioSource>> &Wrapped) {
    if (!S || S->VolumeFactors.empty())
      return;
    for (size_t R = 0; R < Src.size(); ++R) {
      Wrapped.push_back(std::make_unique<ScenarioSource>(*Src[R], int(R), *S));
      Src[R] = Wrapped.back().get();
    }
  };
  auto replayWith = [&](const Scenario *S, RunRecorder *Rec, TimelineSink *TL) -> ReplayOutcome {
    std::vector<std::unique_ptr<TraceEventSource>> Own;
    std::vector<EventSource *> Src;
    if (!openSources(Own, Src))
      return {false, 0, "cannot open the traces"};
    std::vector<std::unique_ptr<RecordedMatchSource>> Recorded;
    if (FollowRecorded)
      for (EventSource *&Inner : Src) {
        Recorded.push_back(std::make_unique<RecordedMatchSource>(*Inner));
        Inner = Recorded.back().get();
      }
    std::vector<std::unique_ptr<ScenarioSource>> Wrapped;
    withScenario(S, Src, Wrapped);
    std::unique_ptr<ScenarioAssumptions> As;
    std::unique_ptr<ScaledNetworkModel> Scaled;
    EngineOptions EO;
    EO.RegionStart = RegionStart;
    EO.RegionEnd = RegionEnd;
    EO.Observer = Rec;
    EO.Timeline = TL;
    if (S) {
      As = std::make_unique<ScenarioAssumptions>(*S);
      EO.Assume = As.get();
      EO.AllowLargerMessages = !S->VolumeFactors.empty();
      if (S->Net.any())
        Scaled = std::make_unique<ScaledNetworkModel>(*Data.Net, S->Net);
    }
    Engine E(Data.Compute, Scaled ? static_cast<const NetworkModel &>(*Scaled) : *Data.Net, EO);
    EstimateResult R = E.run(Src);
    if (!FollowRecorded && R.stuckOnWildcards())
      throw ReplayWithRecordedMatches{};
    return {R.Ok, R.Predicted, R.Errors.empty() ? "" : R.Errors.front().Message};
  };
  Replayer Replay = [&](const Scenario *S, RunRecorder *Rec) {
    return replayWith(S, Rec, nullptr);
  };

  StepMap Steps;
  if (Opt.count("--step")) {
    std::optional<BlockId> B = site(Opt["--step"]);
    if (!B)
      return 1;
    std::vector<std::unique_ptr<TraceEventSource>> Own;
    std::vector<EventSource *> Src;
    if (!sourcesForPass(Own, Src))
      return 1;
    Steps = buildStepMap(Src, *B);
    if (Steps.steps() == 0)
      return usage("--step '" + Opt["--step"] + "' never executes in the traces");
  }

  // Who sends what to whom: message sets and message-volume balancing.
  MessageIndex Messages;
  {
    std::vector<std::unique_ptr<TraceEventSource>> Own;
    std::vector<EventSource *> Src;
    if (!sourcesForPass(Own, Src))
      return 1;
    Messages = buildMessageIndex(Src);
  }

  // The user's assumptions (F2), combined.
  Scenario User;
  std::vector<std::string> Said;
  if (Opt.count("--zero-wait")) {
    const std::string &V = Opt["--zero-wait"];
    size_t Colon = V.find(':');
    if (Colon == std::string::npos)
      return usage("--zero-wait takes RANK:RECORD (mpiete trace dump numbers the records)");
    User.ZeroWaitEvents.insert({std::stoi(V.substr(0, Colon)), std::stoull(V.substr(Colon + 1))});
    Said.push_back("no wait at rank " + V);
  }
  if (Opt.count("--zero-wait-site")) {
    std::optional<BlockId> B = waitSite(Opt["--zero-wait-site"]);
    if (!B)
      return 1;
    User.ZeroWaitSites.insert(*B);
    Said.push_back("no wait at " + Opt["--zero-wait-site"]);
  }
  if (Opt.count("--zero-wait-messages")) {
    std::optional<MessageSet> M = parseMessageSet(Opt["--zero-wait-messages"], waitSite);
    if (!M)
      return usage("--zero-wait-messages takes KEY=VALUE pairs separated by commas: rank=R "
                   "(the waiting rank), peer=P, tag=T, site=SITE (e.g. rank=1,peer=0,tag=31)");
    User.ZeroWaitMessages.push_back(*M);
    User.Messages = &Messages;
    Said.push_back("no wait for messages " + Opt["--zero-wait-messages"]);
  }
  if (Opt.count("--scale")) {
    const std::string &V = Opt["--scale"];
    size_t Eq = V.rfind('=');
    std::optional<double> F = Eq == std::string::npos ? std::nullopt : factor(V.substr(Eq + 1));
    if (!F)
      return usage("--scale takes SITE=FACTOR (e.g. main.c:42=0.5)");
    std::optional<BlockId> B = site(V.substr(0, Eq));
    if (!B)
      return 1;
    User.Scales.push_back({0, *B, *F});
    Said.push_back("compute ending at " + V.substr(0, Eq) + " x" + V.substr(Eq + 1));
  }
  for (auto [Key, Field] :
       {std::pair{"--latency", &User.Net.Latency}, std::pair{"--bandwidth", &User.Net.Bandwidth},
        std::pair{"--overhead", &User.Net.Overhead}}) {
    if (!Opt.count(Key))
      continue;
    std::optional<double> F = factor(Opt[Key]);
    if (!F || (*F == 0 && std::string(Key) == "--bandwidth"))
      return usage(std::string(Key) + " takes a factor (e.g. 0.5)");
    *Field = *F;
    Said.push_back(std::string(Key).substr(2) + " x" + Opt[Key]);
  }
  if (Opt.count("--eager-limit")) {
    std::optional<uint64_t> N = parseByteCount(Opt["--eager-limit"]);
    if (!N)
      return usage("--eager-limit takes a byte count");
    User.Net.EagerLimit = *N;
    Said.push_back("eager limit " + Opt["--eager-limit"]);
  }
  // Balancing needs the base run's compute per rank: recorded once here.
  RunRecorder BaseRun(Ranks);
  if (Opt.count("--balance-step") || Opt.count("--balance-segment")) {
    ReplayOutcome B = Replay(nullptr, &BaseRun);
    if (!B.Ok)
      return commandError(B.Error);
  }
  if (Opt.count("--balance-step")) {
    if (!Opt.count("--step"))
      return usage("--balance-step needs --step SITE (what a parallel step is)");
    const std::string &V = Opt["--balance-step"];
    std::optional<size_t> K;
    if (V != "all") {
      std::optional<double> N = factor(V);
      if (!N || *N < 1 || size_t(*N) > Steps.steps())
        return usage("--balance-step '" + V + "': all or a step from 1 to " +
                     std::to_string(Steps.steps()));
      K = size_t(*N) - 1;
    }
    User.merge(balanceSteps(BaseRun, Steps, K));
    Said.push_back(V == "all" ? "every step balanced" : "step " + V + " balanced");
  }
  if (Opt.count("--balance-volume")) {
    const std::string &V = Opt["--balance-volume"];
    std::optional<size_t> K;
    const StepMap *SM = Opt.count("--step") ? &Steps : nullptr;
    if (V != "all") {
      std::optional<double> N = factor(V);
      if (!SM || !N || *N < 1 || size_t(*N) > Steps.steps())
        return usage("--balance-volume '" + V + "': all, or a step from 1 to the number of " +
                     "steps with --step");
      K = size_t(*N) - 1;
    }
    User.merge(balanceVolume(Messages, SM, K));
    Said.push_back(V == "all" ? "message volume balanced"
                              : "message volume of step " + V + " balanced");
  }
  if (Opt.count("--balance-segment")) {
    const std::string &V = Opt["--balance-segment"];
    size_t Comma = V.find(',');
    if (Comma == std::string::npos)
      return usage("--balance-segment takes FROM,TO (two call sites)");
    // FROM '*': every computation ending at TO, whatever call it starts after.
    std::optional<BlockId> F = V.substr(0, Comma) == "*" ? BlockId(0) : site(V.substr(0, Comma)),
                           T = site(V.substr(Comma + 1));
    if (!F || !T)
      return 1;
    User.merge(balanceSegment(BaseRun, *F, *T));
    Said.push_back("segment " + V + " balanced");
  }

  SiteNames Names;
  Names.load(Blocks.Map);
  AnalysisOptions AO;
  AO.Steps = Opt.count("--step") ? &Steps : nullptr;
  AO.Messages = &Messages;
  AO.Site = [&](BlockId B) { return Names.site(B); };
  AO.Segment = [&](BlockId F, BlockId T) { return Names.segment(F, T); };
  Analysis A = analyze(Replay, Ranks, AO);
  if (!A.Ok)
    return commandError("the base data does not replay: " + A.Error);

  WhatIfReport Rep;
  const std::string Command = joinArgs("whatif", Args);
  Rep.Provenance = {{"tool", "mpiete whatif"},     {"version", MPIETE_VERSION},
                    {"command", Command},          {"program", Opt["--program"]},
                    {"machine", Opt["--machine"]}, {"network", Opt["--network"]}};
  if (FollowRecorded)
    Rep.Provenance.emplace_back("wildcard_matches", "recorded");
  Rep.F1 = &A;
  if (!User.empty()) {
    ReplayOutcome O = Replay(&User, nullptr);
    if (!O.Ok)
      return commandError("the assumptions do not replay: " + O.Error);
    std::string Label;
    for (const std::string &S : Said)
      Label += (Label.empty() ? "" : " + ") + S;
    Rep.ScenarioLabel = Label;
    Rep.ScenarioPredicted = O.Predicted;
    if (BaseRun.empty())
      Replay(nullptr, &BaseRun);
    Rep.ScenarioBound = sumOfTimesBound(BaseRun, User);
  }

  // Timelines: before (critical path marked) and after, as Chrome/Perfetto JSON or OTF2.
  auto replayInto = [&](TimelineSink &W, const Scenario *S) {
    HeldTimeline H(W);
    RunRecorder Rec(Ranks);
    ReplayOutcome O = replayWith(S, &Rec, &H);
    for (const PathStep &P : criticalPath(Rec).Steps)
      W.highlight(P.At.Rank, P.At.End - P.Seconds, P.At.End, "critical path");
    W.finish();
    return O.Ok;
  };
  auto writeTimeline = [&](const std::string &Path, const Scenario *S) {
    std::ofstream F(Path);
    if (!F) {
      Diags.error({Path, 0, 0}, "cannot write the timeline", "io");
      return false;
    }
    ChromeTraceWriter W(F, Ranks);
    return replayInto(W, S);
  };
  auto writeOtf2 = [&](const std::string &Dir, const Scenario *S) {
    exporter::Otf2Writer W(Dir, Ranks, [&Names](BlockId B) { return Names.site(B); });
    const bool Ok = replayInto(W, S);
    if (!W.error().empty()) {
      Diags.error({Dir, 0, 0}, W.error(), "io");
      return false;
    }
    return Ok;
  };
  if (Opt.count("--timeline-before") && !writeTimeline(Opt["--timeline-before"], nullptr))
    return 1;
  if (Opt.count("--otf2-before") && !writeOtf2(Opt["--otf2-before"], nullptr))
    return 1;
  const Scenario *After = !User.empty() ? &User
                          : !A.Suggestions.empty() && !A.Suggestions.front().Bound
                              ? &A.Suggestions.front().Assume
                              : nullptr;
  if (Opt.count("--timeline-after") && !writeTimeline(Opt["--timeline-after"], After))
    return 1;
  if (Opt.count("--otf2-after") && !writeOtf2(Opt["--otf2-after"], After))
    return 1;

  std::ofstream OutFile;
  std::ostream *OS = openOutput(Opt.count("-o") ? &Opt["-o"] : nullptr, OutFile, "output", Diags);
  if (!OS)
    return 1;
  if (Format == "yaml")
    writeWhatIfYaml(*OS, Rep);
  else if (Format == "json")
    writeWhatIfJson(*OS, Rep);
  else
    writeWhatIfText(*OS, Rep);
  return 0;
}

} // namespace

} // namespace mpiete
