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
  F.Settings = {Run.MaxSize,  Run.Step,     Run.LogSizes,   Data.Tolerance,
                Data.MinReps, Data.MaxReps, Run.SendBuffers};
  for (const CommRow &R : Data.Rows)
    F.Rows.push_back({R.Bytes, R.Recv, R.IsendStart.Median, R.IrecvStart.Median, R.Arrived.Median,
                      R.Repetitions});
  F.Stream = {Data.StreamLength, Data.StreamReps, Data.Stream};
  F.LogGps = Fit.Params;
  auto RowsOf = [](const std::vector<CopyRow> &Rows) {
    std::vector<NetworkCopyRow> Out;
    for (const CopyRow &R : Rows)
      Out.push_back({R.Bytes, R.Time, R.Repetitions});
    return Out;
  };
  auto TablesOf = [&](const std::vector<std::pair<uint64_t, std::vector<CopyRow>>> &Tables) {
    std::vector<NetworkPackedTable> Out;
    for (const auto &[Piece, Rows] : Tables)
      Out.push_back({Piece, RowsOf(Rows)});
    return Out;
  };
  F.Copies = RowsOf(Data.Copies);
  F.SameBuffer = RowsOf(Data.SameBuffer);
  F.Exchange = RowsOf(Data.Exchange);
  F.ExchangePacked = {Data.ExchangePiece, RowsOf(Data.ExchangePacked)};
  F.Packed = TablesOf(Data.Packed);
  F.Unpacked = TablesOf(Data.Unpacked);
  F.PackedCopies = TablesOf(Data.PackedCopies);
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

/// A size table's columns and rows, in the map being written.
void emitRows(YAML::Emitter &E, const std::vector<NetworkCopyRow> &Rows,
              const std::string &Column) {
  E << YAML::Key << "columns" << YAML::Value << YAML::Flow << YAML::BeginSeq << "bytes"
    << Column + "_s" << Column + "_p10_s" << Column + "_p90_s" << "repetitions" << YAML::EndSeq;
  E << YAML::Key << "rows" << YAML::Value << YAML::BeginSeq;
  for (const NetworkCopyRow &R : Rows)
    E << YAML::Flow << YAML::BeginSeq << R.Bytes << R.Time.Median << R.Time.P10 << R.Time.P90
      << R.Repetitions << YAML::EndSeq;
  E << YAML::EndSeq;
}

/// An optional table of one time per size (memory_copy, same_buffer): left out when empty.
void emitSizeTable(YAML::Emitter &E, const char *Section, const std::vector<NetworkCopyRow> &Rows,
                   const std::string &Column, const char *Meaning) {
  if (Rows.empty())
    return;
  E << YAML::Key << Section << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "meaning" << YAML::Value << Meaning;
  emitRows(E, Rows, Column);
  E << YAML::EndMap;
}

/// One piece length's table: its piece_bytes and rows (inside a map the caller opened).
void emitPieceTable(YAML::Emitter &E, const NetworkPackedTable &T, const std::string &Column) {
  E << YAML::Key << "piece_bytes" << YAML::Value << T.PieceBytes;
  emitRows(E, T.Rows, Column);
}

