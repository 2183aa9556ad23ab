// `mpiete probe-compute`: runs a program's timing probe under token passing on
// one node, one rank at a time (or k, --ranks-per-node) and merges the per-rank timing files into
// the compute base data (machine.yaml).
#include "CommandUtil.h"
#include "MachineLoad.h"

#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/TaskCosts.h"
#include "mpiete/basedata/TimingFile.h"
#include "mpiete/estimator/BaseData.h"
#include "mpiete/farm/TaskShape.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Hash.h"
#include "mpiete/support/Process.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/Launcher.h"
#include "mpiete/trace/TraceReader.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace mpiete {
namespace {

/// The options, each declared once; --help is generated from them.
struct Options {
  std::string Output, Cpu, PerNode, TaskGrid, TaskReference, Program;
  std::string Heap = "kept";
  std::string Combine; // --combine A,B,...: files of timing runs taken apart, no run
  long long TaskStride = 1, TaskEvery = 1;
  int Cap = 0;       // 0: every iteration timed; seed 004 section 3.1.1 caps loops at two
  int Sample = 0;    // 0: loops of pure computation run whole
  int Repeat = 1;    // timing runs, each segment the median of them
  int FirstRank = 0; // the rank that starts with the token (the first run's, with --repeat)
  bool Full = false;
  bool Keep = false;
  bool TasksEven = false, TasksLattice = false;
};

void declare(CommandLine &C, Options &O) {
  CLI::App &A = C.App;
  A.add_option("-o", O.Output, "the compute base data to write (YAML)")->type_name("FILE");
  C.addLaunchOptions("the number of ranks");
  A.add_option("--cpu", O.Cpu, "the processor to run on (default: the first one the job may use)")
      ->type_name("N");
  A.add_option("--ranks-per-node", O.PerNode,
               "K ranks compute at once, each on its own processor (N, then the next K-1 the job "
               "may use), so blocks share memory bandwidth and caches as on a node running K "
               "ranks; rank r stays on the (r mod K)-th (MPIETE_PIN=token: on whichever is "
               "free); default 1")
      ->type_name("K");
  A.add_option("--heap", O.Heap,
               "kept (default): wherever the program's heap grew since the last MPI call, the "
               "next one keeps its top occupied, as a real MPI library's own allocations do "
               "(this probe's transport makes none), so a program that frees and allocates "
               "large buffers every step does not trim and regrow its heap each time where its "
               "real run does not; native: the heap as glibc alone runs it (docs/probes.md, "
               "\"The heap\")")
      ->type_name("kept|native")
      ->check(CLI::IsMember({"kept", "native"}));
  A.add_option("--tasks-subset", O.TaskStride,
               "run only the task-farm tasks (MPIETE_TASK, docs/taskfarm.md) whose every "
               "parameter is a multiple of C; the others are skipped and interpolated by the "
               "estimator (default 1: every task)")
      ->type_name("C")
      ->check(CLI::Range(1LL, 1LL << 40));
  A.add_option("--tasks-grid", O.TaskGrid,
               "the farm's task set (the tasks.yaml probe-program writes, or any tasks file with "
               "a grid): --tasks-subset C then runs max(2, ceil(n/C)) values of each parameter's "
               "n, both ends and the rest spread evenly, as seed 000 chooses them; when the file "
               "holds the trace probe's task times (probe-program --task-shape), the rest go "
               "where that shape says linear interpolation errs most, and with 2 or more "
               "parameters the subset is as many tasks placed as points where the shape's times "
               "change most (docs/taskfarm.md)")
      ->type_name("FILE");
  A.add_flag("--tasks-even", O.TasksEven,
             "with --tasks-grid: spread the values evenly even when the file holds a shape");
  A.add_flag("--tasks-lattice", O.TasksLattice,
             "with --tasks-grid and a shape of tasks with 2 or more parameters: measure a "
             "lattice of values placed by the shape, not points where its times change most "
             "(docs/taskfarm.md, \"Points placed by the shape\")");
  A.add_option("--tasks-every", O.TaskEvery,
               "with --tasks-grid: about 1/R of those values along each parameter, for a machine "
               "probed only for its tasks' speed ratio r_s (a subset of the reference machine's "
               "subset: its costliest tasks by the shape, as much task time as every R-th value "
               "would give on a flat surface; without a shape every R-th value; default 1)")
      ->type_name("R")
      ->check(CLI::Range(1LL, 1LL << 40));
  A.add_option("--tasks-reference", O.TaskReference,
               "with --tasks-grid and --tasks-every R: the reference machine's compute base data "
               "(its -o FILE; the task costs beside it), probed first with the same task set. "
               "This machine then runs the fewest of the tasks the reference measured that hold "
               "1/R^D of its measured task time (D parameters) and at least 0.1 s of it, the "
               "last one the cheapest that completes it: past a few tens of milliseconds a "
               "task's time ratio between two machines varies by a few percent whatever its "
               "length, so r_s needs no more (docs/taskfarm.md, \"The speed ratio's tasks\")")
      ->type_name("FILE");
  A.add_option("--cap", O.Cap,
               "time the outermost loop that makes MPI calls for a warm-up and at least N "
               "iterations per variant of its period (16 at least), then, once they repeat the "
               "same calls and their mean is known to 2 %, skip the rest (their times are the "
               "mean; docs/probes.md); 2 is seed 004's value. Default: off, every iteration timed, "
               "until bench/skeleton shows capped accuracy within 2 points of full on a quiet "
               "machine")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20));
  A.add_option("--sample", O.Sample,
               "loops of pure computation that mpiete-cc/-fc hooked (counted, no MPI call, a "
               "loop in their body) run their first two iterations and every S-th after them; "
               "the skipped ones' time is estimated between the measured ones and added to the "
               "computation they are in (docs/probes.md, \"Sampled loops\"). Default: off")
      ->type_name("S")
      ->check(CLI::Range(2, 1 << 20));
  A.add_option("--program", O.Program,
               "the program base data (probe-program's directory) of the same program, arguments "
               "and rank count. Its wildcard receives (MPI_ANY_SOURCE) then take the messages the "
               "traced run's took, so a task farm does the traced assignment. With --cap or "
               "--sample: a capped run that misses a compute segment "
               "the traces have (a loop left before an iteration whose calls differ, a test "
               "every 50 steps), or a sampled run whose segments differ from the traces' "
               "(skipped iterations changed what the program does later), is run again with "
               "every iteration timed")
      ->type_name("DIR");
  A.add_flag("--full", O.Full,
             "time every iteration of every loop (the default; overrides --cap and --sample)");
  A.add_option("--repeat", O.Repeat,
               "take N timing runs, one after the other, and keep per rank and segment the "
               "median of them (a run another process disturbed is left out when most are "
               "not), every run's mean beside it (repeat_means: the noise `mpiete model` weighs "
               "a rise against); for a machine that is not quiet. Default 1")
      ->type_name("N")
      ->check(CLI::Range(1, 1000));
  A.add_option("--combine", O.Combine,
               "run nothing: combine machine files of timing runs of the same program, input "
               "and rank count taken apart (at other times: a machine whose speed drifts over "
               "minutes, which N runs in a row of --repeat all see) into -o, per rank and "
               "segment the median of the files' records, as --repeat does (a file of "
               "--repeat runs counts as one run, its medians); the files' task costs too")
      ->type_name("FILE,FILE[,...]");
  A.add_option("--first-rank", O.FirstRank,
               "the rank that computes first (it starts with the token; default 0). With "
               "--repeat N and --program traces whose wildcard receives are matched as traced "
               "(or that have none), the k-th run starts at rank F + k x ranks / N, so a "
               "disturbance at a fixed time into the run falls on another rank in each run "
               "and the median leaves it out (docs/token-passing.md, \"The first rank\"); not "
               "with --cap or --sample")
      ->type_name("F")
      ->check(CLI::NonNegativeNumber);
  A.add_flag("--keep", O.Keep, "keep the per-rank timing files (their directory is printed)");
}

/// The least reference time a machine probed for its speed ratio alone runs (--tasks-reference):
/// pieces of work shorter than a few tens of milliseconds see a CFS quota's bursts (after
/// idle, 2-5 ms pieces ran at 1.2-1.7 of full speed where the quota gives 2, 50 ms and more at
/// 2.07-2.12: docs/taskfarm.md, "A steady machine B"), timer slack and frequency ramps, not the
/// machine's steady speed; twice the 50 ms past which they were steady.
constexpr double RatioFloorSeconds = 0.1;

