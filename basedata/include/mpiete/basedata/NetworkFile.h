// The communication base data file, network.yaml (format mpiete-network, version 1): its
// types, writer and reader, and the contention evidence of a `probe-comm --pairs K` file.
#ifndef MPIETE_BASEDATA_NETWORKFILE_H
#define MPIETE_BASEDATA_NETWORKFILE_H

#include "mpiete/basedata/CommProbe.h"
#include "mpiete/basedata/LogGps.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace mpiete {

class DiagnosticSink;

/// Where and how the network was measured.
struct NetworkProvenance {
  std::string Tool, Date;
  std::string Command;      ///< the launcher command line that ran the probe
  std::string Host0, Host1; ///< the hosts of rank 0 and rank 1
  std::string MpiLibrary;
  int Ranks = 0;
  int Pairs = 1; ///< pairs measured at once (probe-comm --pairs)
  bool sameNode() const { return Host0 == Host1; }
};

/// The sweep's settings.
struct NetworkSettings {
  uint64_t MaxSize = 0;
  uint64_t Step = 0;
  bool LogSizes = true; ///< powers of two and their midpoints besides the linear sweep
  double Tolerance = 0;
  int MinRepetitions = 0, MaxRepetitions = 0;
  /// "rewritten": the sender rewrote its send buffer before every timed send (a program's
  /// freshly computed data); "unchanged": it sent the same clean buffer every time (files
  /// before this setting: empty).
  std::string SendBuffers;
};

/// One message size of the table (medians unless a spread).
struct NetworkRow {
  uint64_t Bytes = 0;
  Spread Recv;           ///< one way: half the round trip of a ping-pong
  double IsendStart = 0; ///< MPI_Isend call, the receive already posted
  double IrecvStart = 0; ///< MPI_Irecv call before the message is sent
  double Arrived = 0;    ///< MPI_Recv of a message MPI_Iprobe saw arrive
  int Repetitions = 0;
};

/// Back-to-back 0-byte messages and their acknowledgement (the gap g).
struct NetworkStream {
  int Messages = 0, Repetitions = 0;
  Spread Time;
};

/// What the LogGPS fit rests on (loggps.fit), for a person judging it.
struct NetworkFitReport {
  bool BreakFound = false;
  double ArrivedShareBelow = 0, ArrivedShareAbove = 0; ///< recv_arrived / recv each side of S
  LineFit Eager, Synchronous;                          ///< recv_s each side of S
  double RelativeRms = 0;
  bool LClamped = false;
};

/// One size of an optional table of one time per size: memory_copy (a rank's local copy of
/// Bytes) or same_buffer (a message received into the buffer the rank has just sent from).
struct NetworkCopyRow {
  uint64_t Bytes = 0;
  Spread Time;
  int Repetitions = 0;
};

/// One piece length of the optional packed tables: one way of a message whose sender's
/// datatype has pieces of PieceBytes with gaps between them, per size.
struct NetworkPackedTable {
  uint64_t PieceBytes = 0;
  std::vector<NetworkCopyRow> Rows;
};

struct NetworkFile {
  static constexpr int FormatVersion = 1;
  NetworkProvenance Provenance;
  NetworkSettings Settings;
  std::vector<NetworkRow> Rows;
  NetworkStream Stream;
  LogGpsParams LogGps;
  NetworkFitReport Fit;
  /// memory_copy: copy time per size on one rank (collectives' own-block copies); empty in
  /// files of probes before it (the estimator then costs those copies nothing). Sizes ascend.
  std::vector<NetworkCopyRow> Copies;
  /// same_buffer: one way of a ping-pong in which each rank receives into the buffer it has
  /// just sent from (its lines left in the peer's cache by the peer's read); empty in files of
  /// probes before it (the estimator then charges such receives nothing extra). Sizes ascend.
  std::vector<NetworkCopyRow> SameBuffer;
  /// exchange: both ranks of a pair sending to each other at once, per size (the time of one
  /// such exchange); empty in files of probes before it (the estimator then lets a rank's
  /// simultaneous transfers run as if each were alone). Sizes ascend.
  std::vector<NetworkCopyRow> Exchange;
  /// exchange_packed: the same exchange of messages packed from pieces of PieceBytes; no rows
  /// in files of probes before it (the estimator then lets packed transfers share endpoints
  /// as contiguous ones do).
  NetworkPackedTable ExchangePacked;
  /// packed: per piece length (ascending), one way of a message packed from pieces of it;
  /// empty in files of probes before it (the estimator then costs such messages as
  /// contiguous ones).
  std::vector<NetworkPackedTable> Packed;
  /// unpacked: per piece length (ascending), one way of a message sent contiguously and
  /// received into a vector of pieces of it (the receiver's unpacking); empty in files of
  /// probes before it (the estimator then charges a message packed on both sides one side's
  /// extra, that of the shorter pieces).
  std::vector<NetworkPackedTable> Unpacked;
  /// memory_copy_packed: per piece length (ascending), MPI_Pack of such a vector into a
  /// contiguous buffer on one rank (a collective's copy of an own block with gaps); empty in
  /// files of probes before it (the estimator then costs such copies as a memcpy).
  std::vector<NetworkPackedTable> PackedCopies;
};

/// What `mpiete probe-comm` knows besides the probe's output.
struct NetworkRun {
  std::string Tool, Date, Command;
  uint64_t MaxSize = 0, Step = 0;
  bool LogSizes = true;
  std::string SendBuffers = "rewritten"; ///< NetworkSettings::SendBuffers
};

/// The file for what the probe printed and the fit to it.
NetworkFile makeNetworkFile(const CommProbeOutput &Data, const LogGpsFit &Fit,
                            const NetworkRun &Run);

void writeNetworkFile(std::ostream &OS, const NetworkFile &File);

/// The parts a reader needs: a missing one is an error; the table is read only when asked for.
/// Provenance, settings, stream and fit report describe the measurement: read when present.
enum NetworkParts : unsigned {
  NetworkLogGps = 1, ///< the loggps map with every parameter
  NetworkTable = 2,  ///< the table, with columns bytes and recv_s and at least one row
  NetworkAll = NetworkLogGps | NetworkTable,
};

/// Reads network.yaml from Text (Name for diagnostics, tagged [mpiete-network]); false
/// (reported at the place in the file) on error.
bool parseNetworkFile(const std::string &Name, const std::string &Text, NetworkFile &Out,
                      DiagnosticSink &Diags, unsigned Parts = NetworkAll);
/// The same from a file; `Path: error: cannot open the network file` if missing.
bool loadNetworkFile(const std::string &Path, NetworkFile &Out, DiagnosticSink &Diags,
                     unsigned Parts = NetworkAll);

/// The contention evidence of network.yaml: how many pairs probe-comm measured at once
/// (`--pairs K`, provenance.pairs) and, for K > 1, the aggregate bandwidth they reached at
/// the largest sizes: the median of K x bytes / recv_s over the three largest sizes. That is
/// what a node's link carries when K transfers share it (its capacity for the estimator).
struct NetworkPairs {
  unsigned Pairs = 1;
  double AggregateBytesPerSecond = 0; ///< 0 unless Pairs > 1
};
bool parseNetworkPairs(const std::string &Name, const std::string &Text, NetworkPairs &Out,
                       DiagnosticSink &Diags);
bool loadNetworkPairs(const std::string &Path, NetworkPairs &Out, DiagnosticSink &Diags);

} // namespace mpiete

#endif
