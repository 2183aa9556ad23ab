// network.yaml written from and read into a NetworkFile; the pairs' aggregate bandwidth.
#include "mpiete/basedata/NetworkFile.h"
#include "mpiete/basedata/YamlParser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace mpiete {

NetworkFile makeNetworkFile(const CommProbeOutput &Data, const LogGpsFit &Fit,
                            const NetworkRun &Run) {
  NetworkFile F;
  F.Provenance = {Run.Tool,   Run.Date,     Run.Command, Data.Host0,
                  Data.Host1, Data.Library, Data.Ranks,  Data.Pairs};
  F.Settings = {Run.MaxSize, Run.Step, Run.LogSizes, Data.Tolerance, Data.MinReps, Data.MaxReps};
  for (const CommRow &R : Data.Rows)
    F.Rows.push_back({R.Bytes, R.Recv, R.IsendStart.Median, R.IrecvStart.Median, R.Arrived.Median,
                      R.Repetitions});
  F.Stream = {Data.StreamLength, Data.StreamReps, Data.Stream};
  F.LogGps = Fit.Params;
  F.Fit = {Fit.Fit.HasBreak, Fit.Threshold.Below, Fit.Threshold.Above, Fit.Fit.Left,
           Fit.Fit.Right,    Fit.Fit.RelativeRms, Fit.LClamped};
  return F;
}

namespace {

void emitSpreadMap(YAML::Emitter &E, const Spread &S) {
  E << YAML::Flow << YAML::BeginMap << YAML::Key << "median" << YAML::Value << S.Median << YAML::Key
    << "p10" << YAML::Value << S.P10 << YAML::Key << "p90" << YAML::Value << S.P90 << YAML::EndMap;
}

void emitLine(YAML::Emitter &E, const LineFit &L) {
  E << YAML::Flow << YAML::BeginMap << YAML::Key << "intercept" << YAML::Value << L.Intercept
    << YAML::Key << "slope" << YAML::Value << L.Slope << YAML::EndMap;
}

} // namespace

void writeNetworkFile(std::ostream &OS, const NetworkFile &File) {
  const NetworkProvenance &Prov = File.Provenance;
  const NetworkSettings &Set = File.Settings;
  const LogGpsParams &P = File.LogGps;
  bool SameNode = Prov.sameNode();
  YAML::Emitter E;
  E.SetDoublePrecision(5);
  E << YAML::BeginMap;
  E << YAML::Key << "format" << YAML::Value << "mpiete-network";
  E << YAML::Key << "version" << YAML::Value << NetworkFile::FormatVersion;
  E << YAML::Key << "class" << YAML::Value << (SameNode ? "intra-node" : "inter-node");
  E << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "tool" << YAML::Value << Prov.Tool;
  E << YAML::Key << "date" << YAML::Value << Prov.Date;
  E << YAML::Key << "command" << YAML::Value << Prov.Command;
  E << YAML::Key << "hosts" << YAML::Value << YAML::Flow << YAML::BeginSeq << Prov.Host0
    << Prov.Host1 << YAML::EndSeq;
  E << YAML::Key << "same_node" << YAML::Value << SameNode;
  E << YAML::Key << "mpi_library" << YAML::Value << Prov.MpiLibrary;
  E << YAML::Key << "ranks" << YAML::Value << Prov.Ranks;
  E << YAML::Key << "pairs" << YAML::Value << Prov.Pairs;
  E << YAML::EndMap;

  E << YAML::Key << "settings" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "max_size" << YAML::Value << Set.MaxSize;
  E << YAML::Key << "step" << YAML::Value << Set.Step;
  E << YAML::Key << "log_sizes" << YAML::Value << Set.LogSizes;
  E << YAML::Key << "tolerance" << YAML::Value << Set.Tolerance;
  E << YAML::Key << "min_repetitions" << YAML::Value << Set.MinRepetitions;
  E << YAML::Key << "max_repetitions" << YAML::Value << Set.MaxRepetitions;
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
  for (const NetworkRow &R : File.Rows)
    E << YAML::Flow << YAML::BeginSeq << R.Bytes << R.Recv.Median << R.Recv.P10 << R.Recv.P90
      << R.IsendStart << R.IrecvStart << R.Arrived << R.Repetitions << YAML::EndSeq;
  E << YAML::EndSeq << YAML::EndMap;

  E << YAML::Key << "stream" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "messages" << YAML::Value << File.Stream.Messages;
  E << YAML::Key << "repetitions" << YAML::Value << File.Stream.Repetitions;
  E << YAML::Key << "time_s" << YAML::Value;
  emitSpreadMap(E, File.Stream.Time);
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
  E << YAML::Key << "break_found" << YAML::Value << File.Fit.BreakFound;
  E << YAML::Key << "arrived_share_below_S" << YAML::Value << File.Fit.ArrivedShareBelow;
  E << YAML::Key << "arrived_share_above_S" << YAML::Value << File.Fit.ArrivedShareAbove;
  E << YAML::Key << "eager" << YAML::Value;
  emitLine(E, File.Fit.Eager);
  E << YAML::Key << "synchronous" << YAML::Value;
  emitLine(E, File.Fit.Synchronous);
  E << YAML::Key << "relative_rms_residual" << YAML::Value << File.Fit.RelativeRms;
  E << YAML::Key << "L_clamped" << YAML::Value << File.Fit.LClamped;
  E << YAML::EndMap;
  E << YAML::EndMap;
  E << YAML::EndMap;
  OS << "# mpiete communication base data (docs/probes.md)\n" << E.c_str() << '\n';
}