/// Why the reference machine's task costs cannot give this task set's speed ratio ("" when
/// they can): a parameter count other than the set's, or a measured task outside its grid.
std::string referenceMismatch(const TaskCosts &Reference, const TaskCosts &Set) {
  if (Reference.Dims != Set.Dims)
    return "tasks of " + std::to_string(Reference.Dims) +
           (Reference.Dims == 1 ? " parameter" : " parameters") + ", not the " +
           std::to_string(Set.Dims) + " of the task set";
  const size_t D = size_t(std::max(Set.Dims, 0));
  for (size_t T = 0; T < Reference.measuredCount(); ++T)
    for (size_t K = 0; K < D && K < Set.Axes.size(); ++K)
      if (!Set.Axes[K].holds(Reference.MeasuredParams[T * D + K])) {
        std::string Task;
        for (size_t J = 0; J < D; ++J)
          Task += (J ? ", " : "") + std::to_string(Reference.MeasuredParams[T * D + J]);
        return "measured task (" + Task + "), which is not in the task set";
      }
  return "";
}

/// --tasks-reference: the tasks a machine probed for its speed ratio alone runs, as the
/// MPIETE_TASK_POINTS file lists them (Points); 0, or the exit code after an error.
int ratioTasksOf(const Options &O, const TaskCosts &Set, DiagnosticSink &Diags,
                 std::string &Points) {
  const DiagLoc Tool{"mpiete probe-compute"};
  if (O.TaskEvery <= 1) {
    Diags.error(Tool, "--tasks-reference needs --tasks-every R (R > 1)", "usage");
    return 2;
  }
  const std::string Path =
      O.TaskReference.ends_with(".tasks.yaml") ? O.TaskReference : taskCostsPathOf(O.TaskReference);
  TaskCosts Reference;
  if (!loadTaskCosts(Path, Reference, Diags))
    return 1;
  if (const std::string Why = referenceMismatch(Reference, Set); !Why.empty()) {
    Diags.error(DiagLoc{Path}, Why + " of '" + O.TaskGrid + "'", "probe");
    return 1;
  }
  double Total = 0;
  for (double S : Reference.MeasuredSeconds)
    Total += std::max(S, 0.0);
  double Share = 1;
  for (int K = 0; K < Set.Dims; ++K)
    Share /= double(O.TaskEvery);
  // At least RatioFloorSeconds (or all the reference measured): shorter pieces meet the
  // clocks' and the scheduler's short-time effects, not the machine's speed.
  const double Budget = std::max(Share * Total, std::min(Total, RatioFloorSeconds));
  const auto Run = farm::ratioTasks(Reference, Budget);
  if (Run.empty()) {
    Diags.error(DiagLoc{Path}, "measured no task with a positive time: no speed ratio", "probe");
    return 1;
  }
  Points = farm::taskPointsText(Run);
  std::cerr << "mpiete probe-compute: " << Run.size() << " of the " << Reference.measuredCount()
            << " tasks '" << Path << "' measured, the fewest that hold 1/" << O.TaskEvery;
  if (Set.Dims > 1)
    std::cerr << "^" << Set.Dims;
  std::cerr << " of its " << Total << " s";
  if (Budget > Share * Total)
    std::cerr << ", at least " << Budget << " s";
  std::cerr << " (the speed ratio's)\n";
  return 0;
}

/// Every rank of a timing run into F (seconds per execution), F's timer overhead the largest.
void addRanks(MachineFile &F, const std::vector<RankTiming> &Ranks) {
  for (const RankTiming &R : Ranks) {
    F.TimerOverheadSeconds = std::max(F.TimerOverheadSeconds, R.OverheadNs * 1e-9);
    F.Ranks.push_back(machineRankOf(R));
  }
}

/// The loops the ranks left early (`# capped-loop LOOP N` in rank<N>.timing), each once with
/// the most iterations any rank ran: "LOOP after N iterations".
std::vector<std::string> cappedLoopsOf(const fs::path &Dir, int Np) {
  std::map<std::string, unsigned long> Most;
  for (int R = 0; R < Np; ++R) {
    std::ifstream In(Dir / ("rank" + std::to_string(R) + ".timing"));
    std::string Line;
    while (std::getline(In, Line)) {
      if (Line.rfind("# capped-loop ", 0) != 0)
        continue;
      std::istringstream W(Line.substr(14));
      std::string Loop;
      unsigned long N = 0;
      if (W >> Loop >> N)
        Most[Loop] = std::max(Most[Loop], N);
    }
  }
  std::vector<std::string> Out;
  for (const auto &[Loop, N] : Most)
    Out.push_back(Loop + " after " + std::to_string(N) + " iterations");
  return Out;
}

/// The sampled loops of every rank (`# sampled-loop LOOP ENTRIES RUN SKIPPED MEASURED_NS
/// ESTIMATED_NS CV [TOUCHING [SHORT SHORT_ITERATION_NS SHORT_HOOK_NS]]` in rank<N>.timing),
/// summed over the ranks: "LOOP: R of N iterations run in E entries, X% of its time estimated",
/// the entries run whole because their iterations were too short to time (the runtime's
/// sample::tooShort), and the skipped iterations' estimate (seconds).
struct SampledLoops {
  std::vector<std::string> Loops;
  double EstimatedSeconds = 0;
};

SampledLoops sampledLoopsOf(const fs::path &Dir, int Np) {
  struct Sum {
    unsigned long long Entries = 0, Run = 0, Skipped = 0, Touching = 0, Short = 0;
    double Measured = 0, Estimated = 0, Cv = 0;
    double ShortIteration = 0, ShortHook = 0; // the largest over the ranks
  };
  std::map<std::string, Sum> Loops;
  for (int R = 0; R < Np; ++R) {
    std::ifstream In(Dir / ("rank" + std::to_string(R) + ".timing"));
    std::string Line;
    while (std::getline(In, Line)) {
      if (Line.rfind("# sampled-loop ", 0) != 0)
        continue;
      std::istringstream W(Line.substr(15));
      std::string Loop;
      Sum X;
      if (!(W >> Loop >> X.Entries >> X.Run >> X.Skipped >> X.Measured >> X.Estimated >> X.Cv))
        continue;
      W >> X.Touching; // entries whose rest ran whole (first touch of memory); older: none
      W >> X.Short >> X.ShortIteration >> X.ShortHook; // too short to time; older: none
      Sum &T = Loops[Loop];
      T.Entries += X.Entries;
      T.Run += X.Run;
      T.Skipped += X.Skipped;
      T.Measured += X.Measured;
      T.Estimated += X.Estimated;
      T.Cv = std::max(T.Cv, X.Cv);
      T.Touching += X.Touching;
      T.Short += X.Short;
      T.ShortIteration = std::max(T.ShortIteration, X.ShortIteration);
      T.ShortHook = std::max(T.ShortHook, X.ShortHook);
    }
  }
  SampledLoops Out;
  for (const auto &[Loop, T] : Loops) {
    const double All = T.Measured + T.Estimated;
    char Buf[320];
    std::string Line = Loop + ": ";
    if (T.Entries > 0) {
      std::snprintf(Buf, sizeof Buf,
                    "%llu of %llu iterations run in %llu entries, %.1f%% of its time "
                    "estimated, spread %.2f",
                    T.Run, T.Run + T.Skipped, T.Entries, All > 0 ? 100.0 * T.Estimated / All : 0.0,
                    T.Cv);
      Line += Buf;
    }
    if (T.Touching > 0)
      Line += ", " + std::to_string(T.Touching) +
              " entries run whole from a measured iteration that touched new pages";
    if (T.Short > 0) {
      // Entries run whole as too short are not in the counts above: the C hook stops asking.
      std::snprintf(Buf, sizeof Buf,
                    "%severy iteration of %s%llu entries run whole: its iterations (%.3g us) are "
                    "too short to time, the hooks take %.3g us each",
                    T.Entries > 0 ? ", and " : "", T.Entries > 0 ? "" : "its ", T.Short,
                    T.ShortIteration * 1e-3, T.ShortHook * 1e-3);
      Line += Buf;
    }
    Out.Loops.push_back(Line);
    Out.EstimatedSeconds += T.Estimated * 1e-9;
  }
  return Out;
}

/// Whether every rank wrote its timing file: the runtime writes it in MPI_Finalize (under a
/// temporary name, renamed once complete), so every rank got through the program's
/// communication.
bool everyRankFinalized(const fs::path &Dir, int Np) {
  for (int R = 0; R < Np; ++R)
    if (!fs::exists(Dir / ("rank" + std::to_string(R) + ".timing")))
      return false;
  return true;
}

