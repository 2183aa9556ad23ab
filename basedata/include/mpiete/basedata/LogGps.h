// The LogGPS parameters of a network (seed 003): what the comm probe's fit yields, the network
// file carries and the estimator's LogGPS link model replays.
#ifndef MPIETE_BASEDATA_LOGGPS_H
#define MPIETE_BASEDATA_LOGGPS_H

#include <cstdint>
#include <limits>
#include <optional>

namespace mpiete {

/// LogGPS (Ino et al.): transfer(k) = o_s + L + o_r + k G_eager for eager k < S; from S on the
/// message goes synchronously (rendezvous) at G per byte. Overheads are linear in the size.
struct LogGpsParams {
  double L = 0;         ///< latency (s): eager intercept minus o_s and o_r, at least 0
  double Os = 0;        ///< send overhead o_s (s) at 0 bytes
  double OsPerByte = 0; ///< its growth per byte (s/B) over eager sizes
  double Or = 0;        ///< receive overhead o_r (s) at 0 bytes
  double OrPerByte = 0; ///< its growth per byte (s/B) over eager sizes
  double Gap = 0;       ///< g (s): gap between back-to-back small messages, at least o_s
  double G = 0;         ///< gap per byte (s/B) of long (synchronous) messages
  double GEager = -1;   ///< gap per byte (s/B) below S; negative: G
  /// The first size sent synchronously (the network file's S); none: every size is eager.
  std::optional<uint64_t> S;

  /// The largest size sent eagerly, what the link models compare a message with.
  uint64_t eagerLimit() const {
    if (!S)
      return std::numeric_limits<uint64_t>::max();
    return *S > 0 ? *S - 1 : 0;
  }
};

} // namespace mpiete

#endif
