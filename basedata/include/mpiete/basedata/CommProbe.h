// What the comm probe measured (its text output, runtime/comm_probe) and the LogGPS fit to it;
// NetworkFile.h is the file that carries both (docs/probes.md).
#ifndef MPIETE_BASEDATA_COMMPROBE_H
#define MPIETE_BASEDATA_COMMPROBE_H

#include "mpiete/basedata/LogGps.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpiete {

/// Median and spread of one measured quantity, in seconds.
struct Spread {
  double Median = 0, P10 = 0, P90 = 0;
};

/// One message size of the table.
struct CommRow {
  uint64_t Bytes = 0;
  int Repetitions = 0;
  Spread Recv;       ///< one way: half the round trip of a ping-pong (send start to receive end)
  Spread IsendStart; ///< MPI_Isend call on the sender, receive already posted
  Spread IrecvStart; ///< MPI_Irecv call on the receiver, message not yet sent
  Spread Arrived;    ///< MPI_Recv of a message already there (Iprobe said so): o_r when eager
};

/// One size of the memory-copy table: memcpy of Bytes on one rank, the source rewritten before
/// each copy (a collective's copy of the rank's own block, freshly computed data).
struct CopyRow {
  uint64_t Bytes = 0;
  int Repetitions = 0;
  Spread Time;
};

/// Everything comm_probe printed.
struct CommProbeOutput {
  int Ranks = 0, Pairs = 1;
  std::string Host0, Host1, Library;
  double Tolerance = 0;
  int MinReps = 0, MaxReps = 0;
  std::vector<CommRow> Rows;
  int StreamLength = 0; ///< back-to-back 0-byte messages in one stream
  int StreamReps = 0;
  Spread Stream;               ///< the whole stream plus its acknowledgement
  std::vector<CopyRow> Copies; ///< empty from probes before the copy table
  /// "same" lines: the ping-pong receiving into the buffer just sent from (one way); empty
  /// from probes before it.
  std::vector<CopyRow> SameBuffer;
  /// "exchange" lines: both ranks of a pair sending to each other at once (the sender's
  /// time); empty from probes before it.
  std::vector<CopyRow> Exchange;
  /// "exchange-packed" lines: the same exchange of messages packed from pieces of
  /// ExchangePiece bytes; empty from probes before it.
  uint64_t ExchangePiece = 0;
  std::vector<CopyRow> ExchangePacked;
  /// "packed" lines: the ping-pong whose sender's datatype is a vector of pieces (one way),
  /// per piece length in the order printed (lengths ascending, each one's sizes ascending);
  /// empty from probes before it.
  std::vector<std::pair<uint64_t, std::vector<CopyRow>>> Packed;
  /// "unpacked" lines: the mirror ping-pong, sent contiguously and received into such a
  /// vector (one way), per piece length as Packed; empty from probes before it.
  std::vector<std::pair<uint64_t, std::vector<CopyRow>>> Unpacked;
  /// "copy-packed" lines: MPI_Pack of such vectors into a contiguous buffer on rank 0, per
  /// piece length as Packed; empty from probes before it.
  std::vector<std::pair<uint64_t, std::vector<CopyRow>>> PackedCopies;
};

/// Reads comm_probe's text between its begin and end markers (anything around them, e.g. the
/// launcher's own messages, is ignored). Returns an error message, empty on success.
std::string parseCommProbeOutput(const std::string &Text, CommProbeOutput &Out);

/// The sizes of the table (rows between two others, sorted by size) whose one-way time is more
/// than Factor times both neighbours', the larger size's too: no network's steady cost, but a
/// stall of that part of the run (seen once on a KVM guest: 4 ms at 8 KiB, against 3.3 us for
/// the same size half an hour earlier and 4-5 us for 4 and 16 KiB in the same run).
inline constexpr double SpikeFactor = 4;
std::vector<uint64_t> spikySizes(const CommProbeOutput &D, double Factor = SpikeFactor);

/// Each spiky size of D takes the row of the same size from Again (another run of the probe)
/// where that row is not spiky in Again. Returns the sizes still spiky in D.
std::vector<uint64_t> mendSpikes(CommProbeOutput &D, const CommProbeOutput &Again,
                                 double Factor = SpikeFactor);

/// y = Intercept + Slope * x.
struct LineFit {
  double Intercept = 0, Slope = 0;
  double at(double X) const { return Intercept + Slope * X; }
};

/// Two lines, one each side of a break: points [0, Break) on Left, [Break, n) on Right.
struct PiecewiseFit {
  LineFit Left, Right;
  size_t Break = 0; ///< index of the first point on the right line; 0 when there is none
  bool HasBreak = false;
  double RelativeRms = 0; ///< root mean square of (fit - y) / y over all points
};

/// Least squares fit of a line to points [From, To), minimising the relative residuals
/// (weights 1/y^2) so that microsecond and millisecond points count alike.
LineFit fitLine(const std::vector<double> &X, const std::vector<double> &Y, size_t From, size_t To);

/// A step up: values [0, Break) around Below (their median), [Break, n) around Above.
struct StepFit {
  size_t Break = 0; ///< 0 when there is no step
  bool HasBreak = false;
  double Below = 0, Above = 0;
};

/// The first index J, with at least MinSide values before it, where Y[J] and the median of the
/// Window values from J rise by MinRise or more over the median of all values before J. Medians,
/// and looking no further than the first rise, keep noise in the long tail from moving the step.
StepFit findStep(const std::vector<double> &Y, double MinRise, size_t MinSide = 3,
                 size_t Window = 3);

/// Both sides of a given break fitted by least squares (Break 0: one line through all).
PiecewiseFit fitAt(const std::vector<double> &X, const std::vector<double> &Y, size_t Break);

/// The LogGPS parameters fitted to a comm probe's table, with what the fit rests on.
struct LogGpsFit {
  LogGpsParams Params;
  /// Where the protocol changes: the step up of recv_arrived / recv. Receiving a message that
  /// has arrived is a copy out of MPI's buffer when it came eagerly (a small fraction of the
  /// one-way time) and the whole transfer when it is synchronous (most of it). The one-way curve
  /// alone also bends where messages outgrow the caches, which a two-line fit takes for S.
  StepFit Threshold;
  PiecewiseFit Fit;      ///< the one-way curve, one line each side of S
  bool LClamped = false; ///< the intercept was below o_s + o_r
};

LogGpsFit fitLogGps(const CommProbeOutput &Data);

} // namespace mpiete

#endif