using SegmentKey = std::pair<uint64_t, uint64_t>; ///< (from, to)

struct SegmentKeyHash {
  size_t operator()(const SegmentKey &P) const {
    return std::hash<uint64_t>()(P.first * 0x9e3779b97f4a7c15ULL ^ P.second);
  }
};

/// Calls F(rank, from, to) for every compute segment execution of every rank's trace in
/// TraceDir, in trace order; false (reported) when the traces cannot be read or are of another
/// rank count than the timing run's NRanks.
template <typename Fn>
bool forEachTraceSegment(const std::string &TraceDir, size_t NRanks, DiagnosticSink &Diags,
                         Fn &&F) {
  using estimator::Event;
  using estimator::EventKind;
  std::vector<std::unique_ptr<estimator::TraceEventSource>> Sources;
  if (!openTraceDirectory(TraceDir, Diags, Sources))
    return false;
  if (Sources.size() != NRanks) {
    Diags.error(DiagLoc{TraceDir},
                "the traces are of " + std::to_string(Sources.size()) +
                    " ranks, the timing run of " + std::to_string(NRanks) +
                    ": --program needs the same program and ranks",
                "probe");
    return false;
  }
  for (size_t R = 0; R < Sources.size(); ++R) {
    estimator::TraceEventSource &Src = *Sources[R];
    Src.setEmitSegments(true);
    Event E;
    while (Src.next(E))
      if (E.Kind == EventKind::Segment)
        F(R, E.From, E.Block);
    if (Src.failed())
      return false;
  }
  return true;
}

/// The loop plan for a capped run (runtime/lib/LoopPlan.h): the outermost loop entries that
/// every rank's rank<N>.loops in TraceDir lists with the same period, as lines `SITE ENTRY
/// PERIOD` (SITE in hex) for MPIETE_CAP_PLAN. Traces without loop files (an older trace
/// probe's) give no plan. False (reported) on a malformed file.
bool loopPlan(const std::string &TraceDir, size_t NRanks, DiagnosticSink &Diags, std::string &Text,
              size_t &Count) {
  Text.clear();
  Count = 0;
  std::map<std::pair<uint64_t, uint32_t>, std::pair<uint32_t, size_t>> Entries; // period, ranks
  for (size_t R = 0; R < NRanks; ++R) {
    const fs::path File = fs::path(TraceDir) / ("rank" + std::to_string(R) + ".loops");
    std::ifstream In(File);
    if (!In)
      return true;
    std::string Line;
    for (size_t No = 1; std::getline(In, Line); ++No) {
      if (Line.empty() || Line[0] == '#')
        continue;
      std::istringstream Fields(Line);
      std::string Id;
      uint64_t Entry = 0, Iterations = 0, Period = 0;
      const auto Site =
          (Fields >> Id >> Entry >> Iterations >> Period) ? parseBlockId(Id) : std::nullopt;
      // Periods up to the runtime's MaxPlannedPeriod (runtime/lib/LoopPlan.h).
      if (!Site || Entry > UINT32_MAX || Period == 0 || Period > 128) {
        Diags.error(DiagLoc{File.string(), unsigned(No), 1},
                    "malformed loop line '" + Line +
                        "' (expected: loop id, entry, iterations, period 1-128)",
                    "probe");
        return false;
      }
      auto [It, New] = Entries.try_emplace({*Site, uint32_t(Entry)}, uint32_t(Period), 0);
      if (It->second.first != Period)
        It->second.first = 0; // the ranks disagree: no plan for this entry
      ++It->second.second;
    }
  }
  std::ostringstream Out;
  for (const auto &[Key, Value] : Entries)
    if (Value.first != 0 && Value.second == NRanks) {
      Out << std::hex << "0x" << Key.first << std::dec << ' ' << Key.second << ' ' << Value.first
          << '\n';
      ++Count;
    }
  Text = Out.str();
  return true;
}

/// The traces' wildcard matches for the timing run (MPIETE_WILDCARD_SOURCES, runtime/lib/
/// TokenMachine.cpp): a line `rank source ...` per rank with user MPI_ANY_SOURCE receives or
/// MPI_ANY_SOURCE probes that found a message, in program order, the world rank each took: a
/// receive's from its completion's status (-1 where the trace has none: MPI_STATUS_IGNORE, a
/// request freed or never completed), a probe's the source it found. Count gets how many are
/// listed; false (reported) when the traces cannot be read or are of another rank count.
bool wildcardSources(const std::string &TraceDir, size_t NRanks, DiagnosticSink &Diags,
                     std::string &Text, uint64_t &Count) {
  auto RankFile = [&](size_t R) {
    return (fs::path(TraceDir) / ("rank" + std::to_string(R) + ".trace")).string();
  };
  if (!fs::exists(RankFile(0)) || !fs::exists(RankFile(NRanks - 1)) ||
      fs::exists(RankFile(NRanks))) {
    Diags.error(DiagLoc{TraceDir},
                "no traces of " + std::to_string(NRanks) + " ranks (rank0.trace .. rank" +
                    std::to_string(NRanks - 1) +
                    ".trace): --program needs the same program and ranks",
                "probe");
    return false;
  }
  Count = 0;
  for (size_t R = 0; R < NRanks; ++R) {
    trace::TraceReader Reader(Diags);
    if (!Reader.open(RankFile(R)))
      return false;
    std::vector<int32_t> Matched;                // per wildcard receive or probe, in order
    std::unordered_map<uint64_t, size_t> Posted; // request -> its index in Matched
    trace::Record Rec;
    while (Reader.next(Rec)) {
      if (Rec.Ctx != Context::User)
        continue;
      switch (Rec.Kind) {
      case trace::RecordKind::Recv:
        if (Rec.Peer == trace::AnySource) {
          Posted[Rec.Request] = Matched.size();
          Matched.push_back(-1);
        }
        break;
      case trace::RecordKind::Probe:
        if (Rec.Peer == trace::AnySource && Rec.Found)
          Matched.push_back(Rec.MatchedSource >= 0 ? Rec.MatchedSource : -1);
        break;
      case trace::RecordKind::Wait:
        for (const trace::Completion &Done : Rec.Completions)
          if (auto It = Posted.find(Done.Request); It != Posted.end()) {
            if (Done.Recv && Done.Source >= 0)
              Matched[It->second] = Done.Source;
            Posted.erase(It);
          }
        break;
      case trace::RecordKind::RequestFree:
        Posted.erase(Rec.Request);
        break;
      default:
        break;
      }
    }
    if (!Reader.ok())
      return false;
    if (Matched.empty())
      continue;
    Text += std::to_string(R);
    for (int32_t S : Matched)
      Text += " " + std::to_string(S);
    Text += "\n";
    Count += Matched.size();
  }
  return true;
}

std::string segmentName(size_t R, const SegmentKey &K) {
  return "rank " + std::to_string(R) + ": " + formatBlockId(K.first) + " -> " +
         formatBlockId(K.second);
}

/// How a capped run's segments cover the traces': the segment executions of each rank's trace
/// whose (from, to) the rank's timing lacks, and whether the estimator fills every one from
/// measured computations around the same calls (TableComputeModel::segment, the rule the
/// estimate itself applies).
struct Coverage {
  bool Failed = false;   ///< a trace could not be read (reported)
  std::string Unfilled;  ///< "rank R: FROM -> TO", the first missing one nothing can fill
  double WorstShare = 0; ///< the largest share of a rank's segment executions missing
  int WorstRank = 0;
  uint64_t Missing = 0, Total = 0; ///< over all ranks
  std::string First;               ///< "rank R: FROM -> TO", the first missing one
};

