// The engine's hot-path rounding: std::llround without the libm call (the network models and
// the segment charges round once or twice per event, and the call was ~2.5% of a replay's
// instructions), and compute charges' picosecond carry without a 128-bit division.
#ifndef MPIETE_ESTIMATOR_LIB_ROUNDNS_H
#define MPIETE_ESTIMATOR_LIB_ROUNDNS_H

#include <cmath>
#include <cstdint>

namespace mpiete::estimator {

/// Equal to std::llround(X) for every X: halves round away from zero. Below 2^62 in magnitude
/// X - trunc(X) is exact (a double's fraction is a double), so the comparison decides as
/// llround does; larger, infinite or NaN values take llround itself.
inline int64_t roundNs(double X) {
  if (!(std::fabs(X) < 0x1p62))
    return std::llround(X);
  int64_t T = int64_t(X);
  double F = X - double(T);
  return F >= 0.5 ? T + 1 : F <= -0.5 ? T - 1 : T;
}

/// Picoseconds to whole nanoseconds, the remainder (< 1000 ps) left in CarryPs. A 128-bit
/// division is a libgcc call (~40 instructions per segment); totals below 2^64 ps (213 days)
/// divide by the constant in 64 bits, with the same quotient and remainder.
inline int64_t takeWholeNs(unsigned __int128 TotalPs, uint64_t &CarryPs) {
  if (uint64_t(TotalPs >> 64) == 0) {
    const uint64_t T = uint64_t(TotalPs);
    CarryPs = T % 1000;
    return int64_t(T / 1000);
  }
  CarryPs = uint64_t(TotalPs % 1000);
  return int64_t(TotalPs / 1000);
}

} // namespace mpiete::estimator

#endif
