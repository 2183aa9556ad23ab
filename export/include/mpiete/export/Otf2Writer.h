// OTF2 export of a predicted run (Score-P's trace format, read by Vampir, Scalasca, otf2-print):
// a location per rank, a region per (span kind, call site), MPI send/receive events with peers.
#ifndef MPIETE_EXPORT_OTF2WRITER_H
#define MPIETE_EXPORT_OTF2WRITER_H

#include "mpiete/estimator/Timeline.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mpiete::exporter {

/// A timeline sink writing an OTF2 archive DIR/traces.otf2 (+ DIR/traces/) at finish(). OTF2
/// wants each location's events in time order, and the engine reports a message when it is
/// matched (after later spans), so events are kept per rank (24 bytes each) until finish()
/// sorts and writes them; a replay of 10 M events holds about 0.5 GB. Regions are named by
/// Describe ("main.c:42 (MPI_Send)"); a compute region by its block, or in segment mode by
/// the call its segment ends at.
class Otf2Writer : public estimator::TimelineSink {
public:
  Otf2Writer(std::string Dir, int Ranks, std::function<std::string(estimator::BlockId)> Describe);
  ~Otf2Writer() override;
  void span(int Rank, estimator::SpanKind Kind, estimator::BlockId Block, estimator::TimeNs Begin,
            estimator::TimeNs End) override;
  void message(const estimator::MessageArrow &M) override;
  void finish() override;
  /// Empty if the archive was written; else what failed.
  const std::string &error() const { return Error; }

private:
  /// Enter/leave a region, or a send to / receive from a peer; Order breaks ties so a receive
  /// ending a wait comes before its leave and a send after the enter of its call.
  struct Record {
    estimator::TimeNs Time = 0;
    uint32_t Ref = 0; ///< region or message index
    uint8_t Order = 0;
  };
  struct Message {
    int Peer = 0, Tag = 0;
    uint64_t Bytes = 0;
  };
  uint32_t regionOf(estimator::SpanKind Kind, estimator::BlockId Block);

  std::string Dir;
  int Ranks;
  std::function<std::string(estimator::BlockId)> Describe;
  std::vector<std::vector<Record>> Events; ///< per rank
  std::vector<Message> Messages;
  std::map<std::pair<int, estimator::BlockId>, uint32_t> RegionIndex;
  std::vector<std::pair<std::string, bool>> Regions; ///< name, is MPI
  estimator::TimeNs Last = 0;
  bool Finished = false;
  std::string Error;
};

} // namespace mpiete::exporter

#endif
