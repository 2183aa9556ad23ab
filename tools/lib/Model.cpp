// `mpiete model` (scaling models from base data at several rank counts and sizes) and the
// extrapolated replay behind `mpiete estimate --model --ranks N [--size W]`.
#include "Model.h"
#include "CommandUtil.h"
#include "MachineLoad.h"

#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/estimator/BaseData.h"
#include "mpiete/estimator/Cluster.h"
#include "mpiete/estimator/Engine.h"
#include "mpiete/estimator/ProgramBlocks.h"
#include "mpiete/estimator/Report.h"
#include "mpiete/scaling/BestConfig.h"
#include "mpiete/scaling/Caches.h"
#include "mpiete/scaling/CollSim.h"
#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ComputeFit.h"
#include "mpiete/scaling/ModelFile.h"
#include "mpiete/scaling/Surface.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/trace/TraceReader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace mpiete {

using namespace estimator;
using namespace scaling;

namespace {

/// A trace's events from T (open), Segment events included (as the engine sees them), Waitany
/// loops' completions in start order.
bool drainEvents(TraceEventSource &T, std::vector<Event> &Out) {
  Out.clear();
  T.setEmitSegments(true);
  Event E;
  while (T.next(E))
    Out.push_back(E);
  if (T.failed())
    return false;
  canonicaliseCompletionOrder(Out);
  return true;
}

/// Rank R's events of the trace directory Dir (drainEvents).
bool readRankEvents(const std::string &Dir, int R, DiagnosticSink &Diags, std::vector<Event> &Out) {
  TraceEventSource T(Diags);
  return T.open((std::filesystem::path(Dir) / ("rank" + std::to_string(R) + ".trace")).string()) &&
         drainEvents(T, Out);
}

/// Every rank's events of one run. With Hold they are kept in Out.PerRank; without, each is read
/// once here (every error reported now) and again whenever the learner passes over it
/// (Out.Load): linesweep's base runs held 4.4 GB of events and their items at once.
bool readRun(const ModelRun &Run, DiagnosticSink &Diags, MeasuredRun &Out, bool Hold = true) {
  std::vector<std::unique_ptr<TraceEventSource>> Traces;
  if (!openTraceDirectory(Run.Program, Diags, Traces))
    return false;
  if (int(Traces.size()) != Run.Ranks) {
    Diags.error({Run.Program, 0, 0},
                "holds traces of " + std::to_string(Traces.size()) + " ranks, the run says " +
                    std::to_string(Run.Ranks),
                "model");
    return false;
  }
  Out = {Run.Ranks, Run.Size, {}, {}, {}, {}};
  std::vector<Event> Events;
  for (auto &T : Traces) {
    if (!drainEvents(*T, Events))
      return false;
    if (Hold)
      Out.PerRank.push_back(std::move(Events));
  }
  Traces.clear();
  if (!Hold)
    Out.Load = [Dir = Run.Program, &Diags](int R, std::vector<Event> &Events) {
      return readRankEvents(Dir, R, Diags, Events);
    };
  // The Collective records (kind, root, bytes), which the event stream leaves out.
  for (int R = 0; R < Run.Ranks; ++R) {
    trace::TraceReader Reader(Diags);
    if (!Reader.open((std::filesystem::path(Run.Program) / ("rank" + std::to_string(R) + ".trace"))
                         .string()))
      return false;
    Out.Colls.emplace_back();
    Out.Comms.emplace_back();
    trace::Record Rec;
    std::set<uint64_t> WorldGroups = {0}; // communicators holding every rank in world order
    std::vector<int32_t> World(size_t(Run.Ranks));
    for (int I = 0; I < Run.Ranks; ++I)
      World[size_t(I)] = I;
    while (Reader.next(Rec)) {
      if (Rec.Kind == trace::RecordKind::CommCreate && Rec.HasNew && Rec.Members == World)
        WorldGroups.insert(Rec.NewComm);
      if (Rec.Kind == trace::RecordKind::CommCreate && Rec.HasNew) // members: a sub-communicator
        Out.Comms.back().push_back({Rec.Block, Rec.Parent, Rec.NewComm, Rec.Members});
      if (Rec.Kind == trace::RecordKind::Collective)
        Out.Colls.back().push_back(
            {Rec.Block, Rec.Coll, Rec.Comm, WorldGroups.count(Rec.Comm) > 0, Rec.Root, Rec.Bytes});
    }
    if (!Reader.ok())
      return false;
  }
  return true;
}

/// RANKS:SIZE:DIR:MACHINE[,REPEAT...]
bool parseRun(const std::string &Text, ModelRun &Out) {
  std::vector<std::string> Parts;
  size_t Start = 0;
  for (int K = 0; K < 3; ++K) {
    const size_t Colon = Text.find(':', Start);
    if (Colon == std::string::npos)
      return false;
    Parts.push_back(Text.substr(Start, Colon - Start));
    Start = Colon + 1;
  }
  Parts.push_back(Text.substr(Start));
  try {
    Out.Ranks = std::stoi(Parts[0]);
    Out.Size = std::stod(Parts[1]);
  } catch (...) {
    return false;
  }
  Out.Program = Parts[2];
  // MACHINE[,REPEAT...]: the value's machine file, then repeated timing runs (their spread).
  std::vector<std::string> Files;
  for (size_t From = 0;;) {
    const size_t Comma = Parts[3].find(',', From);
    Files.push_back(Parts[3].substr(From, Comma - From));
    if (Comma == std::string::npos)
      break;
    From = Comma + 1;
  }
  Out.Machine = Files.front();
  Out.Repeats.assign(Files.begin() + 1, Files.end());
  return Out.Ranks > 0 && Out.Size > 0 && !Out.Program.empty() &&
         std::none_of(Files.begin(), Files.end(), [](const std::string &F) { return F.empty(); });
}

std::string number(double V) {
  std::ostringstream S;
  S.precision(6);
  S << V;
  return S.str();
}

/// Generates every rank of Measured's size and compares with its trace: per rank the number of
/// events, the message peers and bytes, and the events themselves. Prints one summary line.
bool checkRun(const CommStructure &S, const MeasuredRun &Measured, std::ostream &OS) {
  int SameRanks = 0, SameCounts = 0, SamePeersBytes = 0;
  uint64_t Generated = 0, Recorded = 0;
  std::string First;
  Event E;
  for (int R = 0; R < Measured.Ranks; ++R) {
    SyntheticEventSource Gen(S, R, Measured.Ranks, Measured.Size);
    std::vector<Event> Got;
    while (Gen.next(E))
      Got.push_back(E);
    std::vector<Event> Want = Measured.PerRank[size_t(R)];
    for (Event &W : Want)
      normaliseEvent(W);
    Generated += Got.size();
    Recorded += Want.size();
    auto Summary = [](const std::vector<Event> &Es) {
      std::map<std::pair<int, int32_t>, uint64_t> M; // (kind, peer) -> bytes
      for (const Event &X : Es)
        if (X.Kind == EventKind::SendStart || X.Kind == EventKind::RecvStart)
          M[{int(X.Kind), X.Peer}] += X.Count;
      return M;
    };
    SameCounts += Got.size() == Want.size();
    SamePeersBytes += Summary(Got) == Summary(Want);
    size_t K = 0;
    while (K < Got.size() && K < Want.size() && sameEvent(Got[K], Want[K]))
      ++K;
    if (K == Got.size() && K == Want.size())
      ++SameRanks;
    else if (First.empty())
      First = "rank " + std::to_string(R) + " differs at event " + std::to_string(K) + " (" +
              formatBlock(K < Want.size() ? Want[K].Block : 0) + ")";
  }
  OS << "check " << Measured.Ranks << ": events generated " << Generated << " measured " << Recorded
     << "; ranks with equal event counts " << SameCounts << "/" << Measured.Ranks
     << ", equal peers and bytes " << SamePeersBytes << "/" << Measured.Ranks
     << ", identical traces " << SameRanks << "/" << Measured.Ranks
     << (First.empty() ? "" : "; first difference: " + First) << "\n";
  return SameRanks == Measured.Ranks;
}

} // namespace

