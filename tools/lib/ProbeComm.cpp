// `mpiete probe-comm`: runs comm_probe through the launcher, fits LogGPS to what it measured and
// writes the communication base data (network.yaml).
#include "CommandUtil.h"

#include "mpiete/frontend/BlockMap.h"
#include "mpiete/support/Process.h"
#include "mpiete/support/Version.h"
#include "mpiete/tools/CommProbe.h"
#include "mpiete/tools/Commands.h"
#include "mpiete/tools/Launcher.h"

#include <yaml-cpp/yaml.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mpiete {
namespace {

const char *const Help = R"(usage: mpiete probe-comm -o FILE [options] [-np R] [launcher options]

Measures the communication base data between rank 0 and rank 1 (two nodes of the target
cluster, or two ranks of one node for the intra-node class) and writes FILE (YAML): for each
message size the one-way time (half a ping-pong round trip), its p10/p90, the start cost of
MPI_Isend and MPI_Irecv, the receive of an already arrived message, and the LogGPS parameters
(L, o_s, o_r, g, G, S) fitted to them. See docs/probes.md.

Example:
  mpiete probe-comm -o network.yaml --launcher srun -N 2 --ntasks-per-node 1
  mpiete probe-comm -o shm.yaml --max-size 1MiB

Options:
  -o FILE            the network file to write (required)
  --max-size BYTES   largest message (default 4MiB; units k, M, G are binary)
  --step BYTES       step of the linear sweep (default: max-size / 64); powers of two and
                     their midpoints are measured too unless --linear-only
  --linear-only      only 0, step, 2 step, ... max-size (seed 004's sweep)
  --pairs K          K pairs measured at once (rank i with rank i+K), for contention; the
                     table is pair 0's (default 1)
  --min-reps N       repetitions at least (default 20), --max-reps N at most (default 1000)
  --tolerance X      stop when the median moved by less than X over a batch (default 0.02)
  --launcher NAME    mpirun (default), mpiexec, srun, "flux run", ...
  -np R              ranks (default 2 K); other options before the end go to the launcher
  --verbose          print the launcher command
Environment: MPIETE_COMM_PROBE overrides the probe program's path.
)";

/// Splits "key rest-of-line".
std::pair<std::string, std::string> splitKey(const std::string &Line) {
  size_t Sp = Line.find(' ');
  if (Sp == std::string::npos)
    return {Line, ""};
  return {Line.substr(0, Sp), Line.substr(Sp + 1)};
}

bool readSpread(std::istringstream &In, Spread &S) {
  return static_cast<bool>(In >> S.Median >> S.P10 >> S.P90);
}

void emitSpreadMap(YAML::Emitter &E, const Spread &S) {
  E << YAML::Flow << YAML::BeginMap << YAML::Key << "median" << YAML::Value << S.Median << YAML::Key
    << "p10" << YAML::Value << S.P10 << YAML::Key << "p90" << YAML::Value << S.P90 << YAML::EndMap;
}

void emitLine(YAML::Emitter &E, const LineFit &L) {
  E << YAML::Flow << YAML::BeginMap << YAML::Key << "intercept" << YAML::Value << L.Intercept
    << YAML::Key << "slope" << YAML::Value << L.Slope << YAML::EndMap;
}

std::optional<std::string> optionValue(const ProbeCommandLine &CL, const std::string &Name) {
  std::optional<std::string> V;
  for (const auto &[N, Value] : CL.Options)
    if (N == Name)
      V = Value;
  return V;
}

} // namespace

