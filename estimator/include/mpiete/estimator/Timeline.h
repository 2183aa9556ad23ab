// Where the engine reports each predicted interval of each rank, for viewers such as Perfetto.
#ifndef MPIETE_ESTIMATOR_TIMELINE_H
#define MPIETE_ESTIMATOR_TIMELINE_H

#include "mpiete/estimator/Event.h"

#include <ostream>

namespace mpiete::estimator {

enum class SpanKind : uint8_t { Compute, Comm, Wait };

class TimelineSink {
public:
  virtual ~TimelineSink();
  virtual void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) = 0;
  /// Called once after the last span.
  virtual void finish() {}
};

/// Chrome trace JSON ("X" complete events, one thread per rank), written as spans arrive so a
/// long replay never holds its timeline in memory.
class ChromeTraceWriter : public TimelineSink {
public:
  ChromeTraceWriter(std::ostream &OS, int Ranks);
  ~ChromeTraceWriter() override;
  void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) override;
  void finish() override;

private:
  std::ostream &OS;
  bool Finished = false;
};

} // namespace mpiete::estimator

#endif
