// The timing variant's compute segments: the computation of a rank between two consecutive
// outermost MPI calls, keyed by (site of the call it starts after, site of the call it ends
// at), timed by the clock reads at those calls (docs/runtime-abi.md, "Segments").
//
// Per segment: executions, total, Welford mean and deviation, min, max, and the per-occurrence
// series in bounded memory: at most SeriesBuckets buckets of consecutive occurrences, each the
// sum of `width` occurrences; when the buckets are full, adjacent pairs merge and the width
// doubles. Exact up to SeriesBuckets occurrences, trend-preserving beyond. Nothing allocates
// after the table and the series have grown (amortised doubling).
#ifndef MPIETE_RUNTIME_SEGMENTS_H
#define MPIETE_RUNTIME_SEGMENTS_H

#include "mpiete/instrument.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace mpiete {

struct Segment {
  mpiete_site_t From, To;
  uint64_t Executions;
  uint64_t Nanos; // total
  double Mean, M2;
  uint64_t Min, Max;
  // The series: Buckets[0, NBuckets), the last holding InLast of Width occurrences.
  uint64_t *Buckets;
  uint32_t NBuckets, BucketCapacity;
  uint64_t Width, InLast;
  bool Used;
};

class SegmentTable {
public:
  static constexpr uint32_t SeriesBuckets = 4096;

  /// One occurrence of From -> To took Nanos.
  void add(mpiete_site_t From, mpiete_site_t To, uint64_t Nanos);
  size_t size() const { return Count; }
  /// Writes the `segment` (and, when the spread matters, `series`) lines, sorted by key.
  void write(std::FILE *F) const;
  /// Test access: the segment From -> To, or null.
  const Segment *find(mpiete_site_t From, mpiete_site_t To) const;

private:
  Segment &get(mpiete_site_t From, mpiete_site_t To);
  void grow();
  static void addToSeries(Segment &S, uint64_t Nanos);

  Segment *Slots = nullptr;
  size_t Capacity = 0;
  size_t Count = 0;
};

} // namespace mpiete

#endif // MPIETE_RUNTIME_SEGMENTS_H
