// std::llround without the libm call: the network models and the segment charges round once
// or twice per event, and the call was ~2.5% of a replay's instructions.
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

} // namespace mpiete::estimator

#endif
