// The communication base data: what the comm probe measured, the LogGPS parameters fitted to
// it, and network.yaml, the file that carries both (docs/probes.md).
#ifndef MPIETE_TOOLS_COMMPROBE_H
#define MPIETE_TOOLS_COMMPROBE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
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

/// Everything comm_probe printed.
struct CommProbeOutput {
  int Ranks = 0, Pairs = 1;
  std::string Host0, Host1, Library;
  double Tolerance = 0;
  int MinReps = 0, MaxReps = 0;
  std::vector<CommRow> Rows;
  int StreamLength = 0; ///< back-to-back 0-byte messages in one stream
  int StreamReps = 0;
  Spread Stream; ///< the whole stream plus its acknowledgement
};

/// Reads comm_probe's text between its begin and end markers (anything around them, e.g. the
/// launcher's own messages, is ignored). Returns an error message, empty on success.
std::string parseCommProbeOutput(const std::string &Text, CommProbeOutput &Out);

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

/// LogGPS (seed 003): transfer(k) = o_s + L + k G + o_r for eager k < S; synchronous above S.
struct LogGpsParams {
  double L = 0;              ///< latency (s): eager intercept minus o_s and o_r, at least 0
  double Os = 0;             ///< send overhead o_s (s) at 0 bytes
  double OsPerByte = 0;      ///< its growth per byte (s/B) over eager sizes
  double Or = 0;             ///< receive overhead o_r (s) at 0 bytes
  double OrPerByte = 0;      ///< its growth per byte (s/B) over eager sizes
  double Gap = 0;            ///< g (s): gap between back-to-back small messages, at least o_s
  double G = 0;              ///< gap per byte (s/B) of long (synchronous) messages
  double GEager = 0;         ///< gap per byte (s/B) below S
  std::optional<uint64_t> S; ///< first size sent synchronously; none if no break was found
  /// Where the protocol changes: the step up of recv_arrived / recv. Receiving a message that
  /// has arrived is a copy out of MPI's buffer when it came eagerly (a small fraction of the
  /// one-way time) and the whole transfer when it is synchronous (most of it). The one-way curve
  /// alone also bends where messages outgrow the caches, which a two-line fit takes for S.
  StepFit Threshold;
  PiecewiseFit Fit;      ///< the one-way curve, one line each side of S
  bool LClamped = false; ///< the intercept was below o_s + o_r
};

LogGpsParams fitLogGps(const CommProbeOutput &Data);

/// Provenance added by the driver.
struct NetworkProvenance {
  std::string Tool, Date;
  std::string Command;  ///< the launcher command line that ran the probe
  uint64_t MaxSize = 0; ///< the sweep's settings
  uint64_t Step = 0;
  bool LogSizes = true;
};

/// Writes network.yaml (format mpiete-network, version 1).
void writeNetworkYaml(std::ostream &OS, const CommProbeOutput &Data, const LogGpsParams &P,
                      const NetworkProvenance &Prov);

} // namespace mpiete

#endif