bool learnModelStructure(const ScalingModelFile &File, DiagnosticSink &Diags, CommStructure &Out) {
  std::vector<MeasuredRun> Runs;
  for (const ModelRun &R : File.Runs) {
    Runs.emplace_back();
    if (!readRun(R, Diags, Runs.back(), /*Hold=*/false))
      return false;
  }
  Refusal Why;
  if (!learnStructure(Runs, Out, Why)) {
    Diags.error({"mpiete model", 0, 0}, formatBlock(Why.Site) + ": " + Why.Message, "scale");
    return false;
  }
  return true;
}

int runModel(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete model", 0, 0};
  CommandLine C("model", "usage: mpiete model --run RANKS:SIZE:TRACEDIR:MACHINE... -o model.yaml",
                "Fits scaling models from base data at several rank counts and problem sizes:\n"
                "per compute segment a normal-form model T(p, W) with non-negative "
                "coefficients,\nand the communication structure as functions of rank and size "
                "(refused, at the\ncall site, unless it reproduces every measured trace).",
                "  mpiete model --run 2:100:t2/:m2.yaml --run 4:100:t4/:m4.yaml --run "
                "8:100:t8/:m8.yaml -o model.yaml\n");
  std::vector<std::string> RunTexts;
  std::string Output;
  C.App
      .add_option("--run", RunTexts,
                  "a run: ranks, size, trace directory, machine.yaml, and optionally the "
                  "machine files of repeated timing runs of it after commas, whose spread is "
                  "the run's noise (a rise with the rank count within it is no growth); a "
                  "machine.yaml of probe-compute --repeat N holds that spread itself")
      ->type_name("RANKS:SIZE:DIR:MACHINE[,REPEAT...]");
  std::vector<std::string> CheckTexts;
  C.App
      .add_option("--check", CheckTexts,
                  "after learning: generate the traces of a run not used for the model and "
                  "compare them with its measured ones (exit 1 unless identical)")
      ->type_name("RANKS:SIZE:DIR");
  C.App.add_option("-o", Output, "write the model there (default: standard output)")
      ->type_name("FILE");
  std::string WsText, CachesText = "auto";
  C.App
      .add_option("--working-set", WsText,
                  "the whole problem's data in bytes as a function of the size, e.g. 16*W^2 "
                  "(split among the ranks): enables seed 001's cache steps")
      ->type_name("C*W^A");
  C.App
      .add_option("--caches", CachesText,
                  "cache sizes in bytes for the steps: auto (this machine's, from sysfs) or "
                  "a list such as 49152,2097152")
      ->type_name("auto|LIST");
  if (std::optional<int> Status = C.parseOrExit(Args, Diags, Tool))
    return *Status;
  ScalingModelFile File;
  File.Tool = std::string("mpiete ") + MPIETE_VERSION;
  File.Command = joinArgs("model", Args);
  if (!WsText.empty() && !parseWorkingSet(WsText, File.Ws)) {
    Diags.error(Tool, "--working-set '" + WsText + "': C*W^A (bytes of the whole problem)",
                "usage");
    return 1;
  }
  if (File.Ws.known()) {
    if (CachesText == "auto") {
      // The machine the compute base data are taken on is the one `mpiete model` normally
      // runs on (--caches otherwise); virtual machines often have no sysfs cache directory,
      // and the C library's CPUID reading stands in.
      const std::string Dir = "/sys/devices/system/cpu/cpu0/cache";
      File.Caches = machineCacheSizes(Dir, File.CachesFrom);
      if (File.Caches.empty())
        Diags.warning(Tool,
                      "no cache sizes in " + Dir +
                          " or from sysconf: no cache steps (give "
                          "--caches)",
                      "scale");
    } else {
      File.CachesFrom = "--caches";
      std::string Item;
      std::istringstream In(CachesText);
      while (std::getline(In, Item, ',')) {
        size_t Used = 0;
        double V = 0;
        try {
          V = std::stod(Item, &Used);
        } catch (...) {
        }
        if (Used != Item.size() || !(V > 0)) {
          Diags.error(Tool, "--caches '" + CachesText + "': auto or bytes,bytes,...", "usage");
          return 1;
        }
        File.Caches.push_back(V);
      }
      std::sort(File.Caches.begin(), File.Caches.end());
    }
  }
  for (const std::string &T : RunTexts) {
    ModelRun R;
    if (!parseRun(T, R)) {
      Diags.error(Tool, "--run '" + T + "': RANKS:SIZE:TRACEDIR:MACHINE", "usage");
      return 1;
    }
    File.Runs.push_back(R);
  }
  std::vector<int> Counts;
  for (const ModelRun &R : File.Runs)
    Counts.push_back(R.Ranks);
  std::sort(Counts.begin(), Counts.end());
  Counts.erase(std::unique(Counts.begin(), Counts.end()), Counts.end());
  if (Counts.size() < 2) {
    Diags.error(Tool, "give runs at two rank counts at least (three to select models)", "usage");
    return 1;
  }

  // Communication structure: accepted or refused at a call site (the model is written either
  // way: its compute models still answer for the measured structure).
  std::vector<MeasuredRun> Runs;
  for (const ModelRun &R : File.Runs) {
    Runs.emplace_back();
    if (!readRun(R, Diags, Runs.back(), /*Hold=*/false))
      return 1;
  }
  const ProgramBlockMap Blocks = loadProgramBlockMap(File.Runs.front().Program, Diags);
  std::map<BlockId, std::string> Where = blockDescriptions(Blocks.Map);
  auto Name = [&](BlockId B) {
    auto It = Where.find(B);
    return It == Where.end() ? formatBlock(B) : It->second;
  };
  CommStructure S;
  Refusal Why;
  {
    const ProgressTicker Tick("mpiete model: learning the communication structure of " +
                              std::to_string(Runs.size()) + " runs");
    File.StructureAccepted = learnStructure(Runs, S, Why);
  }
  if (File.StructureAccepted) {
    File.Structure = S.describe();
    File.Learnt = S;
    BlockId Site = 0;
    std::string What;
    if (boundToPowersOfTwo(S, measuredRanks(File), Site, What))
      Diags.note({Name(Site), 0, 0},
                 What + ": every run is at a power of two ranks, so the model extrapolates to "
                        "powers of two only (a base run at another rank count lifts this)",
                 "scale");
    for (const CommStructure::Ambiguity &A : S.formAmbiguities())
      Diags.note({Name(A.Site), 0, 0},
                 A.What + "; they first differ at " + std::to_string(A.PartsAt) +
                     " ranks, and the model is refused at a rank count and size where they "
                     "differ (a base run there tells them apart)",
                 "scale");
    for (const CommStructure::Ambiguity &A : S.ambiguities())
      Diags.note({Name(A.Site), 0, 0},
                 A.What +
                     ": another way of dealing the items to the ranks fits every base run "
                     "as well and gives some rank another count from " +
                     std::to_string(A.PartsAt) +
                     " ranks on (a base run there, or at a size that leaves another remainder, "
                     "tells them apart)",
                 "scale");
  } else {
    File.RefusedAt = Name(Why.Site);
    File.RefusalReason = Why.Message;
    Diags.warning({File.RefusedAt, 0, 0},
                  "the communication structure is refused for extrapolation: " + Why.Message,
                  "scale");
  }
  Runs.clear();
  bool ChecksOk = true;
  for (const std::string &T : CheckTexts) {
    ModelRun R;
    if (!parseRun(T + ":-", R)) {
      Diags.error(Tool, "--check '" + T + "': RANKS:SIZE:TRACEDIR", "usage");
      return 1;
    }
    if (!File.StructureAccepted) {
      std::cout << "check " << R.Ranks << ": refused\n";
      ChecksOk = false;
      continue;
    }
    MeasuredRun Measured;
    if (!readRun(R, Diags, Measured))
      return 1;
    ChecksOk &= checkRun(S, Measured, std::cout);
  }

  // Compute: per segment (and position, where rank 0 or P-1 differ) the executions-weighted
  // mean over ranks, per run (scaling/ComputeFit.h).
  std::vector<ComputeRun> ComputeRuns;
  for (const ModelRun &R : File.Runs) {
    MachineFile M;
    if (!loadMachineFile(R.Machine, M, Diags))
      return 1;
    // A file of repeated timing runs (probe-compute --repeat) carries each run's means: the
    // noise, unless the runs' own files are given beside it.
    ComputeRun CR = computeRunOf(R.Ranks, R.Size, M);
    if (!R.Repeats.empty())
      CR.Repeats.clear();
    for (const std::string &Repeat : R.Repeats) {
      MachineFile RM;
      if (!loadMachineFile(Repeat, RM, Diags))
        return 1;
      CR.Repeats.push_back(segmentTimesOf(RM));
    }
    ComputeRuns.push_back(std::move(CR));
  }
  SelectOptions Options;
  Options.Ws = File.Ws;
  Options.Caches = File.Caches;
  // A structure that decomposes by MPI_Dims_create's factors (byte counts, sub-communicators,
  // loop trips over them) offers its compute the same divisors: a rank's share of the work.
  if (File.StructureAccepted) {
    auto Offer = [&](uint8_t Dims, uint8_t Axes) {
      if (Dims != 0 && std::find(Options.GridDivisors.begin(), Options.GridDivisors.end(),
                                 std::pair{Dims, Axes}) == Options.GridDivisors.end())
        Options.GridDivisors.push_back({Dims, Axes});
    };
    for (const RankClass &C : File.Learnt.Classes)
      for (const OpTemplate &Op : C.Ops) {
        Offer(Op.Bytes.GridDims, Op.Bytes.GridAxes);
        Offer(Op.Sub.GridDims, Op.Sub.GridAxes);
        Offer(Op.Trips.GridDims, Op.Trips.GridAxes);
      }
  }
  File.Segments = fitComputeModels(ComputeRuns, Options);
  if (std::none_of(ComputeRuns.begin(), ComputeRuns.end(),
                   [](const ComputeRun &R) { return !R.Repeats.empty(); }))
    Diags.note(Tool,
               "no run has repeated timing runs, so a segment's rise with the rank count is "
               "taken for growth however small the run-to-run noise may have made it (take "
               "the compute base data with probe-compute --repeat 3, or give each run's "
               "repeats after commas in --run)",
               "scale");
  for (SegmentModel &Seg : File.Segments)
    Seg.Where = Name(Seg.From) + " -> " + Name(Seg.To);
  // A loop's seams: the computation before the body's first call, or after the loop, starts
  // at the call before the loop or at the body's last one. A start no measured run showed
  // (ranks that skip the loop only at larger P) takes the other start's model, said so.
  if (File.StructureAccepted) {
    std::vector<SegmentModel> Seams;
    for (const RankClass &C : File.Learnt.Classes) {
      const TripExpr *Trips = nullptr; // the loop before the op
      for (const OpTemplate &Op : C.Ops) {
        if (Op.Ctl == OpTemplate::Control::LoopBegin)
          Trips = &Op.Trips;
        // A Dynamic start is whichever call ran last: its segments are those measured.
        if (Op.FromR == OpTemplate::FromRule::None || Op.FromR == OpTemplate::FromRule::Dynamic)
          continue;
        const BlockId To = Op.Proto.Block;
        for (auto [From, Other] :
             {std::pair{Op.Proto.From, Op.AltFrom}, std::pair{Op.AltFrom, Op.Proto.From}}) {
          // After a loop that runs at least one trip on every rank of every size, the start
          // for no trip is never generated.
          if (Op.FromR == OpTemplate::FromRule::AfterLoop && From == Op.Proto.From &&
              Trips != nullptr && !Trips->mayBeZero())
            continue;
          auto Match = [&](const SegmentModel &M) { return M.From == From && M.To == To; };
          if (From == Other || std::any_of(File.Segments.begin(), File.Segments.end(), Match) ||
              std::any_of(Seams.begin(), Seams.end(), Match))
            continue;
          for (const SegmentModel &M : File.Segments)
            if (M.From == Other && M.To == To) {
              SegmentModel Seam = M;
              Seam.From = From;
              Seam.Data.clear();
              Seam.HeldOutError = -1;
              Seam.Where = Name(From) + " -> " + Name(To) + " (no run measured it: the model of " +
                           Name(Other) + " -> " + Name(To) + ")";
              Diags.note({Name(To), 0, 0},
                         "a loop's seam " + Seam.Where +
                             ", for the ranks and sizes where the "
                             "loop's trips differ from every measured run's",
                         "scale");
              Seams.push_back(std::move(Seam));
            }
        }
      }
    }
    File.Segments.insert(File.Segments.end(), Seams.begin(), Seams.end());
  }
  if (File.Ws.known()) {
    std::string Unstraddled;
    for (double C : File.Caches) {
      const auto [Below, Above] = File.runsAround(C);
      if (Above == 0 || Below == 0)
        Unstraddled += std::string(Unstraddled.empty() ? "" : ", ") +
                       (Above ? "above " : "below ") + std::to_string(int64_t(C));
    }
    if (!Unstraddled.empty())
      Diags.warning(
          Tool,
          "every run's working set lies on one side of these caches (bytes: " + Unstraddled +
              "): an extrapolation across one crosses a step the runs never measured",
          "scale");
    std::string Lone;
    for (double C : File.loneRunCaches())
      Lone += std::string(Lone.empty() ? "" : ", ") + std::to_string(int64_t(C));
    if (!Lone.empty())
      Diags.warning(Tool,
                    "a single run's working set lies on one side of these caches (bytes: " + Lone +
                        "): a step is fitted only from two runs or more on each side, so the "
                        "models have none there and fit both sides with one curve; add a run "
                        "whose working set is twice the cache or more (half or less, for a "
                        "run alone below it)",
                    "scale");
  }
  std::ofstream OutFile;
  std::ostream *OS = openOutput(!Output.empty() ? &Output : nullptr, OutFile, "model", Diags);
  if (!OS)
    return 1;
  writeScalingModel(*OS, File);
  return ChecksOk ? 0 : 1;
}