Coverage coverage(const std::string &TraceDir, const std::vector<RankTiming> &Ranks,
                  DiagnosticSink &Diags) {
  Coverage C;
  if (Ranks.empty() || Ranks.front().Partition != "segments")
    return C; // compute blocks: the trace has its own block records, no segments
  MachineFile Machine;
  Machine.Partition = MachinePartition::Segments;
  for (const RankTiming &R : Ranks)
    Machine.Ranks.push_back(machineRankOf(R));
  estimator::TableComputeModel Model;
  estimator::addMachineFile(Machine, Model);
  // Each (rank, from, to) is asked once: a fallback, once found, is kept in the model and
  // would be found again as if measured.
  enum class Kind { Measured, Filled, Unfilled };
  std::vector<std::unordered_map<SegmentKey, Kind, SegmentKeyHash>> Seen(Ranks.size());
  std::vector<uint64_t> Missing(Ranks.size()), Total(Ranks.size());
  C.Failed = !forEachTraceSegment(
      TraceDir, Ranks.size(), Diags, [&](size_t R, uint64_t From, uint64_t To) {
        ++Total[R];
        auto [It, New] = Seen[R].try_emplace({From, To}, Kind::Measured);
        if (New) {
          const size_t Fallbacks = Model.segmentFallbacks().size();
          const bool Found = Model.segment(int(R), From, To) != nullptr;
          It->second = !Found                                        ? Kind::Unfilled
                       : Model.segmentFallbacks().size() > Fallbacks ? Kind::Filled
                                                                     : Kind::Measured;
        }
        if (It->second == Kind::Measured)
          return;
        ++Missing[R];
        if (C.First.empty())
          C.First = segmentName(R, {From, To});
        if (C.Unfilled.empty() && It->second == Kind::Unfilled)
          C.Unfilled = segmentName(R, {From, To});
      });
  for (size_t R = 0; R < Ranks.size() && !C.Failed; ++R) {
    C.Missing += Missing[R];
    C.Total += Total[R];
    const double Share = Total[R] ? double(Missing[R]) / double(Total[R]) : 0.0;
    if (Share > C.WorstShare) {
      C.WorstShare = Share;
      C.WorstRank = int(R);
    }
  }
  return C;
}

/// A run that left no loop early must make exactly the traces' segment executions: skipped
/// iterations of pure computation change no call unless their data steer one. The first
/// segment whose executions differ, "rank R: FROM -> TO N times in the traces, M in the timing
/// run" (the process start's, which the runtime times from before MPI_Init, left out); empty
/// when none. Failed: the traces could not be read (reported).
std::string firstDifference(const std::string &TraceDir, const std::vector<RankTiming> &Ranks,
                            bool &Failed, DiagnosticSink &Diags) {
  Failed = false;
  if (Ranks.empty() || Ranks.front().Partition != "segments")
    return "";
  std::vector<std::unordered_map<SegmentKey, uint64_t, SegmentKeyHash>> Counts(Ranks.size());
  std::vector<std::vector<SegmentKey>> Order(Ranks.size()); // first executions, trace order
  Failed = !forEachTraceSegment(TraceDir, Ranks.size(), Diags,
                                [&](size_t R, uint64_t From, uint64_t To) {
                                  if (Counts[R][{From, To}]++ == 0)
                                    Order[R].push_back({From, To});
                                });
  for (size_t R = 0; R < Ranks.size() && !Failed; ++R) {
    auto differs = [&](const SegmentKey &K, uint64_t InTrace, uint64_t InTiming) {
      return segmentName(R, K) + " " + std::to_string(InTrace) + " times in the traces, " +
             std::to_string(InTiming) + " in the timing run";
    };
    std::unordered_map<SegmentKey, uint64_t, SegmentKeyHash> Timed;
    for (const SegmentTiming &G : Ranks[R].Segments) {
      if (G.From == ProgramStart)
        continue;
      Timed[{G.From, G.To}] = G.Executions;
      const auto It = Counts[R].find({G.From, G.To});
      const uint64_t InTrace = It == Counts[R].end() ? 0 : It->second;
      if (InTrace != G.Executions)
        return differs({G.From, G.To}, InTrace, G.Executions);
    }
    for (const SegmentKey &K : Order[R])
      if (K.first != ProgramStart && !Timed.count(K))
        return differs(K, Counts[R][K], 0);
  }
  return "";
}

/// Reads every rank's timing file from Dir into Ranks; false (reported) on a missing or bad
/// file, or ranks of different builds or rank placements.
bool readRanks(const fs::path &Dir, int RanksPerNode, const std::string &Program,
               std::vector<RankTiming> &Ranks, DiagnosticSink &Diags) {
  for (size_t R = 0; R < Ranks.size(); ++R) {
    const fs::path File = Dir / ("rank" + std::to_string(R) + ".timing");
    if (std::string Err = readRankTiming(File.string(), int(R), Ranks[R]); !Err.empty()) {
      Diags.error(DiagLoc{Program}, Err, "probe");
      return false;
    }
    if (Ranks[R].Partition != Ranks.front().Partition) {
      Diags.error(DiagLoc{Program},
                  "rank " + std::to_string(R) + " measured " + Ranks[R].Partition + ", rank 0 " +
                      Ranks.front().Partition + " (ranks of different builds?)",
                  "probe");
      return false;
    }
    if (Ranks[R].RanksPerNode != RanksPerNode) {
      Diags.error(DiagLoc{Program},
                  "rank " + std::to_string(R) + " ran " + std::to_string(Ranks[R].RanksPerNode) +
                      " ranks at a time, not " + std::to_string(RanksPerNode) +
                      " (MPIETE_RANKS_PER_NODE set by hand?)",
                  "probe");
      return false;
    }
  }
  return true;
}

/// The largest share of a rank's segment executions a capped run may miss and still be kept
/// (their times then come from the computations around the same calls): a test every 50
/// steps that the capped iterations never reached is about 1% of a halo exchange's segments.
constexpr double MaxMissingShare = 0.01;

/// A field of /proc/cpuinfo's first processor ("model name", "cpu MHz"), or "".
std::string cpuInfo(const std::string &Key) {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind(Key, 0) != 0)
      continue;
    const size_t Colon = Line.find(':');
    if (Colon == std::string::npos)
      continue;
    std::string V = Line.substr(Colon + 1);
    V.erase(0, V.find_first_not_of(" \t"));
    return V;
  }
  return "";
}

std::string hostName() {
  char Buf[256] = {0};
  if (gethostname(Buf, sizeof Buf - 1) != 0)
    return "unknown";
  return Buf;
}

std::string envOr(const char *Name, const std::string &Default) {
  const char *V = std::getenv(Name);
  return V != nullptr && V[0] != '\0' ? V : Default;
}

/// The block map beside the probe (`app.timing` -> `app.blocks.yaml`), if there
/// is one.
fs::path blockMapOf(const std::string &Program) {
  fs::path P(Program);
  if (P.extension() == ".timing")
    P.replace_extension("");
  P += ".blocks.yaml";
  return fs::exists(P) ? P : fs::path();
}

/// The file's provenance: the machine, the run, and the compiler and flags the timed code was
/// built with, from the block map mpiete-cc wrote beside the probe (MPIETE_COMPILER /
/// MPIETE_CFLAGS override, e.g. for a hand-built probe).
MachineProvenance provenanceOf(const LaunchSpec &Launch, const std::vector<RankTiming> &Ranks,
                               const fs::path &BlockMapPath) {
  MachineProvenance P;
  P.Program = Launch.Program.front();
  P.Arguments.assign(Launch.Program.begin() + 1, Launch.Program.end());
  P.Ranks = static_cast<int>(Ranks.size());
  P.Host = hostName();
  P.CpuModel = cpuInfo("model name");
  P.CpuMhz = cpuInfo("cpu MHz");
  P.Cpu = Ranks.empty() ? -1 : Ranks.front().Cpu;
  P.TokenPassing = true;
  P.RanksPerNode = Ranks.empty() ? 1 : Ranks.front().RanksPerNode;
  P.Heap = Ranks.empty() ? "" : Ranks.front().Heap;
  P.Command = shellJoin(launchArgv(Launch));
  std::string Compiler = "unknown", Flags;
  if (!BlockMapPath.empty()) {
    P.BlockMap = BlockMapPath.string();
    // Optional provenance: a broken map is reported by the estimator, not here.
    std::ostringstream Ignored;
    DiagnosticSink Quiet(Ignored);
    BlockMap Map;
    if (readBlockMap(BlockMapPath.string(), Map, Quiet)) {
      if (!Map.Compiler.empty())
        Compiler = Map.Compiler;
      std::vector<std::string> Seen;
      for (const UnitModel &U : Map.Units)
        for (const std::string &Flag : U.Flags)
          if (std::find(Seen.begin(), Seen.end(), Flag) == Seen.end()) {
            Seen.push_back(Flag);
            Flags += (Flags.empty() ? "" : " ") + Flag;
          }
      P.Fingerprint = toHex(Map.fingerprint(), 16);
    }
  }
  P.Compiler = envOr("MPIETE_COMPILER", Compiler);
  P.Flags = envOr("MPIETE_CFLAGS", Flags.empty() ? std::string("unknown") : Flags);
  P.Date = isoDateNow();
  P.Tool = std::string("mpiete ") + MPIETE_VERSION;
  return P;
}