/// Optional tables per piece length (packed, memory_copy_packed): left out when empty.
void emitPackedTables(YAML::Emitter &E, const char *Section,
                      const std::vector<NetworkPackedTable> &Tables, const std::string &Column,
                      const char *Meaning) {
  if (Tables.empty())
    return;
  E << YAML::Key << Section << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "meaning" << YAML::Value << Meaning;
  E << YAML::Key << "pieces" << YAML::Value << YAML::BeginSeq;
  for (const NetworkPackedTable &T : Tables) {
    E << YAML::BeginMap;
    emitPieceTable(E, T, Column);
    E << YAML::EndMap;
  }
  E << YAML::EndSeq << YAML::EndMap;
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
  if (!Set.SendBuffers.empty())
    E << YAML::Key << "send_buffers" << YAML::Value << Set.SendBuffers;
  E << YAML::EndMap;

  E << YAML::Key << "table" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "columns" << YAML::Value << YAML::Flow << YAML::BeginSeq << "bytes"
    << "recv_s" << "recv_p10_s" << "recv_p90_s" << "isend_start_s" << "irecv_start_s"
    << "recv_arrived_s" << "repetitions" << YAML::EndSeq;
  E << YAML::Key << "meaning" << YAML::Value << YAML::BeginMap;
  E << YAML::Key << "recv_s" << YAML::Value
    << "one-way time: half the round trip of a ping-pong of this size (median), each send "
       "buffer rewritten before its send unless settings: send_buffers says unchanged";
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
  emitSizeTable(E, "memory_copy", File.Copies, "copy",
                "memcpy of this many bytes on one rank, the source rewritten before each copy "
                "(median): what a collective's copy of the rank's own block costs");
  emitSizeTable(E, "same_buffer", File.SameBuffer, "recv",
                "one way (half the round trip) of a ping-pong in which each rank receives into "
                "the buffer it has just sent from (median): a message received into a buffer "
                "the peer has just read");
  emitSizeTable(E, "exchange", File.Exchange, "exchange",
                "both ranks of a pair sending this many bytes to each other at once "
                "(MPI_Sendrecv, median): a rank's two transfers sharing what copies them");
  if (!File.ExchangePacked.Rows.empty()) {
    E << YAML::Key << "exchange_packed" << YAML::Value << YAML::BeginMap;
    E << YAML::Key << "meaning" << YAML::Value
      << "both ranks of a pair sending this many bytes to each other at once, each as a vector "
         "of pieces of piece_bytes with gaps between them, received contiguously (median): "
         "each rank packing its message and unpacking its peer's";
    emitPieceTable(E, File.ExchangePacked, "exchange");
    E << YAML::EndMap;
  }
  emitPackedTables(E, "packed", File.Packed, "oneway",
                   "one way (half the round trip) of a ping-pong whose sender's datatype is a "
                   "vector of pieces of piece_bytes with gaps between them, received "
                   "contiguously (median): a message the library packs");
  emitPackedTables(E, "unpacked", File.Unpacked, "oneway",
                   "one way (half the round trip) of a ping-pong whose messages are sent "
                   "contiguously and received into a vector of pieces of piece_bytes with gaps "
                   "between them (median): a message the library unpacks");
  emitPackedTables(E, "memory_copy_packed", File.PackedCopies, "copy",
                   "MPI_Pack of a vector of pieces of piece_bytes with gaps between them into a "
                   "contiguous buffer on one rank, the source rewritten before each (median): "
                   "what a collective's copy of an own block with gaps costs");
  E << YAML::EndMap;
  OS << "# mpiete communication base data (docs/probes.md)\n" << E.c_str() << '\n';
}