std::string parseCommProbeOutput(const std::string &Text, CommProbeOutput &Out) {
  std::istringstream In(Text);
  std::string Line;
  bool Begun = false, Ended = false;
  unsigned LineNo = 0;
  while (std::getline(In, Line)) {
    ++LineNo;
    // The launcher may prefix or interleave its own lines; keep only ours.
    if (!Begun) {
      if (Line.rfind("mpiete-comm-probe-begin", 0) == 0) {
        Begun = true;
        if (splitKey(Line).second != "1")
          return "unsupported comm probe output version '" + splitKey(Line).second + "'";
      }
      continue;
    }
    if (Line == "mpiete-comm-probe-end") {
      Ended = true;
      break;
    }
    auto [Key, Rest] = splitKey(Line);
    std::istringstream Fields(Rest);
    bool Ok = true;
    if (Key == "ranks")
      Ok = static_cast<bool>(Fields >> Out.Ranks);
    else if (Key == "pairs")
      Ok = static_cast<bool>(Fields >> Out.Pairs);
    else if (Key == "host0")
      Out.Host0 = Rest;
    else if (Key == "host1")
      Out.Host1 = Rest;
    else if (Key == "library")
      Out.Library = Rest;
    else if (Key == "tolerance")
      Ok = static_cast<bool>(Fields >> Out.Tolerance);
    else if (Key == "min-reps")
      Ok = static_cast<bool>(Fields >> Out.MinReps);
    else if (Key == "max-reps")
      Ok = static_cast<bool>(Fields >> Out.MaxReps);
    else if (Key == "row") {
      CommRow R;
      Ok = static_cast<bool>(Fields >> R.Bytes >> R.Repetitions) && readSpread(Fields, R.Recv) &&
           readSpread(Fields, R.IsendStart) && readSpread(Fields, R.IrecvStart) &&
           readSpread(Fields, R.Arrived);
      if (Ok)
        Out.Rows.push_back(R);
    } else if (Key == "stream") {
      Ok = static_cast<bool>(Fields >> Out.StreamLength >> Out.StreamReps) &&
           readSpread(Fields, Out.Stream);
    }
    // Unknown keys come from a newer probe: ignored.
    if (!Ok)
      return "malformed comm probe line " + std::to_string(LineNo) + ": '" + Line + "'";
  }
  if (!Begun)
    return "the comm probe printed no table";
  if (!Ended)
    return "the comm probe's table is truncated (no end marker)";
  if (Out.Rows.empty())
    return "the comm probe's table has no rows";
  return {};
}

