// Where the engine reports each predicted interval of each rank, for viewers such as Perfetto.
#ifndef MPIETE_ESTIMATOR_TIMELINE_H
#define MPIETE_ESTIMATOR_TIMELINE_H

#include "mpiete/estimator/Event.h"

#include <ostream>
#include <string_view>

namespace mpiete::estimator {

enum class SpanKind : uint8_t { Compute, Comm, Wait };

/// One delivered point-to-point message of the predicted run, for viewers that draw arrows.
struct MessageArrow {
  int Source = 0, Dest = 0;
  TimeNs SendBegin = 0; ///< the send call's start on Source
  TimeNs RecvEnd = 0;   ///< the matching receive's (or wait's) end on Dest
  uint64_t Bytes = 0;
  int Tag = 0;
  BlockId SendSite = 0, RecvSite = 0;
};

class TimelineSink {
public:
  virtual ~TimelineSink();
  virtual void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) = 0;
  /// A message's arrow; sinks that draw no arrows ignore it.
  virtual void message(const MessageArrow &) {}
  /// An interval of a rank marked after the replay (the critical path, say), with its label.
  virtual void highlight(int /*Rank*/, TimeNs /*Begin*/, TimeNs /*End*/,
                         std::string_view /*Label*/) {}
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