namespace {

// Plausibility bounds: a value beyond them is a broken file, not a network.
constexpr double MaxSeconds = 1.0;         ///< L, o, g: one second per message is no network
constexpr double MaxSecondsPerByte = 1e-3; ///< G, per-byte overheads: 1 kB/s
constexpr double MaxTableSeconds = 1e3;    ///< a table entry
constexpr int64_t MaxBytes = int64_t(1) << 50;
constexpr int64_t MaxCount = int64_t(1) << 31;

/// Where each of the N named columns stands in a table's `columns` list (-1 where absent).
bool columnPositions(YamlParser &P, const YAML::Node &Columns, const char *const *Names, int N,
                     int *At) {
  std::fill(At, At + N, -1);
  for (size_t I = 0; I < Columns.size(); ++I) {
    const YAML::Node C = Columns[I];
    if (!C.IsScalar())
      return P.expected(C, "columns", "a list of column names");
    for (int K = 0; K < N; ++K)
      if (C.Scalar() == Names[K])
        At[K] = int(I);
  }
  return true;
}

/// The table's rows in file order. Columns are found by name: bytes and recv_s are needed,
/// the others are read when there (a hand-written file may give just the two). Every value
/// must be a finite non-negative number (bytes and repetitions whole numbers).
bool readTableRows(YamlParser &P, const YAML::Node &Root, std::vector<NetworkRow> &Out) {
  YAML::Node Table, Columns, Rows;
  if (!P.map(Root, "table", Table) || !P.list(Table, "columns", Columns) ||
      !P.list(Table, "rows", Rows))
    return false;
  enum Column { Bytes, Recv, P10, P90, Isend, Irecv, Arrived, Reps, NumColumns };
  static const char *const Names[NumColumns] = {"bytes",          "recv_s",        "recv_p10_s",
                                                "recv_p90_s",     "isend_start_s", "irecv_start_s",
                                                "recv_arrived_s", "repetitions"};
  int At[NumColumns];
  if (!columnPositions(P, Columns, Names, NumColumns, At))
    return false;
  if (At[Bytes] < 0 || At[Recv] < 0)
    return P.error(Columns, "the table needs columns 'bytes' and 'recv_s'");
  size_t Needed = size_t(std::max(At[Bytes], At[Recv])) + 1;
  for (const YAML::Node &Row : Rows) {
    if (!Row.IsSequence() || Row.size() < Needed)
      return P.error(Row, "table row too short: " + std::to_string(Needed) +
                              " numbers (bytes and recv_s) expected");
    NetworkRow R;
    int64_t Count = 0;
    if (!P.integerValue(Row[At[Bytes]], "bytes", Count, 0, MaxBytes))
      return false;
    R.Bytes = uint64_t(Count);
    auto Seconds = [&](Column K, double &V) {
      return At[K] < 0 || size_t(At[K]) >= Row.size() ||
             P.finiteValue(Row[At[K]], Names[K], V, 0, MaxTableSeconds);
    };
    if (!Seconds(Recv, R.Recv.Median) || !Seconds(P10, R.Recv.P10) || !Seconds(P90, R.Recv.P90) ||
        !Seconds(Isend, R.IsendStart) || !Seconds(Irecv, R.IrecvStart) ||
        !Seconds(Arrived, R.Arrived))
      return false;
    if (At[Reps] >= 0 && size_t(At[Reps]) < Row.size()) {
      if (!P.integerValue(Row[At[Reps]], "repetitions", Count, 0, MaxCount))
        return false;
      R.Repetitions = int(Count);
    }
    Out.push_back(R);
  }
  return true;
}

/// An optional table of one time per size (memory_copy: column copy_s; same_buffer: recv_s):
/// columns bytes and <Column>_s (the spread and repetitions read when there), at least one
/// row, sizes strictly ascending, finite non-negative values.
bool readSizeRows(YamlParser &P, const YAML::Node &Copy, const std::string &Section,
                  const std::string &Column, std::vector<NetworkCopyRow> &Out);

bool readSizeTable(YamlParser &P, const YAML::Node &Root, const std::string &Section,
                   const std::string &Column, std::vector<NetworkCopyRow> &Out) {
  YAML::Node Copy;
  if (!P.map(Root, Section.c_str(), Copy, false))
    return false;
  if (!Copy.IsMap())
    return true; // files of probes before the table
  return readSizeRows(P, Copy, Section, Column, Out);
}

/// Optional tables per piece length (packed and unpacked: column oneway_s; memory_copy_packed:
/// copy_s): a list of size tables, each with its piece_bytes, pieces strictly ascending.
bool readPackedTables(YamlParser &P, const YAML::Node &Root, const std::string &Section,
                      const std::string &Column, std::vector<NetworkPackedTable> &Out) {
  YAML::Node Packed, Pieces;
  if (!P.map(Root, Section.c_str(), Packed, false))
    return false;
  if (!Packed.IsMap())
    return true; // files of probes before the tables
  if (!P.list(Packed, "pieces", Pieces))
    return false;
  if (Pieces.size() == 0)
    return P.error(Pieces, "the " + Section + " tables list no piece lengths");
  for (const YAML::Node &Piece : Pieces) {
    if (!Piece.IsMap())
      return P.error(Piece, "a packed table is a map with piece_bytes, columns and rows");
    int64_t Bytes = 0;
    if (!P.integer(Piece, "piece_bytes", Bytes, 1, MaxBytes))
      return false;
    if (!Out.empty() && uint64_t(Bytes) <= Out.back().PieceBytes)
      return P.error(Piece, "packed piece lengths must ascend: " + std::to_string(Bytes) +
                                " after " + std::to_string(Out.back().PieceBytes));
    NetworkPackedTable T;
    T.PieceBytes = uint64_t(Bytes);
    if (!readSizeRows(P, Piece, Section + " (piece_bytes " + std::to_string(Bytes) + ")", Column,
                      T.Rows))
      return false;
    Out.push_back(std::move(T));
  }
  return true;
}

/// The optional exchange_packed table: piece_bytes and a size table (column exchange_s).
bool readExchangePacked(YamlParser &P, const YAML::Node &Root, NetworkPackedTable &Out) {
  YAML::Node Table;
  if (!P.map(Root, "exchange_packed", Table, false))
    return false;
  if (!Table.IsMap())
    return true; // files of probes before the table
  int64_t Bytes = 0;
  if (!P.integer(Table, "piece_bytes", Bytes, 1, MaxBytes))
    return false;
  Out.PieceBytes = uint64_t(Bytes);
  return readSizeRows(P, Table, "exchange_packed", "exchange", Out.Rows);
}

bool readSizeRows(YamlParser &P, const YAML::Node &Copy, const std::string &Section,
                  const std::string &Column, std::vector<NetworkCopyRow> &Out) {
  YAML::Node Columns, Rows;
  if (!P.list(Copy, "columns", Columns) || !P.list(Copy, "rows", Rows))
    return false;
  enum ColumnIndex { Bytes, Time, P10, P90, Reps, NumColumns };
  const std::string Owned[NumColumns] = {"bytes", Column + "_s", Column + "_p10_s",
                                         Column + "_p90_s", "repetitions"};
  const char *const Names[NumColumns] = {Owned[0].c_str(), Owned[1].c_str(), Owned[2].c_str(),
                                         Owned[3].c_str(), Owned[4].c_str()};
  int At[NumColumns];
  if (!columnPositions(P, Columns, Names, NumColumns, At))
    return false;
  if (At[Bytes] < 0 || At[Time] < 0)
    return P.error(Columns,
                   "the " + Section + " table needs columns 'bytes' and '" + Owned[Time] + "'");
  if (Rows.size() == 0)
    return P.error(Rows, "the " + Section + " table has no rows");
  size_t Needed = size_t(std::max(At[Bytes], At[Time])) + 1;
  for (const YAML::Node &Row : Rows) {
    if (!Row.IsSequence() || Row.size() < Needed)
      return P.error(Row, Section + " row too short: " + std::to_string(Needed) +
                              " numbers (bytes and " + Owned[Time] + ") expected");
    NetworkCopyRow R;
    int64_t Count = 0;
    if (!P.integerValue(Row[At[Bytes]], "bytes", Count, 0, MaxBytes))
      return false;
    R.Bytes = uint64_t(Count);
    if (!Out.empty() && R.Bytes <= Out.back().Bytes)
      return P.error(Row, Section + " sizes must ascend: " + std::to_string(R.Bytes) + " after " +
                              std::to_string(Out.back().Bytes));
    auto Seconds = [&](ColumnIndex K, double &V) {
      return At[K] < 0 || size_t(At[K]) >= Row.size() ||
             P.finiteValue(Row[At[K]], Names[K], V, 0, MaxTableSeconds);
    };
    if (!Seconds(Time, R.Time.Median) || !Seconds(P10, R.Time.P10) || !Seconds(P90, R.Time.P90))
      return false;
    if (At[Reps] >= 0 && size_t(At[Reps]) < Row.size()) {
      if (!P.integerValue(Row[At[Reps]], "repetitions", Count, 0, MaxCount))
        return false;
      R.Repetitions = int(Count);
    }
    Out.push_back(R);
  }
  return true;
}

/// format: mpiete-network, as the first thing every reader checks.
bool checkFormat(YamlParser &P, const YAML::Node &Root) {
  YAML::Node F;
  if (!Root.IsMap() || !YamlParser::find(Root, "format", F) || !F.IsScalar() ||
      F.Scalar() != "mpiete-network")
    return P.error(Root, "not a network file: 'format: mpiete-network' expected");
  return true;
}

bool spreadOf(YamlParser &P, const YAML::Node &Parent, const char *Key, Spread &S) {
  YAML::Node N;
  if (!P.map(Parent, Key, N, false))
    return false;
  return P.nonNegative(N, "median", S.Median, MaxTableSeconds, false) &&
         P.nonNegative(N, "p10", S.P10, MaxTableSeconds, false) &&
         P.nonNegative(N, "p90", S.P90, MaxTableSeconds, false);
}

bool lineOf(YamlParser &P, const YAML::Node &Parent, const char *Key, LineFit &L) {
  YAML::Node N;
  constexpr double Big = 1e6;
  return P.map(Parent, Key, N, false) && P.finite(N, "intercept", L.Intercept, -Big, Big, false) &&
         P.finite(N, "slope", L.Slope, -Big, Big, false);
}

bool intOf(YamlParser &P, const YAML::Node &Map, const char *Key, int &Out, int64_t Min) {
  int64_t V = Out;
  if (!P.integer(Map, Key, V, Min, MaxCount, false))
    return false;
  Out = int(V);
  return true;
}

bool sizeOf(YamlParser &P, const YAML::Node &Map, const char *Key, uint64_t &Out) {
  int64_t V = int64_t(Out);
  if (!P.integer(Map, Key, V, 0, MaxBytes, false))
    return false;
  Out = uint64_t(V);
  return true;
}

/// The parts that describe the measurement: optional, defaults where missing, but a value of
/// the wrong type is reported like any other.
bool readDescription(YamlParser &Y, const YAML::Node &Root, NetworkFile &Out) {
  YAML::Node P, S, St, G, F;
  if (!Y.map(Root, "provenance", P, false) || !Y.map(Root, "settings", S, false) ||
      !Y.map(Root, "stream", St, false) || !Y.map(Root, "loggps", G, false))
    return false;
  if (P.IsMap()) {
    NetworkProvenance &V = Out.Provenance;
    V.Pairs = 1;
    YAML::Node Hosts;
    if (!Y.string(P, "tool", V.Tool, false) || !Y.string(P, "date", V.Date, false) ||
        !Y.string(P, "command", V.Command, false) || !Y.list(P, "hosts", Hosts, false) ||
        !Y.string(P, "mpi_library", V.MpiLibrary, false) || !intOf(Y, P, "ranks", V.Ranks, 0) ||
        !intOf(Y, P, "pairs", V.Pairs, 1))
      return false;
    if (Hosts.IsSequence()) {
      if (Hosts.size() != 2 || !Hosts[0].IsScalar() || !Hosts[1].IsScalar())
        return Y.expected(Hosts, "hosts", "a list of two host names");
      V.Host0 = Hosts[0].Scalar();
      V.Host1 = Hosts[1].Scalar();
    }
  }
  if (S.IsMap()) {
    NetworkSettings &V = Out.Settings;
    if (!sizeOf(Y, S, "max_size", V.MaxSize) || !sizeOf(Y, S, "step", V.Step) ||
        !Y.boolean(S, "log_sizes", V.LogSizes, false) ||
        !Y.finite(S, "tolerance", V.Tolerance, 0, 1e6, false) ||
        !intOf(Y, S, "min_repetitions", V.MinRepetitions, 0) ||
        !intOf(Y, S, "max_repetitions", V.MaxRepetitions, 0) ||
        !Y.string(S, "send_buffers", V.SendBuffers, false))
      return false;
    if (!V.SendBuffers.empty() && V.SendBuffers != "rewritten" && V.SendBuffers != "unchanged")
      return Y.expected(S["send_buffers"], "send_buffers", "rewritten or unchanged");
  }
  if (St.IsMap() && (!intOf(Y, St, "messages", Out.Stream.Messages, 0) ||
                     !intOf(Y, St, "repetitions", Out.Stream.Repetitions, 0) ||
                     !spreadOf(Y, St, "time_s", Out.Stream.Time)))
    return false;
  if (G.IsMap()) {
    if (!Y.map(G, "fit", F, false))
      return false;
    if (F.IsMap()) {
      NetworkFitReport &V = Out.Fit;
      if (!Y.boolean(F, "break_found", V.BreakFound, false) ||
          !Y.finite(F, "arrived_share_below_S", V.ArrivedShareBelow, 0, 1e6, false) ||
          !Y.finite(F, "arrived_share_above_S", V.ArrivedShareAbove, 0, 1e6, false) ||
          !lineOf(Y, F, "eager", V.Eager) || !lineOf(Y, F, "synchronous", V.Synchronous) ||
          !Y.finite(F, "relative_rms_residual", V.RelativeRms, 0, 1e6, false) ||
          !Y.boolean(F, "L_clamped", V.LClamped, false))
        return false;
    }
  }
  return true;
}

} // namespace