void writeNetworkYaml(std::ostream &OS, const CommProbeOutput &Data, const LogGpsParams &P,
                      const NetworkProvenance &Prov) {
  bool SameNode = Data.Host0 == Data.Host1;
  YAML::Emitter E;
  E.SetDoublePrecision(5);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-network";
  E << YAML::Key << "version" << YAML::Value << 1;
  E << YAML::Key << "class" << YAML::Value << (SameNode ? "intra-node" : "inter-node");
  E << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "tool" << YAML::Value << Prov.Tool;
  E << YAML::Key << "date" << YAML::Value << Prov.Date;
  E << YAML::Key << "command" << YAML::Value << Prov.Command;
  E << YAML::Key << "hosts" << YAML::Value << YAML::Flow << YAML::BeginSeq << Data.Host0
    << Data.Host1 << YAML::EndSeq;
  E << YAML::Key << "same_node" << YAML::Value << SameNode;
  E << YAML::Key << "mpi_library" << YAML::Value << Data.Library;
  E << YAML::Key << "ranks" << YAML::Value << Data.Ranks;
  E << YAML::Key << "pairs" << YAML::Value << Data.Pairs;
  E << YAML::EndMap;

  E << YAML::Key << "settings" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "max_size" << YAML::Value << Prov.MaxSize;
  E << YAML::Key << "step" << YAML::Value << Prov.Step;
  E << YAML::Key << "log_sizes" << YAML::Value << Prov.LogSizes;
  E << YAML::Key << "tolerance" << YAML::Value << Data.Tolerance;
  E << YAML::Key << "min_repetitions" << YAML::Value << Data.MinReps;
  E << YAML::Key << "max_repetitions" << YAML::Value << Data.MaxReps;
  E << YAML::EndMap;

  E << YAML::Key << "table" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "columns" << YAML::Value << YAML::Flow << YAML::BeginSeq << "bytes"
    << "recv_s" << "recv_p10_s" << "recv_p90_s" << "isend_start_s" << "irecv_start_s"
    << "recv_arrived_s" << "repetitions" << YAML::EndSeq;
  E << YAML::Key << "meaning" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "recv_s" << YAML::Value
    << "one-way time: half the round trip of a ping-pong of this size (median)";
  E << YAML::Key << "isend_start_s" << YAML::Value
    << "MPI_Isend call on rank 0, the receive already posted (median)";
  E << YAML::Key << "irecv_start_s" << YAML::Value
    << "MPI_Irecv call on rank 1 before the message is sent (median)";
  E << YAML::Key << "recv_arrived_s" << YAML::Value
    << "MPI_Recv on rank 1 of a message MPI_Iprobe saw arrive (median)";
  E << YAML::EndMap;
  E << YAML::Key << "rows" << YAML::Value << YAML::BeginSeq;
  for (const CommRow &R : Data.Rows)
    E << YAML::Flow << YAML::BeginSeq << R.Bytes << R.Recv.Median << R.Recv.P10 << R.Recv.P90
      << R.IsendStart.Median << R.IrecvStart.Median << R.Arrived.Median << R.Repetitions
      << YAML::EndSeq;
  E << YAML::EndSeq << YAML::EndMap;

  E << YAML::Key << "stream" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "messages" << YAML::Value << Data.StreamLength;
  E << YAML::Key << "repetitions" << YAML::Value << Data.StreamReps;
  E << YAML::Key << "time_s" << YAML::Value;
  emitSpreadMap(E, Data.Stream);
  E << YAML::EndMap;

  E << YAML::Key << "loggps" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "L" << YAML::Value << P.L;
  E << YAML::Key << "o_s" << YAML::Value << P.Os;
  E << YAML::Key << "o_s_per_byte" << YAML::Value << P.OsPerByte;
  E << YAML::Key << "o_r" << YAML::Value << P.Or;
  E << YAML::Key << "o_r_per_byte" << YAML::Value << P.OrPerByte;
  E << YAML::Key << "g" << YAML::Value << P.Gap;
  E << YAML::Key << "G" << YAML::Value << P.G;
  E << YAML::Key << "G_eager" << YAML::Value << P.GEager;
  E << YAML::Key << "S" << YAML::Value;
  if (P.S)
    E << *P.S;
  else
    E << YAML::Null;
  E << YAML::Key << "units" << YAML::Value
    << "seconds; per_byte and G in seconds per byte; S in bytes";
  E << YAML::Key << "fit" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "method" << YAML::Value
    << "S: first size where the median share recv_arrived_s / recv_s of it and the next two "
       "sizes rises by 0.2 over the median below; then a least-squares line of recv_s each "
       "side of S (relative residuals)";
  E << YAML::Key << "break_found" << YAML::Value << P.Fit.HasBreak;
  E << YAML::Key << "arrived_share_below_S" << YAML::Value << P.Threshold.Below;
  E << YAML::Key << "arrived_share_above_S" << YAML::Value << P.Threshold.Above;
  E << YAML::Key << "eager" << YAML::Value;
  emitLine(E, P.Fit.Left);
  E << YAML::Key << "synchronous" << YAML::Value;
  emitLine(E, P.Fit.Right);
  E << YAML::Key << "relative_rms_residual" << YAML::Value << P.Fit.RelativeRms;
  E << YAML::Key << "L_clamped" << YAML::Value << P.LClamped;
  E << YAML::EndMap;
  E << YAML::EndMap;
  E << YAML::EndMap;
  OS << "# mpiete communication base data (docs/probes.md)\n" << E.c_str() << '\n';
}