std::string modelSiteName(const ScalingModelFile &File, BlockId B) {
  if (!File.Runs.empty()) {
    std::ostringstream Quiet; // a moved program folder costs the name, not a message
    DiagnosticSink None(Quiet);
    const ProgramBlockMap Blocks = loadProgramBlockMap(File.Runs.front().Program, None);
    const std::map<BlockId, std::string> Where = blockDescriptions(Blocks.Map);
    if (auto It = Where.find(B); It != Where.end())
      return It->second;
  }
  return formatBlock(B);
}

std::string fractionText(const CommStructure::Fraction &F, int Ranks, double Size) {
  std::ostringstream S;
  S.precision(8);
  S << F.What << ", is " << F.Value << " at " << Ranks << " ranks and size " << Size
    << ", a whole number in every base run: how the program rounds it there (truncates, rounds "
       "up, or deals the remainder to some ranks) was never measured, and the prediction rounds "
       "it to the nearest (a base run at a rank count or size where it does not divide tells)";
  return S.str();
}

void warnFractions(const ScalingModelFile &File, const CommStructure &S, int Ranks, double Size,
                   const std::string &Whose, DiagnosticSink &Diags) {
  for (const CommStructure::Fraction &F : S.fractionsAt(Ranks, Size))
    Diags.warning({modelSiteName(File, F.Site), 0, 0}, Whose + fractionText(F, Ranks, Size),
                  "scale");
}