namespace {

/// The table's rows in file order. Columns are found by name: bytes and recv_s are needed,
/// the others are read when there (a hand-written file may give just the two).
bool readTableRows(YamlParser &P, YAML::Node Root, std::vector<NetworkRow> &Out) {
  YAML::Node Table = Root["table"];
  if (!Table.IsMap() || !Table["columns"].IsSequence() || !Table["rows"].IsSequence())
    return P.error(Table.IsDefined() ? Table : Root, "missing 'table' with 'columns' and 'rows'");
  enum Column { Bytes, Recv, P10, P90, Isend, Irecv, Arrived, Reps, Columns };
  static const char *const Names[Columns] = {"bytes",          "recv_s",        "recv_p10_s",
                                             "recv_p90_s",     "isend_start_s", "irecv_start_s",
                                             "recv_arrived_s", "repetitions"};
  int At[Columns];
  std::fill(std::begin(At), std::end(At), -1);
  for (size_t I = 0; I < Table["columns"].size(); ++I) {
    std::string C = Table["columns"][I].as<std::string>("");
    for (int K = 0; K < Columns; ++K)
      if (C == Names[K])
        At[K] = int(I);
  }
  if (At[Bytes] < 0 || At[Recv] < 0)
    return P.error(Table["columns"], "the table needs columns 'bytes' and 'recv_s'");
  for (const YAML::Node &Row : Table["rows"]) {
    if (!Row.IsSequence() || Row.size() <= size_t(std::max(At[Bytes], At[Recv])))
      return P.error(Row, "table row too short");
    auto Optional = [&](Column K) {
      return At[K] >= 0 && size_t(At[K]) < Row.size() ? Row[At[K]].as<double>(0.0) : 0.0;
    };
    NetworkRow R;
    try {
      R.Bytes = Row[At[Bytes]].as<uint64_t>();
      R.Recv.Median = Row[At[Recv]].as<double>();
    } catch (const YAML::Exception &) {
      return P.error(Row, "table row is not numbers");
    }
    R.Recv.P10 = Optional(P10);
    R.Recv.P90 = Optional(P90);
    R.IsendStart = Optional(Isend);
    R.IrecvStart = Optional(Irecv);
    R.Arrived = Optional(Arrived);
    R.Repetitions = int(Optional(Reps));
    Out.push_back(R);
  }
  return true;
}

/// format: mpiete-network, as the first thing every reader checks.
bool checkFormat(YamlParser &P, const YAML::Node &Root) {
  if (!Root.IsMap() || !Root["format"] || Root["format"].as<std::string>("") != "mpiete-network")
    return P.error(Root, "not a network file: 'format: mpiete-network' expected");
  return true;
}

Spread spreadOf(YAML::Node N) {
  return {N["median"].as<double>(0), N["p10"].as<double>(0), N["p90"].as<double>(0)};
}

LineFit lineOf(YAML::Node N) { return {N["intercept"].as<double>(0), N["slope"].as<double>(0)}; }

/// The parts that describe the measurement: never an error, defaults where missing.
void readDescription(YAML::Node Root, NetworkFile &Out) {
  if (YAML::Node P = Root["provenance"]; P.IsMap()) {
    NetworkProvenance &V = Out.Provenance;
    V.Tool = P["tool"].as<std::string>("");
    V.Date = P["date"].as<std::string>("");
    V.Command = P["command"].as<std::string>("");
    if (P["hosts"].IsSequence() && P["hosts"].size() == 2) {
      V.Host0 = P["hosts"][0].as<std::string>("");
      V.Host1 = P["hosts"][1].as<std::string>("");
    }
    V.MpiLibrary = P["mpi_library"].as<std::string>("");
    V.Ranks = P["ranks"].as<int>(0);
    V.Pairs = P["pairs"].as<int>(1);
  }
  if (YAML::Node S = Root["settings"]; S.IsMap()) {
    NetworkSettings &V = Out.Settings;
    V.MaxSize = S["max_size"].as<uint64_t>(0);
    V.Step = S["step"].as<uint64_t>(0);
    V.LogSizes = S["log_sizes"].as<bool>(true);
    V.Tolerance = S["tolerance"].as<double>(0);
    V.MinRepetitions = S["min_repetitions"].as<int>(0);
    V.MaxRepetitions = S["max_repetitions"].as<int>(0);
  }
  if (YAML::Node S = Root["stream"]; S.IsMap()) {
    Out.Stream.Messages = S["messages"].as<int>(0);
    Out.Stream.Repetitions = S["repetitions"].as<int>(0);
    Out.Stream.Time = spreadOf(S["time_s"]);
  }
  if (YAML::Node G = Root["loggps"]; G.IsMap() && G["fit"].IsMap()) {
    YAML::Node F = G["fit"];
    NetworkFitReport &V = Out.Fit;
    V.BreakFound = F["break_found"].as<bool>(false);
    V.ArrivedShareBelow = F["arrived_share_below_S"].as<double>(0);
    V.ArrivedShareAbove = F["arrived_share_above_S"].as<double>(0);
    V.Eager = lineOf(F["eager"]);
    V.Synchronous = lineOf(F["synchronous"]);
    V.RelativeRms = F["relative_rms_residual"].as<double>(0);
    V.LClamped = F["L_clamped"].as<bool>(false);
  }
}

} // namespace