int runProbeComm(const CommandArgs &Args) {
  ProbeCommandLine CL;
  std::string Err = parseProbeCommandLine(Args,
                                          {{"-o", true},
                                           {"--max-size", true},
                                           {"--step", true},
                                           {"--linear-only", false},
                                           {"--pairs", true},
                                           {"--min-reps", true},
                                           {"--max-reps", true},
                                           {"--tolerance", true},
                                           {"--verbose", false}},
                                          /*WantProgram=*/false, CL);
  if (CL.Help) {
    std::cout << Help;
    return 0;
  }
  if (!Err.empty())
    return commandError("probe-comm: " + Err + " (see 'mpiete probe-comm --help')", 2);
  std::optional<std::string> OutPath = optionValue(CL, "-o");
  if (!OutPath || OutPath->empty())
    return commandError("probe-comm: no output file: give -o FILE", 2);

  uint64_t MaxSize = 4ULL << 20;
  if (auto V = optionValue(CL, "--max-size")) {
    auto N = parseByteCount(*V);
    if (!N || *N > static_cast<uint64_t>(INT_MAX))
      return commandError("probe-comm: invalid --max-size '" + *V + "'", 2);
    MaxSize = *N;
  }
  uint64_t Step = MaxSize / 64 ? MaxSize / 64 : 1;
  if (auto V = optionValue(CL, "--step")) {
    auto N = parseByteCount(*V);
    if (!N || *N == 0)
      return commandError("probe-comm: invalid --step '" + *V + "'", 2);
    Step = *N;
  }
  int Pairs = 1;
  std::vector<std::string> Extra;
  for (const char *Name : {"--pairs", "--min-reps", "--max-reps"}) {
    if (auto V = optionValue(CL, Name)) {
      char *End = nullptr;
      long N = std::strtol(V->c_str(), &End, 10);
      if (V->empty() || *End || N < 1 || N > 1000000)
        return commandError(std::string("probe-comm: invalid ") + Name + " '" + *V + "'", 2);
      if (std::string(Name) == "--pairs")
        Pairs = static_cast<int>(N);
      Extra.insert(Extra.end(), {Name, *V});
    }
  }
  if (auto V = optionValue(CL, "--tolerance")) {
    char *End = nullptr;
    double T = std::strtod(V->c_str(), &End);
    if (V->empty() || *End || !(T > 0 && T < 1))
      return commandError("probe-comm: invalid --tolerance '" + *V + "' (between 0 and 1)", 2);
    Extra.insert(Extra.end(), {"--tolerance", *V});
  }
  bool LogSizes = !optionValue(CL, "--linear-only");

  fs::path Probe;
  if (const char *P = std::getenv("MPIETE_COMM_PROBE"); P && *P)
    Probe = P;
  else
    Probe = selfBinDir().parent_path() / "libexec" / "mpiete" / "comm_probe";
  std::error_code EC;
  if (!fs::exists(Probe, EC))
    return commandError("probe-comm: the comm probe program '" + Probe.string() +
                        "' is missing (set MPIETE_COMM_PROBE)");

  LaunchSpec Spec = CL.Launch;
  if (Spec.Np == 0)
    Spec.Np = 2 * Pairs;
  if (Spec.Np < 2 * Pairs)
    return commandError("probe-comm: " + std::to_string(Pairs) + " pair(s) need -np " +
                            std::to_string(2 * Pairs) + " at least",
                        2);
  Spec.Program = {fs::absolute(Probe, EC).string(), "--max-size", std::to_string(MaxSize), "--step",
                  std::to_string(Step)};
  Spec.Program.insert(Spec.Program.end(), Extra.begin(), Extra.end());
  if (!LogSizes)
    Spec.Program.push_back("--linear-only");
  if (isatty(STDERR_FILENO))
    Spec.Program.push_back("--progress");
  std::vector<std::string> Argv = launchArgv(Spec);
  if (optionValue(CL, "--verbose"))
    std::cerr << "mpiete: running " << shellJoin(Argv) << '\n';

  std::optional<std::string> Text = captureProcess(Argv);
  if (!Text)
    return commandError("probe-comm: the comm probe failed: " + shellJoin(Argv));
  CommProbeOutput Data;
  if (std::string E = parseCommProbeOutput(*Text, Data); !E.empty())
    return commandError("probe-comm: " + E);
  LogGpsParams Params = fitLogGps(Data);

  NetworkProvenance Prov;
  Prov.Tool = std::string("mpiete ") + MPIETE_VERSION;
  Prov.Date = isoDateNow();
  Prov.Command = shellJoin(Argv);
  Prov.MaxSize = MaxSize;
  Prov.Step = Step;
  Prov.LogSizes = LogSizes;
  std::ofstream OS(*OutPath);
  if (!OS)
    return commandError("probe-comm: cannot write '" + *OutPath + "'");
  writeNetworkYaml(OS, Data, Params, Prov);
  OS.close();
  if (!OS)
    return commandError("probe-comm: cannot write '" + *OutPath + "'");

  std::ostringstream Summary;
  Summary.precision(3);
  Summary << "mpiete: wrote " << *OutPath << " (" << Data.Rows.size() << " sizes, "
          << (Data.Host0 == Data.Host1 ? "intra-node " + Data.Host0
                                       : "inter-node " + Data.Host0 + " - " + Data.Host1)
          << "): L=" << Params.L * 1e6 << "us o_s=" << Params.Os * 1e6
          << "us o_r=" << Params.Or * 1e6 << "us g=" << Params.Gap * 1e6
          << "us G=" << Params.G * 1e9
          << "ns/B S=" << (Params.S ? std::to_string(*Params.S) + "B" : std::string("none"))
          << '\n';
  std::cout << Summary.str();
  return 0;
}

} // namespace mpiete