std::vector<int> measuredRanks(const ScalingModelFile &File) {
  std::vector<int> Ranks;
  for (const ModelRun &R : File.Runs)
    Ranks.push_back(R.Ranks);
  return Ranks;
}

std::string unmeasuredRanks(const ScalingModelFile &File, const CommStructure &S, int P, double W,
                            std::string &Site) {
  Site.clear();
  if (std::string Why = File.unmeasuredSize(W); !Why.empty())
    return Why;
  BlockId B = 0;
  std::string Why = unmeasuredRankCount(S, measuredRanks(File), P, W, B);
  if (!Why.empty())
    Site = modelSiteName(File, B);
  return Why;
}

bool loadExtrapolationModel(const std::string &Path, DiagnosticSink &Diags, ScalingModelFile &Out) {
  if (!loadScalingModel(Path, Out, Diags))
    return false;
  if (!Out.StructureAccepted) {
    Diags.error({Out.RefusedAt, 0, 0},
                "the model's communication structure was refused for extrapolation: " +
                    Out.RefusalReason,
                "scale");
    return false;
  }
  return true;
}

bool machineSpeed(const ScalingModelFile &File, const std::string &Machine, DiagnosticSink &Diags,
                  double &Speed) {
  Speed = 1;
  if (Machine.empty())
    return true;
  for (const ModelRun &R : File.Runs)
    if (R.Machine == Machine)
      return true;
  MachineFile M;
  if (!loadMachineFile(Machine, M, Diags))
    return false;
  const int P = M.Provenance.Ranks > 0 ? M.Provenance.Ranks : int(M.Ranks.size());
  double W = File.Runs.empty() ? 1 : File.Runs.front().Size;
  for (const ModelRun &R : File.Runs)
    if (R.Ranks == P)
      W = R.Size;
  ScaledComputeModel Model(File, P, W);
  double Measured = 0, Predicted = 0;
  for (const MachineRank &MR : M.Ranks)
    for (const MachineSegment &S : MR.Segments)
      if (const SegmentTimes *T = Model.segment(MR.Rank, S.From, S.To)) {
        Measured += S.MeanSeconds * double(S.Executions);
        Predicted += T->MeanSeconds * double(S.Executions);
      }
  if (!(Measured > 0 && Predicted > 0)) {
    Diags.error({Machine, 0, 0}, "holds no segment of the model's program: no speed to compare",
                "scale");
    return false;
  }
  Speed = Measured / Predicted;
  return true;
}