bool parseNetworkFile(const std::string &Name, const std::string &Text, NetworkFile &Out,
                      DiagnosticSink &Diags, unsigned Parts) {
  Out = NetworkFile();
  YAML::Node Root;
  YamlParser P{Name, Diags, "network"};
  if (!P.load(Text, Root) || !checkFormat(P, Root))
    return false;
  if (!Root["version"] || Root["version"].as<int>(0) != NetworkFile::FormatVersion)
    return P.error(Root["version"], "unsupported network file version (1 expected)");
  readDescription(Root, Out);
  if (Parts & NetworkLogGps) {
    YAML::Node G = Root["loggps"];
    if (!G.IsMap())
      return P.error(Root, "missing map 'loggps'");
    LogGpsParams &L = Out.LogGps;
    L.L = P.number(G, "L");
    L.Os = P.number(G, "o_s");
    L.OsPerByte = P.number(G, "o_s_per_byte");
    L.Or = P.number(G, "o_r");
    L.OrPerByte = P.number(G, "o_r_per_byte");
    L.Gap = P.number(G, "g");
    L.G = P.number(G, "G");
    L.GEager = P.number(G, "G_eager");
    if (YAML::Node S = G["S"]; S.IsDefined() && !S.IsNull())
      L.S = uint64_t(P.number(G, "S"));
    if (!P.Ok)
      return false;
  }
  if (Parts & NetworkTable) {
    if (!readTableRows(P, Root, Out.Rows))
      return false;
    if (Out.Rows.empty())
      return P.error(Root["table"]["rows"], "the table has no rows");
  }
  return true;
}

bool loadNetworkFile(const std::string &Path, NetworkFile &Out, DiagnosticSink &Diags,
                     unsigned Parts) {
  std::string Text;
  return readBaseDataText(Path, "network", Text, Diags) &&
         parseNetworkFile(Path, Text, Out, Diags, Parts);
}

bool parseNetworkPairs(const std::string &Name, const std::string &Text, NetworkPairs &Out,
                       DiagnosticSink &Diags) {
  Out = NetworkPairs();
  YAML::Node Root;
  YamlParser P{Name, Diags, "network"};
  if (!P.load(Text, Root) || !checkFormat(P, Root))
    return false;
  YAML::Node Pairs = Root["provenance"].IsMap() ? Root["provenance"]["pairs"] : YAML::Node();
  if (!Pairs.IsDefined() || Pairs.IsNull())
    return true; // older files: one pair
  int K = Pairs.as<int>(0);
  if (K < 1)
    return P.error(Pairs, "'pairs' must be a count of at least 1");
  Out.Pairs = unsigned(K);
  if (K == 1)
    return true;
  std::vector<NetworkRow> Rows;
  if (!readTableRows(P, Root, Rows))
    return false;
  std::erase_if(Rows, [](const NetworkRow &R) { return R.Bytes == 0 || !(R.Recv.Median > 0); });
  if (Rows.empty())
    return P.error(Root["table"]["rows"],
                   "no sizes above 0 bytes to take the aggregate bandwidth from");
  // The three largest sizes (a repeated size: its last row, as the table model reads it);
  // the median of their aggregate bandwidths keeps one disturbed point out.
  std::stable_sort(Rows.begin(), Rows.end(),
                   [](const NetworkRow &A, const NetworkRow &B) { return A.Bytes < B.Bytes; });
  std::vector<double> Rates;
  for (size_t I = Rows.size(); I-- > 0 && Rates.size() < 3;)
    if (I + 1 == Rows.size() || Rows[I].Bytes != Rows[I + 1].Bytes)
      Rates.push_back(double(K) * double(Rows[I].Bytes) / Rows[I].Recv.Median);
  std::sort(Rates.begin(), Rates.end());
  Out.AggregateBytesPerSecond =
      Rates.size() == 2 ? (Rates[0] + Rates[1]) / 2 : Rates[Rates.size() / 2];
  return true;
}

bool loadNetworkPairs(const std::string &Path, NetworkPairs &Out, DiagnosticSink &Diags) {
  std::string Text;
  return readBaseDataText(Path, "network", Text, Diags) &&
         parseNetworkPairs(Path, Text, Out, Diags);
}

} // namespace mpiete