bool isOpenMpiLauncher(const std::string &Launcher) {
  const std::string Base = fs::path(Launcher).filename().string();
  if (Base != "mpirun" && Base != "mpiexec" && Base != "orterun")
    return false;
  const auto Version = captureProcess({Launcher, "--version"});
  return Version && (Version->find("Open MPI") != std::string::npos ||
                     Version->find("OpenRTE") != std::string::npos);
}

/// Each task's time in Into the median of the runs' (Runs: Into's own first; every run measured
/// the same tasks), as --repeat and --combine take each segment's.
void takeTaskMedians(TaskCosts &Into, const std::vector<const TaskCosts *> &Runs) {
  if (Runs.size() < 2)
    return;
  for (size_t I = 0; I < Into.MeasuredSeconds.size(); ++I) {
    std::vector<double> V;
    for (const TaskCosts *T : Runs)
      V.push_back(T->MeasuredSeconds[I]);
    Into.MeasuredSeconds[I] = medianOf(std::move(V));
  }
}

/// Writes Machine to Output and, with Tasks, the farm's task costs beside it; an older run's
/// task costs there are removed either way. False (reported) on error.
bool writeComputeBaseData(const std::string &Output, const MachineFile &Machine,
                          const TaskCosts *Tasks, DiagnosticSink &Diags) {
  std::ofstream Out(Output);
  if (!Out) {
    Diags.error(DiagLoc{Output}, "cannot open for writing", "io");
    return false;
  }
  writeMachineFile(Out, Machine);
  Out.close();
  if (!Out) {
    Diags.error(DiagLoc{Output}, "cannot write", "io");
    return false;
  }
  const std::string TasksPath = taskCostsPathOf(Output);
  std::error_code Ignored;
  fs::remove(TasksPath, Ignored); // never leave an older run's tasks beside this machine file
  if (Tasks != nullptr) {
    std::ofstream TasksOut(TasksPath);
    writeTaskCosts(TasksOut, *Tasks);
    if (!TasksOut) {
      Diags.error(DiagLoc{TasksPath}, "cannot write", "io");
      return false;
    }
  }
  return true;
}

/// --combine: the files' timing runs as one file (combineRepeatedRuns: per rank and segment
/// the median of the files' records). The files must measure the same thing: the same program
/// (build), arguments, rank count, placement and partition, and no capped or sampled run beside
/// a full one; each difference is an error at the file that differs. Their task costs (the
/// farm's machine.tasks.yaml) are combined task by task when every file has them for the same
/// tasks.
int combineTimingRuns(const Options &O, DiagnosticSink &Diags) {
  std::vector<std::string> Paths;
  for (size_t Pos = 0; Pos <= O.Combine.size();) {
    const size_t Comma = std::min(O.Combine.find(',', Pos), O.Combine.size());
    if (Comma > Pos)
      Paths.push_back(O.Combine.substr(Pos, Comma - Pos));
    Pos = Comma + 1;
  }
  const DiagLoc Tool{"mpiete probe-compute"};
  if (Paths.size() < 2) {
    Diags.error(Tool, "--combine needs two machine files or more, separated by commas", "usage");
    return 2;
  }
  std::vector<MachineFile> Runs(Paths.size());
  for (size_t I = 0; I < Paths.size(); ++I) {
    if (!loadMachineFile(Paths[I], Runs[I], Diags))
      return 1;
    // The same run twice would count twice in every median.
    for (size_t J = 0; J < I; ++J)
      if (std::error_code Ec; fs::equivalent(Paths[I], Paths[J], Ec)) {
        Diags.error(DiagLoc{Paths[I]}, "given twice to --combine (as " + Paths[J] + ")", "probe");
        return 1;
      }
  }
  const MachineProvenance &First = Runs.front().Provenance;
  auto Quote = [](const std::vector<std::string> &Words) {
    std::string S;
    for (const std::string &W : Words)
      S += (S.empty() ? "" : " ") + W;
    return "'" + S + "'";
  };
  for (size_t I = 1; I < Runs.size(); ++I) {
    const MachineProvenance &P = Runs[I].Provenance;
    std::string What;
    // The block map's fingerprint says which build was timed, wherever it was moved to.
    const bool ByBuild = !P.Fingerprint.empty() && !First.Fingerprint.empty();
    if (Runs[I].Partition != Runs.front().Partition)
      What = "its partition (segments or blocks)";
    else if (ByBuild ? P.Fingerprint != First.Fingerprint : P.Program != First.Program)
      What = ByBuild ? "the program (another build: fingerprint " + P.Fingerprint + " against " +
                           First.Fingerprint + ")"
                     : "the program ('" + P.Program + "' against '" + First.Program + "')";
    else if (P.Arguments != First.Arguments)
      What = "the arguments (" + Quote(P.Arguments) + " against " + Quote(First.Arguments) + ")";
    else if (P.Ranks != First.Ranks)
      What = "the rank count (" + std::to_string(P.Ranks) + " against " +
             std::to_string(First.Ranks) + ")";
    else if (P.TokenPassing != First.TokenPassing || P.RanksPerNode != First.RanksPerNode)
      What = "the ranks computing at once (" + std::to_string(P.RanksPerNode) + " against " +
             std::to_string(First.RanksPerNode) + ")";
    else if (P.SampleCap != First.SampleCap || P.SampleStride != First.SampleStride)
      What = "how loops were timed (--cap " + std::to_string(P.SampleCap) + " --sample " +
             std::to_string(P.SampleStride) + " against --cap " + std::to_string(First.SampleCap) +
             " --sample " + std::to_string(First.SampleStride) + "; 0: every iteration)";
    else if (!P.CpuModel.empty() && !First.CpuModel.empty() && P.CpuModel != First.CpuModel)
      What = "the processor ('" + P.CpuModel + "' against '" + First.CpuModel +
             "': compute base data are per machine type)";
    if (!What.empty()) {
      Diags.error(DiagLoc{Paths[I]},
                  "differs from " + Paths.front() + " in " + What +
                      ": --combine takes timing runs of the same measurement",
                  "probe");
      return 1;
    }
  }
  MachineFile Machine;
  if (std::string Why; !combineRepeatedRuns(Runs, Machine, Why)) {
    // The runs are the files here: name them rather than "timing run K".
    Diags.error(Tool, "--combine " + O.Combine + ": " + Why, "probe");
    return 1;
  }
  MachineProvenance &P = Machine.Provenance;
  // The cost of these base data is every run's; unknown (0) if one file does not say.
  const bool Known = std::all_of(
      Runs.begin(), Runs.end(), [](const MachineFile &R) { return R.Provenance.ProbeSeconds > 0; });
  P.ProbeSeconds = 0;
  for (const MachineFile &R : Runs)
    P.ProbeSeconds += Known ? R.Provenance.ProbeSeconds : 0;
  P.FirstRanks.clear(); // a file's own runs are its median now
  P.CombinedFrom.clear();
  for (size_t I = 0; I < Paths.size(); ++I)
    P.CombinedFrom.push_back(Paths[I] + " (" + Runs[I].Provenance.Date + ")");
  P.Date = isoDateNow();
  P.Tool = std::string("mpiete ") + MPIETE_VERSION;

  // The farm's task costs beside each file: all or none, the same tasks.
  std::vector<TaskCosts> Tasks;
  std::vector<std::string> TaskPaths;
  for (const std::string &Path : Paths)
    if (const std::string T = taskCostsPathOf(Path); fs::exists(T)) {
      if (!loadTaskCosts(T, Tasks.emplace_back(), Diags))
        return 1;
      TaskPaths.push_back(T);
    }
  if (!Tasks.empty() && Tasks.size() != Paths.size()) {
    Diags.error(DiagLoc{TaskPaths.front()},
                "task costs beside " + std::to_string(Tasks.size()) + " of the " +
                    std::to_string(Paths.size()) +
                    " machine files: --combine takes every file's or none",
                "probe");
    return 1;
  }
  for (size_t I = 1; I < Tasks.size(); ++I)
    if (Tasks[I].MeasuredParams != Tasks.front().MeasuredParams) {
      Diags.error(DiagLoc{TaskPaths[I]},
                  "measured other tasks than " + TaskPaths.front() +
                      " (another subset): their costs cannot be combined task by task",
                  "probe");
      return 1;
    }
  if (!Tasks.empty()) {
    std::vector<const TaskCosts *> All;
    for (const TaskCosts &T : Tasks)
      All.push_back(&T);
    takeTaskMedians(Tasks.front(), All);
    Tasks.front().Tool = P.Tool;
  }
  if (!writeComputeBaseData(O.Output, Machine, Tasks.empty() ? nullptr : &Tasks.front(), Diags))
    return 1;
  if (Machine.Partition == MachinePartition::Segments) {
    double Records = 0;
    std::cerr << "mpiete probe-compute: combined " << Paths.size()
              << " timing runs; their compute summed over the ranks";
    for (double S : repeatedRunsCompute(Machine, Records))
      std::cerr << " " << S;
    std::cerr << " s; each segment the median (" << Records << " s)\n";
  }
  return 0;
}

} // namespace