bool loadProfileRun(const ScalingModelFile &File, DiagnosticSink &Diags, MachineFile &Out,
                    std::string &Path) {
  const ModelRun *Largest = nullptr;
  for (const ModelRun &R : File.Runs)
    if (!Largest || R.Ranks > Largest->Ranks)
      Largest = &R;
  if (!Largest)
    return false;
  std::ostringstream Why;
  DiagnosticSink Quiet(Why);
  if (!loadMachineFile(Largest->Machine, Out, Quiet)) {
    Diags.note({Largest->Machine, 0, 0},
               "not readable: every occurrence of a segment takes its mean (" + Why.str() + ")",
               "scale");
    return false;
  }
  Path = Largest->Machine;
  return true;
}

bool scaledClusterLinks(const ClusterSpec &Spec, const std::string &ClusterPath,
                        const std::string &NetworkPath, DiagnosticSink &Diags, ClusterLinks &Out) {
  ClusterDefaults Defaults;
  if (!NetworkPath.empty()) {
    Defaults.InterPath = NetworkPath;
    if (!(Defaults.Inter = loadNetworkYaml(NetworkPath, NetworkModelKind::Table, Diags)))
      return false;
  }
  return clusterLinks(Spec, ClusterPath, NetworkModelKind::Table, Defaults, Diags, Out);
}