bool parseNetworkFile(const std::string &Name, const std::string &Text, NetworkFile &Out,
                      DiagnosticSink &Diags, unsigned Parts) {
  Out = NetworkFile();
  YAML::Node Root;
  YamlParser P{Name, Diags, "network"};
  if (!P.load(Text, Root) || !checkFormat(P, Root))
    return false;
  int64_t Version = 0;
  if (!P.integer(Root, "version", Version, 0, MaxCount))
    return false;
  if (Version != NetworkFile::FormatVersion) {
    YAML::Node V;
    YamlParser::find(Root, "version", V);
    return P.error(V, "unsupported network file version (1 expected)");
  }
  if (!readDescription(P, Root, Out) ||
      !readSizeTable(P, Root, "memory_copy", "copy", Out.Copies) ||
      !readSizeTable(P, Root, "same_buffer", "recv", Out.SameBuffer) ||
      !readSizeTable(P, Root, "exchange", "exchange", Out.Exchange) ||
      !readExchangePacked(P, Root, Out.ExchangePacked) ||
      !readPackedTables(P, Root, "packed", "oneway", Out.Packed) ||
      !readPackedTables(P, Root, "unpacked", "oneway", Out.Unpacked) ||
      !readPackedTables(P, Root, "memory_copy_packed", "copy", Out.PackedCopies))
    return false;
  if (Parts & NetworkLogGps) {
    YAML::Node G;
    if (!P.map(Root, "loggps", G))
      return false;
    LogGpsParams &L = Out.LogGps;
    if (!P.nonNegative(G, "L", L.L, MaxSeconds) || !P.nonNegative(G, "o_s", L.Os, MaxSeconds) ||
        !P.nonNegative(G, "o_s_per_byte", L.OsPerByte, MaxSecondsPerByte) ||
        !P.nonNegative(G, "o_r", L.Or, MaxSeconds) ||
        !P.nonNegative(G, "o_r_per_byte", L.OrPerByte, MaxSecondsPerByte) ||
        !P.nonNegative(G, "g", L.Gap, MaxSeconds) ||
        !P.nonNegative(G, "G", L.G, MaxSecondsPerByte) ||
        !P.nonNegative(G, "G_eager", L.GEager, MaxSecondsPerByte))
      return false;
    // S: bytes, or null for no protocol change; infinity or a fraction is no size.
    YAML::Node SNode;
    if (P.present(G, "S", SNode, false)) {
      int64_t S = 0;
      if (!P.integerValue(SNode, "S", S, 0, MaxBytes))
        return false;
      L.S = uint64_t(S);
    }
  }
  if (Parts & NetworkTable) {
    if (!readTableRows(P, Root, Out.Rows))
      return false;
    if (Out.Rows.empty()) {
      YAML::Node T, Rows;
      YamlParser::find(Root, "table", T);
      YamlParser::find(T, "rows", Rows);
      return P.error(Rows, "the table has no rows");
    }
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
  YAML::Node Prov, Pairs;
  if (!P.map(Root, "provenance", Prov, false))
    return false;
  if (!P.present(Prov, "pairs", Pairs, false))
    return true; // older files: one pair
  int64_t K = 0;
  if (!P.integerValue(Pairs, "pairs", K, 1, MaxCount))
    return false;
  Out.Pairs = unsigned(K);
  if (K == 1)
    return true;
  std::vector<NetworkRow> Rows;
  if (!readTableRows(P, Root, Rows))
    return false;
  std::erase_if(Rows, [](const NetworkRow &R) { return R.Bytes == 0 || !(R.Recv.Median > 0); });
  if (Rows.empty()) {
    YAML::Node T, TRows;
    YamlParser::find(Root, "table", T);
    YamlParser::find(T, "rows", TRows);
    return P.error(TRows, "no sizes above 0 bytes to take the aggregate bandwidth from");
  }
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