int runProbeCompute(const CommandArgs &Args) {
  DiagnosticSink Diags(std::cerr);
  const DiagLoc Tool{"mpiete probe-compute"};
  CommandLine C("probe-compute",
                "usage: mpiete probe-compute -o MACHINE.yaml -np R [--cpu N] [--ranks-per-node K] "
                "[--program DIR] [--cap N | --full] [--repeat N] [--keep]\n                        "
                "    [--launcher NAME] "
                "[launcher options] "
                "PROGRAM.timing [program arguments]",
                "Runs the timing probe of a program built by mpiete-cc with all R ranks on one "
                "node,\none rank at a time (token passing; each on a processor of its own, "
                "MPIETE_PIN=token: all on one),\nand writes every rank's compute block times.",
                "  mpiete probe-compute -o machineB.yaml -np 16 ./jacobi.timing 2048\n");
  Options O;
  declare(C, O);
  ProbeCommandLine Cmd;
  // --combine runs nothing, so it takes no program.
  const bool Combining = std::any_of(Args.begin(), Args.end(), [](const std::string &A) {
    return A == "--combine" || A.starts_with("--combine=");
  });
  if (std::string Err = C.parseProbe(Args, /*WantProgram=*/!Combining, Cmd); !Err.empty()) {
    Diags.error(Tool, Err, "usage");
    std::cerr << C.help();
    return 2;
  }
  if (Cmd.Help) {
    std::cout << C.help();
    return 0;
  }
  if (!O.Combine.empty()) {
    if (O.Output.empty() || !Cmd.Launch.Program.empty() || Cmd.Launch.Np > 0) {
      Diags.error(Tool, "--combine needs -o FILE and runs nothing (no -np, no program)", "usage");
      return 2;
    }
    return combineTimingRuns(O, Diags);
  }
  const std::string &Output = O.Output, &Cpu = O.Cpu, &PerNode = O.PerNode;
  const bool Keep = O.Keep;
  if (Output.empty() || Cmd.Launch.Np <= 0 || Cmd.Launch.Program.empty()) {
    Diags.error(Tool, "needs -o FILE, -np R and the program to run", "usage");
    std::cerr << C.help();
    return 2;
  }
  int RanksPerNode = 1;
  if (!PerNode.empty()) {
    char *End = nullptr;
    const long K = std::strtol(PerNode.c_str(), &End, 10);
    if (*End != '\0' || K < 1 || K > 1024) {
      Diags.error(Tool, "--ranks-per-node '" + PerNode + "': must be a number from 1 to 1024",
                  "usage");
      return 2;
    }
    RanksPerNode = static_cast<int>(K);
  }
  // The task set's grid (MPIETE_TASK_GRID, `first:last:step` per parameter): the subset then
  // spans each parameter's whole range; without it the ranks take the multiples of C.
  std::string TaskGrid, TaskValues, TaskPoints;
  long long RuntimeEvery = O.TaskEvery; // 1 once TaskValues holds the subset itself
  if (!O.TaskGrid.empty()) {
    TaskCosts Set;
    if (!loadTaskCosts(O.TaskGrid, Set, Diags))
      return 1;
    if (!Set.Grid) {
      Diags.error(DiagLoc{O.TaskGrid},
                  "the tasks form no grid: --tasks-grid needs every combination of the "
                  "parameters' values",
                  "probe");
      return 1;
    }
    for (const TaskAxis &A : Set.Axes)
      TaskGrid += (TaskGrid.empty() ? "" : ",") + std::to_string(A.First) + ":" +
                  std::to_string(A.Last) + ":" + std::to_string(A.Step);
    if (!O.TaskReference.empty()) {
      if (const int Rc = ratioTasksOf(O, Set, Diags, TaskPoints); Rc != 0)
        return Rc;
      RuntimeEvery = 1;
    } else if (!O.TasksEven && Set.measuredCount() > 0 && O.TaskStride > 1) {
      // The trace probe's task times (any machine: their ratios) place the values.
      // Two or more parameters: points where the shape's times change most; else (or with
      // --tasks-lattice) a lattice of values. A machine probed for r_s alone takes the
      // reference's costliest of them: the runtime is given the subset itself.
      std::vector<std::vector<int64_t>> Points;
      if (!O.TasksLattice)
        Points = farm::chooseTaskPoints(Set, O.TaskStride);
      // The lattice of values (machine B's, with --tasks-every).
      const auto Values = farm::costliestValues(
          Set, farm::chooseTaskValues(Set, O.TaskStride, farm::ShapeTolerance), O.TaskEvery);
      if (!Points.empty()) {
        // Machine B: as much of the shape's time as the lattice would have given it.
        const farm::ShapeEstimate Estimate(Set);
        const double Goal = O.TaskEvery > 1 ? Estimate.latticeSeconds(Values) : 0.0;
        const auto Run = farm::costliestPoints(Estimate, Points, Goal);
        TaskPoints = farm::taskPointsText(Run);
        std::cerr << "mpiete probe-compute: " << Run.size() << " tasks placed by the shape as "
                  << "points where its times change most";
        if (Run.size() != Points.size())
          std::cerr << " (the costliest of " << Points.size() << ", --tasks-every " << O.TaskEvery
                    << ")";
        std::cerr << "\n";
      } else {
        TaskValues = farm::taskValuesText(Values);
        std::cerr << "mpiete probe-compute: the tasks of each parameter's values " << TaskValues
                  << ", placed by the shape\n";
      }
      RuntimeEvery = 1;
    }
  } else if (O.TaskEvery > 1 || !O.TaskReference.empty()) {
    Diags.error(Tool,
                std::string(O.TaskEvery > 1 ? "--tasks-every" : "--tasks-reference") +
                    " needs --tasks-grid",
                "usage");
    return 2;
  }
  const std::string Program = Cmd.Launch.Program.front();
  if (!fs::exists(Program)) {
    Diags.error(DiagLoc{Program}, "no such program", "probe");
    return 1;
  }

  // The ranks write rank<N>.timing here; merged, then removed.
  std::string Template = (fs::temp_directory_path() / "mpiete-compute-XXXXXX").string();
  if (mkdtemp(Template.data()) == nullptr) {
    Diags.error(Tool, std::string("cannot make a temporary directory: ") + std::strerror(errno),
                "io");
    return 1;
  }
  const fs::path OutDir = Template;
  LaunchSpec &Launch = Cmd.Launch;
  Launch.Env.emplace_back("MPIETE_OUTDIR", OutDir.string());
  if (!Cpu.empty())
    Launch.Env.emplace_back("MPIETE_CPU", Cpu);
  // Always set: a value left in the caller's environment must not leak into the ranks.
  Launch.Env.emplace_back("MPIETE_RANKS_PER_NODE", std::to_string(RanksPerNode));
  Launch.Env.emplace_back("MPIETE_HEAP", O.Heap);
  Launch.Env.emplace_back("MPIETE_TASK_STRIDE", std::to_string(O.TaskStride));
  Launch.Env.emplace_back("MPIETE_TASK_EVERY", std::to_string(RuntimeEvery));
  Launch.Env.emplace_back("MPIETE_TASK_GRID", TaskGrid);
  Launch.Env.emplace_back("MPIETE_TASK_VALUES", TaskValues);
  // The points go in a file (1/16 of a million tasks would pass the 128 KiB one environment
  // string may hold).
  const fs::path PointsFile = OutDir / "task-points.txt";
  if (!TaskPoints.empty()) {
    std::ofstream Out(PointsFile);
    Out << TaskPoints;
    if (!Out.flush()) {
      Diags.error(DiagLoc{PointsFile.string()}, "cannot write the tasks to run", "io");
      return 1;
    }
  }
  Launch.Env.emplace_back("MPIETE_TASK_POINTS", TaskPoints.empty() ? "" : PointsFile.string());
  const fs::path Board = OutDir / "cap.board";
  // The ranks create the board (runtime/lib/TimingCap.cpp) in this fresh directory.
  bool Capped = !O.Full && O.Cap > 0;
  Launch.Env.emplace_back("MPIETE_CAP", std::to_string(Capped ? O.Cap : 0));
  Launch.Env.emplace_back("MPIETE_CAP_BOARD", Board.string());
  bool Sampled = !O.Full && O.Sample > 0;
  Launch.Env.emplace_back("MPIETE_SAMPLE", std::to_string(Sampled ? O.Sample : 0));
  // With the traces at hand, the timing run's wildcard receives take the messages the traced
  // run's took: a task farm then does the traced assignment, so the estimator's replay of it
  // times each task with the task's own computation (docs/taskfarm.md, "Farms without
  // markers").
  const fs::path WildFile = OutDir / "wildcards.txt";
  bool Forced = false;
  uint64_t WildCount = 0; // the traces' wildcard receives (with --program)
  if (!O.Program.empty()) {
    std::string Text;
    if (!wildcardSources(O.Program, size_t(Launch.Np), Diags, Text, WildCount)) {
      if (!Keep)
        fs::remove_all(OutDir);
      return 1;
    }
    if (WildCount > 0) {
      std::ofstream(WildFile) << Text;
      Forced = true;
    }
  }
  Launch.Env.emplace_back("MPIETE_WILDCARD_SOURCES", Forced ? WildFile.string() : "");
  // With the traces at hand, a capped loop entry they show repeating with its period to the
  // end may be left after --cap periods (runtime/lib/LoopPlan.h); the others keep the rule
  // of at least 16 measured iterations.
  const fs::path PlanFile = OutDir / "cap-plan.txt";
  size_t Planned = 0;
  if (Capped && !O.Program.empty()) {
    std::string Text;
    if (!loopPlan(O.Program, size_t(Launch.Np), Diags, Text, Planned)) {
      if (!Keep)
        fs::remove_all(OutDir);
      return 1;
    }
    if (Planned > 0)
      std::ofstream(PlanFile) << Text;
  }
  Launch.Env.emplace_back("MPIETE_CAP_PLAN", Planned > 0 ? PlanFile.string() : "");
  // Always set, as MPIETE_RANKS_PER_NODE; the repeats below may move it.
  Launch.Env.emplace_back("MPIETE_TOKEN_FIRST", std::to_string(O.FirstRank % Launch.Np));
  preferLeanPml(Launch, std::getenv("OMPI_MCA_pml"));
  hurryFailedJobs();
  // More ranks than processors is fine by design (one rank runs at a time): Open MPI must be
  // told so.
  if (isOpenMpiLauncher(Launch.Launcher) &&
      std::find(Launch.LauncherArgs.begin(), Launch.LauncherArgs.end(), "--oversubscribe") ==
          Launch.LauncherArgs.end())
    Launch.LauncherArgs.push_back("--oversubscribe");

  const bool Tty = isatty(STDERR_FILENO) != 0;
  if (Tty)
    std::cerr << "mpiete probe-compute: running " << Launch.Np << " ranks of '" << Program << "' "
              << RanksPerNode << " at a time...\n";
  const auto Start = std::chrono::steady_clock::now();
  const LoadMonitor Load;
  int Rc = 0;
  std::vector<RankTiming> Ranks(static_cast<size_t>(Launch.Np));
  bool RanksRead = false;
  std::vector<std::string> CappedLoops;
  SampledLoops Sampling;
  // The run once more from an empty OutDir (the wildcard list stays), with the environment
  // variables Names set to Value (none: as it was).
  auto runAgain = [&](std::initializer_list<std::string_view> Names, const char *Value) {
    for (const auto &E : fs::directory_iterator(OutDir))
      if (E.path() != WildFile)
        fs::remove(E.path());
    for (auto &[Name, V] : Launch.Env)
      if (std::find(Names.begin(), Names.end(), Name) != Names.end())
        V = Value;
    return runLaunch(Launch);
  };
  {
    const ProgressTicker Tick("mpiete probe-compute: timing " + std::to_string(Launch.Np) +
                              " ranks");
    Rc = runLaunch(Launch);
    if (Rc != 0 && Forced) {
      // The run did not follow the trace (another program or input, a skipped loop that
      // changed the messages): the token's own order, as without --program.
      Diags.warning(DiagLoc{Program},
                    "the timing probe that follows the wildcard matches of the traces in '" +
                        O.Program + "' failed (exit status " + std::to_string(Rc) +
                        "); running it again with the wildcard receives in the token's order",
                    "probe");
      Forced = false;
      Rc = runAgain({"MPIETE_WILDCARD_SOURCES"}, "");
    }
    bool Again = false;
    const char *Which = Capped && Sampled ? "capped and sampled" : Capped ? "capped" : "sampled";
    if (Rc != 0 && (Capped || Sampled) && everyRankFinalized(OutDir, Launch.Np)) {
      // Every rank got through MPI_Finalize: its communication is complete. What failed is the
      // program's own check of results the skipped iterations never computed (f90-adi and
      // f77-sor exit 1 when their verification fails); the program's output is not the probe's.
      Diags.note(DiagLoc{Program},
                 std::string("the ") + Which + " timing probe exited with status " +
                     std::to_string(Rc) +
                     " after MPI_Finalize on every rank (the program's own check of results "
                     "the skipped iterations did not compute); its timing is complete and kept",
                 "probe");
      Rc = 0;
    } else if (Rc != 0 && (Capped || Sampled)) {
      // Skipping iterations changed what the program does next (a deadlock the token machine
      // reported, a rank that stopped before MPI_Finalize, a sampled loop that communicates):
      // time it whole.
      Diags.warning(DiagLoc{Program},
                    std::string("the ") + Which + " timing probe failed (exit status " +
                        std::to_string(Rc) +
                        "); running it again with every iteration timed (as --full)",
                    "probe");
      Again = true;
    }
    // Only a run that left some loop early can lack a segment for that reason; the traces of
    // a program that picks its partners at run time (a task farm) differ from any timing run
    // by the partners it picked, which is no reason to run it again.
    if (Rc == 0 && Capped)
      CappedLoops = cappedLoopsOf(OutDir, Launch.Np);
    if (Rc == 0 && Sampled)
      Sampling = sampledLoopsOf(OutDir, Launch.Np);
    if (Rc == 0 && !O.Program.empty() && (!CappedLoops.empty() || !Sampling.Loops.empty())) {
      RanksRead = readRanks(OutDir, RanksPerNode, Program, Ranks, Diags);
      bool Failed = !RanksRead;
      if (!Failed && CappedLoops.empty()) {
        // Only sampled: every segment execution the traces make, as often.
        if (const std::string Differs = firstDifference(O.Program, Ranks, Failed, Diags);
            !Differs.empty()) {
          Diags.warning(DiagLoc{Program},
                        "the sampled timing probe's computation segments differ from the "
                        "traces in '" +
                            O.Program + "' (" + Differs +
                            "): a skipped iteration's data steer the program; running it again "
                            "with every iteration timed (as --full)",
                        "probe");
          Again = true;
        }
      } else if (!Failed) {
        const Coverage Cov = coverage(O.Program, Ranks, Diags);
        Failed = Cov.Failed;
        char Share[32];
        std::snprintf(Share, sizeof Share, "%.2g%%", 100.0 * Cov.WorstShare);
        if (!Failed && (!Cov.Unfilled.empty() || Cov.WorstShare > MaxMissingShare)) {
          Diags.warning(DiagLoc{Program},
                        "the capped timing probe left a loop before it made every call the "
                        "traces in '" +
                            O.Program + "' make (" +
                            (Cov.Unfilled.empty()
                                 ? std::string(Share) + " of rank " +
                                       std::to_string(Cov.WorstRank) +
                                       "'s segment executions never ran, first " + Cov.First
                                 : Cov.Unfilled + " never ran, nor any computation around those "
                                                  "calls") +
                            "); running it again with every iteration timed (as --full)",
                        "probe");
          Again = true;
        } else if (!Failed && Cov.Missing > 0) {
          Diags.note(DiagLoc{Program},
                     std::to_string(Cov.Missing) + " of the traces' " + std::to_string(Cov.Total) +
                         " segment executions (at most " + Share +
                         " of a rank's) never ran in the capped run, first " + Cov.First +
                         ": the estimate takes their time from the computations around the "
                         "same calls",
                     "probe");
        }
      }
      if (Failed) {
        if (!Keep)
          fs::remove_all(OutDir);
        return 1;
      }
    }
    if (Again) {
      Capped = Sampled = RanksRead = false;
      CappedLoops.clear();
      Sampling = SampledLoops{};
      Rc = runAgain({"MPIETE_CAP", "MPIETE_SAMPLE"}, "0");
    }
  }
  if (Rc != 0) {
    Diags.error(DiagLoc{Program},
                "the timing probe failed (exit status " + std::to_string(Rc) +
                    "): " + shellJoin(launchArgv(Launch)),
                "probe");
    if (!Keep)
      fs::remove_all(OutDir);
    return 1;
  }

  if (!RanksRead && !readRanks(OutDir, RanksPerNode, Program, Ranks, Diags)) {
    if (!Keep)
      fs::remove_all(OutDir);
    return 1;
  }
  // A task farm's per-task costs (rank<N>.tasks) go beside the machine file.
  TaskCosts Tasks;
  bool AnyTasks = false;
  if (!readTaskDirectory(OutDir.string(), Launch.Np, Tasks, AnyTasks, Diags))
    return 1;
  // --repeat N: the same run N - 1 times more (capped or sampled as the first ended up),
  // each read at once; combined below.
  std::vector<std::vector<RankTiming>> MoreRuns;
  std::vector<std::pair<TaskCosts, bool>> MoreTasks; // each repeat's, and whether it ran any
  // Each run starts at another rank where the order cannot change which messages the
  // wildcard receives take (none in the traces, or their matches forced) nor where a capped or
  // sampled loop stops: a disturbance at a fixed time into the run then falls on a different
  // rank each time (docs/token-passing.md, "The first rank").
  const bool Rotate = !Capped && !Sampled && !O.Program.empty() && (Forced || WildCount == 0);
  std::vector<int> FirstRanks; // each run's, the first's included
  for (int K = 1; K <= O.Repeat; ++K)
    FirstRanks.push_back(
        int((O.FirstRank + (Rotate ? (K - 1) * static_cast<long long>(Launch.Np) / O.Repeat : 0)) %
            Launch.Np));
  for (int K = 2; K <= O.Repeat; ++K) {
    const std::string First = std::to_string(FirstRanks[size_t(K - 1)]);
    const ProgressTicker Tick("mpiete probe-compute: timing run " + std::to_string(K) + " of " +
                              std::to_string(O.Repeat) + " (rank " + First + " first)");
    Rc = runAgain({"MPIETE_TOKEN_FIRST"}, First.c_str());
    if (Rc != 0 && (Capped || Sampled) && everyRankFinalized(OutDir, Launch.Np))
      Rc = 0; // the program's own check of skipped results, as in the first run
    std::vector<RankTiming> &Again = MoreRuns.emplace_back(size_t(Launch.Np));
    auto &[RunTasks, RunAny] = MoreTasks.emplace_back(TaskCosts{}, false);
    if (Rc != 0)
      Diags.error(DiagLoc{Program},
                  "timing run " + std::to_string(K) + " of " + std::to_string(O.Repeat) +
                      " failed (exit status " + std::to_string(Rc) +
                      "): " + shellJoin(launchArgv(Launch)),
                  "probe");
    if (Rc != 0 || !readRanks(OutDir, RanksPerNode, Program, Again, Diags) ||
        !readTaskDirectory(OutDir.string(), Launch.Np, RunTasks, RunAny, Diags)) {
      if (!Keep)
        fs::remove_all(OutDir);
      return 1;
    }
  }
  // A cost of the prediction: mpiete estimate reports it against the predicted run time.
  const double ProbeSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  size_t Blocks = 0, Segments = 0;
  for (const RankTiming &R : Ranks) {
    Blocks += R.Blocks.size();
    Segments += R.Segments.size();
  }

  MachineFile Machine;
  Machine.Provenance = provenanceOf(Launch, Ranks, blockMapOf(Program));
  Machine.Provenance.ProbeSeconds = ProbeSeconds;
  if (Forced)
    Machine.Provenance.WildcardsFrom = O.Program;
  if (std::any_of(FirstRanks.begin(), FirstRanks.end(), [](int F) { return F != 0; }))
    Machine.Provenance.FirstRanks = FirstRanks;
  if (Capped) {
    Machine.Provenance.SampleCap = O.Cap;
    Machine.Provenance.CappedLoops = CappedLoops;
    if (Tty)
      for (const std::string &L : Machine.Provenance.CappedLoops)
        std::cerr << "mpiete probe-compute: loop " << L << " (--cap " << O.Cap << ")\n";
  }
  if (Sampled && Sampling.Loops.empty())
    Diags.note(DiagLoc{Program},
               "--sample: no loop skipped an iteration (the sampled loops' hooks are built only "
               "with MPIETE_SAMPLE_LOOPS=1 or --mpiete-sample-loops; docs/probes.md)",
               "probe");
  if (Sampled) {
    Machine.Provenance.SampleStride = O.Sample;
    Machine.Provenance.SampledLoops = Sampling.Loops;
    Machine.Provenance.SampledSeconds = Sampling.EstimatedSeconds;
    if (Tty)
      for (const std::string &L : Sampling.Loops)
        std::cerr << "mpiete probe-compute: sampled loop " << L << " (--sample " << O.Sample
                  << ")\n";
  }
  // A program built for segment mode times the computation between consecutive MPI calls with
  // the clock reads its MPI entry points do anyway: segments are merged as measured, net of
  // nothing (no hook runs inside them). Blocks (--mpiete-seed-blocks builds, and runtimes
  // from before segment mode) are net of their hooks' timer overhead (machineRankOf).
  Machine.Partition = !Ranks.empty() && Ranks.front().Partition == "segments"
                          ? MachinePartition::Segments
                          : MachinePartition::Blocks;
  addRanks(Machine, Ranks);
  if (!MoreRuns.empty()) {
    std::vector<MachineFile> Runs{Machine};
    for (const std::vector<RankTiming> &Run : MoreRuns) {
      MachineFile &F = Runs.emplace_back();
      F.Partition = Machine.Partition;
      addRanks(F, Run);
    }
    if (std::string Why; !combineRepeatedRuns(Runs, Machine, Why)) {
      Diags.error(DiagLoc{Program}, "--repeat: " + Why, "probe");
      return 1;
    }
    // A farm's task costs: each task's median over the runs that measured the same tasks.
    std::vector<const TaskCosts *> Same{&Tasks};
    for (const auto &[T, Any] : MoreTasks)
      if (AnyTasks && Any && T.MeasuredParams == Tasks.MeasuredParams)
        Same.push_back(&T);
    takeTaskMedians(Tasks, Same);
  }
  if (AnyTasks) {
    Tasks.Tool = Machine.Provenance.Tool;
    Tasks.Host = hostName();
    Tasks.Command = shellJoin(launchArgv(Launch));
  }
  if (!writeComputeBaseData(Output, Machine, AnyTasks ? &Tasks : nullptr, Diags))
    return 1;
  // A loaded machine stretches the measured compute: say so beside the file, with its sign
  // (only where the ranks ran here: /proc/stat says nothing about srun's compute nodes).
  // One rank at a time on one processor (MPIETE_PIN=token, --cpu): others on that processor
  // stretch every time, even when the machine as a whole had processors to spare.
  const int RanCpu = Machine.Provenance.Cpu;
  const bool OneCpu =
      RanksPerNode == 1 && RanCpu >= 0 &&
      std::all_of(Ranks.begin(), Ranks.end(), [&](const RankTiming &T) { return T.Cpu == RanCpu; });
  if (const auto S = ranksRunHere(Launch) ? Load.finish(OneCpu ? RanCpu : -1) : std::nullopt) {
    const char *Effect = "its compute times are likely too long, so predictions from it "
                         "over-estimate the run time";
    std::string N = loadNotice(*S, RanksPerNode, "the timing probe", Effect);
    if (N.empty() && S->CpuShare >= 0)
      N = processorLoadNotice(S->CpuShare, RanCpu, S->Seconds, "the timing probe", Effect);
    if (!N.empty())
      Diags.warning(DiagLoc{Output}, N, "load");
  }
  if (Keep)
    std::cerr << "mpiete probe-compute: rank files kept in " << OutDir.string() << "\n";
  else
    fs::remove_all(OutDir);
  if (Tty) {
    const double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    std::cerr << "mpiete probe-compute: "
              << (Machine.Partition == MachinePartition::Segments ? Segments : Blocks)
              << (Machine.Partition == MachinePartition::Segments ? " segment" : " block")
              << " timings of " << Launch.Np << " ranks written to '" << Output << "' (" << Secs
              << " s)\n";
  }
  return 0;
}

} // namespace mpiete