namespace {

/// A scaling model's ranks on the nodes of a cluster file: each rank's node (estimator's
/// placement), its class (its node type and the ranks on its node) with the class's compute
/// factor (the type's speed, times the ranks on its node over the type's cores where they
/// outnumber them) and the links. Ranks of a type without a machine file, or past the types
/// list, compute as the model's machine does.
struct ScaledCluster {
  std::vector<int> NodeOfRank;
  std::vector<double> Factors;       ///< per class
  std::vector<uint16_t> ClassOfRank; ///< into Factors
  ClusterLinks Links;
  std::vector<std::string> Lines; ///< what the report says about the placement
};

bool scaledCluster(const std::string &ClusterPath, const ScalingModelFile &File, int Ranks,
                   const std::string &NetworkPath, DiagnosticSink &Diags, ScaledCluster &Out) {
  ClusterSpec Spec;
  if (!loadClusterSpec(ClusterPath, Spec, Diags))
    return false;
  RankPlacement Place = placeRanks(Spec, ClusterPath, Ranks);
  if (!checkListedNodes(Spec, Place, counted(Ranks, "rank") + " were asked for", Diags) ||
      !scaledClusterLinks(Spec, ClusterPath, NetworkPath, Diags, Out.Links))
    return false;
  struct Class {
    int Type, OnNode, Ranks = 0;
    double Speed;
  };
  std::vector<Class> Classes;
  std::map<std::pair<int, int>, uint16_t> ClassOf; // (type, ranks on the node)
  std::vector<std::optional<double>> SpeedOfType(Spec.Nodes.size() + 1); // the last: past it
  Out.ClassOfRank.reserve(size_t(Ranks));
  for (int R = 0; R < Ranks; ++R) {
    const int T = Place.TypeOfRank[size_t(R)];
    const int OnNode = Place.RanksOnNode[size_t(Place.NodeOfRank[size_t(R)])];
    auto [It, New] = ClassOf.try_emplace({T, OnNode}, uint16_t(Classes.size()));
    if (New) {
      if (Classes.size() == 65535) {
        Diags.error({ClusterPath, 0, 0}, "more than 65535 classes of ranks", "cluster");
        return false;
      }
      std::optional<double> &Speed = SpeedOfType[T >= 0 ? size_t(T) : Spec.Nodes.size()];
      if (!Speed && !machineSpeed(File, Place.MachineOfRank[size_t(R)], Diags, Speed.emplace()))
        return false;
      const int Cores = T >= 0 ? Spec.Nodes[size_t(T)].Cores : 0;
      Classes.push_back({T, OnNode, 0, *Speed});
      Out.Factors.push_back(*Speed *
                            std::max(1.0, double(OnNode) / double(Cores > 0 ? Cores : OnNode)));
    }
    ++Classes[It->second].Ranks;
    Out.ClassOfRank.push_back(It->second);
  }
  for (const auto &[Key, I] : ClassOf) {
    const Class &C = Classes[I];
    const std::string Machine = C.Type >= 0 ? Spec.Nodes[size_t(C.Type)].Machine : "";
    const int Cores = C.Type >= 0 ? Spec.Nodes[size_t(C.Type)].Cores : 0;
    std::ostringstream L;
    L << counted(C.Ranks, "rank") << ", " << C.OnNode << " per node, "
      << (Machine.empty() ? std::string("the model's machine") : Machine) << " (compute x "
      << number(C.Speed);
    if (Cores > 0 && C.OnNode > Cores)
      L << ", x " << number(double(C.OnNode) / Cores) << " time-sharing " << counted(Cores, "core");
    L << ")";
    Out.Lines.push_back(L.str());
  }
  Out.NodeOfRank = std::move(Place.NodeOfRank);
  return true;
}

} // namespace

