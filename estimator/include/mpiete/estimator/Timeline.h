// Where the engine reports each predicted interval of each rank, for viewers such as Perfetto.
#ifndef MPIETE_ESTIMATOR_TIMELINE_H
#define MPIETE_ESTIMATOR_TIMELINE_H

#include "mpiete/estimator/Event.h"

#include <ostream>
#include <string_view>

namespace mpiete::estimator {

enum class SpanKind : uint8_t { Compute, Comm, Wait };

/// "compute", "comm" or "wait".
const char *spanKindName(SpanKind K);

/// One delivered point-to-point message of the predicted run, for viewers that draw arrows. The
/// engine reports it once the receive's completion is known (under contention, a rendezvous
/// message streaming as a flow has no arrow: its end is only known when the flow ends).
struct MessageArrow {
  int Source = 0, Dest = 0;
  TimeNs SendBegin = 0; ///< the message's injection on Source (the send's start, later by the
                        ///< gap when the rank sends back to back)
  TimeNs RecvEnd = 0;   ///< the matching receive's (or wait's) end on Dest
  uint64_t Bytes = 0;
  int Tag = 0;
  BlockId SendSite = 0, RecvSite = 0;
};

class TimelineSink {
public:
  virtual ~TimelineSink();
  virtual void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) = 0;
  /// A message's arrow; sinks that draw no arrows ignore it. Called when the message is
  /// matched, which may be after later spans of either rank.
  virtual void message(const MessageArrow &) {}
  /// An interval of a rank marked after the replay (the critical path, say), with its label;
  /// called between the last span and finish().
  virtual void highlight(int /*Rank*/, TimeNs /*Begin*/, TimeNs /*End*/,
                         std::string_view /*Label*/) {}
  /// Called once after the last span.
  virtual void finish() {}
  /// False once the sink wants no more spans and messages (an unmarked farm scan that gave
  /// up): the engine then stops calling span() and message() (a plain load per call instead
  /// of a virtual call). finish() is still called.
  bool wantsEvents() const { return Wanted; }

protected:
  void stopEvents() { Wanted = false; }

private:
  bool Wanted = true;
};

/// Chrome trace JSON ("X" complete events, one thread per rank), written as spans arrive so a
/// long replay never holds its timeline in memory. Messages are flow events (arrows from the
/// send to the receive, Perfetto's and chrome://tracing's "s"/"f" pair); highlights go to a
/// second process, "highlighted", with a track per rank.
class ChromeTraceWriter : public TimelineSink {
public:
  ChromeTraceWriter(std::ostream &OS, int Ranks);
  ~ChromeTraceWriter() override;
  void span(int Rank, SpanKind Kind, BlockId Block, TimeNs Begin, TimeNs End) override;
  void message(const MessageArrow &M) override;
  void highlight(int Rank, TimeNs Begin, TimeNs End, std::string_view Label) override;
  void finish() override;

private:
  std::ostream &OS;
  int Ranks = 0;
  uint64_t Flows = 0;
  bool HighlightTracks = false; ///< their names are written with the first highlight
  bool Finished = false;
};

} // namespace mpiete::estimator

#endif