int runScaledEstimate(const std::string &ModelPath, int Ranks, double Size,
                      const std::string &NetworkPath, const std::string &ClusterPath,
                      const std::string &Format, const std::string *Output,
                      const std::string &Command) {
  DiagnosticSink Diags(std::cerr);
  ScalingModelFile File;
  if (!loadExtrapolationModel(ModelPath, Diags, File))
    return 1;
  if (Size <= 0)
    Size = File.Runs.front().Size;
  // The structure stored in the model; model files without it are learnt again from the runs.
  CommStructure S = File.Learnt;
  if (S.Classes.empty() && !learnModelStructure(File, Diags, S))
    return 1;
  std::string Site;
  if (std::string Why = unmeasuredRanks(File, S, Ranks, Size, Site); !Why.empty()) {
    Diags.error({Site.empty() ? ModelPath : Site, 0, 0}, Why, "scale");
    return 1;
  }
  const std::vector<int> Measured = measuredRanks(File);
  for (const CommStructure::Ambiguity &A : S.ambiguities())
    if (Ranks >= A.PartsAt && std::find(Measured.begin(), Measured.end(), Ranks) == Measured.end())
      Diags.warning({modelSiteName(File, A.Site), 0, 0},
                    A.What + ": the base runs do not pin how the items are dealt at " +
                        std::to_string(Ranks) + " ranks (another way fits them and differs from " +
                        std::to_string(A.PartsAt) + " ranks on); the prediction takes this one",
                    "scale");
  warnFractions(File, S, Ranks, Size, "", Diags);
  // Occurrence-dependent compute from the largest run the model was built from (its machine
  // file's series); without it, every occurrence takes the mean.
  MachineFile ProfileRun;
  std::string Profiles;
  const bool HaveProfiles = loadProfileRun(File, Diags, ProfileRun, Profiles);
  std::unique_ptr<ClusterNetworkModel> Net;
  std::unique_ptr<ComputeModel> Compute;
  ScaledCluster Cluster;
  if (!ClusterPath.empty()) {
    if (!scaledCluster(ClusterPath, File, Ranks, NetworkPath, Diags, Cluster))
      return 1;
    Net = std::make_unique<ClusterNetworkModel>(Cluster.NodeOfRank, Cluster.Links.Intra,
                                                Cluster.Links.Inter);
    if (Cluster.Links.Contention == ContentionKind::Fair)
      Net->setContention(ContentionKind::Fair, Cluster.Links.Capacity);
    auto C = std::make_unique<FactoredComputeModel>(File, Ranks, Size, Cluster.Factors,
                                                    std::move(Cluster.ClassOfRank));
    if (HaveProfiles)
      C->addOccurrenceProfiles(ProfileRun);
    Compute = std::move(C);
  } else {
    std::shared_ptr<LinkModel> Link = loadNetworkYaml(NetworkPath, NetworkModelKind::Table, Diags);
    if (!Link)
      return 1;
    Net = std::make_unique<ClusterNetworkModel>(Link);
    auto C = std::make_unique<ScaledComputeModel>(File, Ranks, Size);
    if (HaveProfiles)
      C->addOccurrenceProfiles(ProfileRun);
    Compute = std::move(C);
  }
  EstimateResult Res = replayScaled(S, *Compute, *Net, Ranks, Size);
  for (const EngineError &Err : Res.Errors)
    Diags.error({Err.File.empty() ? "mpiete estimate" : Err.File, 0, 0}, Err.Message, "estimate");
  if (!Res.Ok)
    return 1;
  const ScalingModelFile::Band Fits = File.errorBand(Res.Segments, Ranks, Size);
  double Band = Fits.Relative;
  // A working set beyond a cache no run reached: the step's height (seed 001: up to about 2x
  // per operation) is unknown, so the band is widened by half the prediction per such step
  // rather than the divided work silently extended.
  const std::vector<double> Unmeasured = File.unmeasuredCacheSteps(Ranks, Size);
  std::string Crossed;
  for (double C : Unmeasured) {
    Crossed += (Crossed.empty() ? "" : ", ") + std::to_string(int64_t(C));
    Band += 0.5;
  }
  if (!Unmeasured.empty())
    Diags.warning({ModelPath, 0, 0},
                  "at " + std::to_string(Ranks) + " ranks and size " + number(Size) +
                      " a rank's working set (" + std::to_string(int64_t(File.Ws.at(Ranks, Size))) +
                      " bytes) crosses a cache step no run measured (" + Crossed +
                      " bytes): the error band is widened",
                  "scale");
  // The report: one value per key, rendered so that YAML and JSON read it alike.
  struct Field {
    std::string Key, Value, Plain; ///< Value as YAML and JSON read it; Plain for people
  };
  std::vector<Field> F;
  auto val = [&](const char *Key, const std::string &V) { F.push_back({Key, V, V}); };
  auto str = [&](const char *Key, const std::string &V) { F.push_back({Key, quotedString(V), V}); };
  auto num = [](double V) {
    char Buf[40];
    std::snprintf(Buf, sizeof Buf, "%.9g", V);
    return std::string(Buf);
  };
  const double T = Res.predictedSeconds();
  val("extrapolated", "true");
  val("ranks", std::to_string(Ranks));
  val("size", num(Size));
  str("model", ModelPath);
  val("predicted_seconds", num(T));
  val("error_band", num(Band));
  val("predicted_range_seconds",
      "[" + num(T * std::max(0.0, 1 - Band)) + ", " + num(T * (1 + Band)) + "]");
  str("error_band_basis",
      "the segments' leave-one-out and extrapolation errors weighted by their compute here (" +
          number(Fits.Weighted) + ")" +
          (Fits.Doublings > 1
               ? ", times " + number(Fits.Doublings) + " doublings past the largest base run"
               : std::string()) +
          (Unmeasured.empty() ? "" : ", + 0.5 per unmeasured cache step"));
  val("largest_segment_error", num(Fits.Largest));
  if (!Fits.LargestWhere.empty())
    str("largest_segment_error_at",
        Fits.LargestWhere + " (" + number(100 * Fits.LargestShare) + "% of the predicted compute)");
  val("events", std::to_string(Res.Events));
  val("messages", std::to_string(Res.Messages));
  if (!Profiles.empty())
    str("occurrence_profiles", Profiles);
  if (!ClusterPath.empty()) {
    str("cluster", ClusterPath);
    std::string L = "[";
    for (const std::string &Line : Cluster.Lines)
      L += (L.size() > 1 ? ", " : "") + quotedString(Line);
    val("placement", L + "]");
  }
  if (!Unmeasured.empty()) {
    val("unmeasured_cache_steps", "[" + Crossed + "]");
    str("warning", "the working set crosses a cache step no run measured; the band is widened "
                   "by 0.5 per step");
  }
  std::ofstream OutFile;
  std::ostream *Out = openOutput(Output, OutFile, "output", Diags);
  if (!Out)
    return 1;
  if (Format == "json") {
    *Out << "{\n  \"tool\": " << quotedString(std::string("mpiete ") + MPIETE_VERSION)
         << ",\n  \"command\": " << quotedString(Command);
    for (const Field &X : F)
      *Out << ",\n  \"" << X.Key << "\": " << X.Value;
    *Out << "\n}\n";
  } else if (Format == "yaml") {
    *Out << "# mpiete estimate, extrapolated from a scaling model (docs/scale.md)\ntool: "
         << quotedString(std::string("mpiete ") + MPIETE_VERSION)
         << "\ncommand: " << quotedString(Command) << "\n";
    for (const Field &X : F)
      *Out << X.Key << ": " << X.Value << "\n";
  } else {
    // For people: the same lines, strings as they are, the placement one per line.
    for (const Field &X : F) {
      if (X.Key == "placement") {
        *Out << "placement:\n";
        for (const std::string &Line : Cluster.Lines)
          *Out << "  - " << Line << "\n";
        continue;
      }
      *Out << X.Key << ": " << X.Plain << "\n";
    }
  }
  return 0;
}

} // namespace mpiete
