// The base data as the estimator's inputs: per-rank binary traces (program base data) as
// EventSources, machine.yaml as a compute model and network.yaml as a LinkModel. The files
// themselves are basedata's; the engine only sees the interfaces of Event.h and Models.h.
#ifndef MPIETE_ESTIMATOR_BASEDATA_H
#define MPIETE_ESTIMATOR_BASEDATA_H

#include "mpiete/BlockId.h"
#include "mpiete/basedata/BlockMap.h"
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/basedata/NetworkFile.h"
#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/Models.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/trace/TraceReader.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mpiete::estimator {

/// One rank's trace file (docs/trace-format.md) as an event stream. Communicator bookkeeping
/// records are skipped; completions of requests the runtime did not start are dropped.
/// With setEmitSegments(true), every MPI call (a record with the call-start flag) is preceded
/// by a Segment event: From = the previous call's site (ProgramStart for the first), Block =
/// this call's site.
/// What the block map (blocks.yaml) says of the program's call sites, to check each trace
/// against it: a call-start record at a block the map does not have, an MPI_Init record at a
/// site that is not MPI_Init (or the other way round), and the same for MPI_Finalize, mean the
/// trace and the map contradict each other (a corrupt file): an error, never a prediction.
struct CallSites {
  enum class Kind : uint8_t { Init, Finalize, Other };
  std::unordered_map<BlockId, Kind> Sites;
  std::unordered_set<uint32_t> Units; ///< units the map describes; other units are not checked
  /// Non-blocking collectives' sites: their records may follow inside a later call (the wait
  /// or test that drives the operation, runtime/lib/Nonblocking.h).
  std::unordered_set<BlockId> Nonblocking;
  static CallSites fromBlockMap(const BlockMap &Map);
  static const char *name(Kind K) {
    return K == Kind::Init       ? "MPI_Init"
           : K == Kind::Finalize ? "MPI_Finalize"
                                 : "another MPI routine";
  }
};

class TraceEventSource : public EventSource {
public:
  explicit TraceEventSource(DiagnosticSink &Diags) : Reader(Diags) {
    Reader.setCheckConsistency(true); // a contradicting trace fails, never replays
  }
  bool open(const std::string &Path) { return Reader.open(Path); }
  bool openBuffer(const std::string &Name, std::string Data) {
    return Reader.openBuffer(Name, std::move(Data));
  }
  const trace::Header &header() const { return Reader.header(); }

  /// Segment events before each call (off by default: the engine handles them once on).
  void setEmitSegments(bool On) { EmitSegments = On; }
  /// Check each call-start record against the block map (null: no check). Sites must outlive
  /// the source.
  void setCallSites(const CallSites *Sites) { Check = Sites; }

  /// LocalCopy events for the collectives whose Open MPI algorithms copy the rank's own block
  /// (docs/collectives.md), before their messages (off by default: other readers of the
  /// events do not know them).
  void setEmitLocalCopies(bool On) { EmitLocalCopies = On; }
  /// LocalCopy events emitted so far.
  uint64_t localCopies() const { return LocalCopies; }
  /// Of them, those whose block has gaps (Event::Layout from the call's messages).
  uint64_t packedLocalCopies() const { return PackedLocalCopies; }
  /// Receives flagged same-buffer (Event::SameBuffer) read so far.
  uint64_t sameBufferReceives() const { return SameBufferReceives; }
  /// Sends and receives whose datatype is not contiguous (Event::Layout) read so far.
  uint64_t packedMessages() const { return PackedMessages; }
  /// The largest send or receive read so far (bytes).
  uint64_t largestMessage() const { return LargestMessage; }

  bool next(Event &E) override;
  std::string name() const override { return Reader.name(); }
  bool failed() const override { return !Reader.ok(); }

private:
  trace::TraceReader Reader;
  trace::Record Rec;
  bool EmitSegments = false;
  bool EmitLocalCopies = false;
  uint64_t LocalCopies = 0, PackedLocalCopies = 0;
  uint64_t SameBufferReceives = 0;
  uint64_t PackedMessages = 0;
  uint64_t LargestMessage = 0;
  /// Communicator id -> size, from the comm-create records (world and self known).
  std::unordered_map<uint64_t, uint64_t> CommSizes;
  uint64_t ownBlockCopy();
  /// Records read ahead of Rec (a collective's lowered messages, to learn its own block's size
  /// and layout), handed out before the reader's next ones.
  std::vector<trace::Record> Ahead;
  size_t AheadAt = 0;
  bool nextRecord(trace::Record &R);
  /// Reads the rest of the current call's records ahead: the bytes of its lowered sends to
  /// other ranks, and of its messages to and from them the layout with the shortest pieces
  /// (0: all contiguous), which the own block's copy is costed at (the trace records no
  /// layout for the own block itself).
  void readCallAhead(uint64_t &SentToOthers, uint8_t &Layout);
  uint8_t OwnLayout = 0; ///< the layout of the own block ownBlockCopy() returned
  const CallSites *Check = nullptr;
  bool checkCallSite();
  bool checkInCall();
  uint64_t CallSite = 0;            // the current call's site (its call-start record), 0 before
  bool Held = false;                // Rec is read but not yet turned into an event
  uint64_t LastCall = ProgramStart; // the previous call's site
};

/// Opens DIR/rank0.trace ... rank<N-1>.trace, where N is rank 0's world size, and checks that
/// each header names its rank and the same world size. False (reported) on any problem.
bool openTraceDirectory(const std::string &Dir, DiagnosticSink &Diags,
                        std::vector<std::unique_ptr<TraceEventSource>> &Out);

/// Fills Out from machine.yaml (basedata/MachineFile.h): each rank gets its own table, so a
/// file merged from different machines describes a heterogeneous cluster. With Only, just
/// those ranks are taken (each must be in the file). With Prov, also what the file says about
/// how it was measured. False (reported) on error.
bool loadMachineYaml(const std::string &Path, TableComputeModel &Out, DiagnosticSink &Diags,
                     const std::vector<int> *Only = nullptr, MachineProvenance *Prov = nullptr);
bool parseMachineYaml(const std::string &Name, const std::string &Text, TableComputeModel &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only = nullptr,
                      MachineProvenance *Prov = nullptr);
/// The compute model's tables for the ranks of File.
void addMachineFile(const MachineFile &File, TableComputeModel &Out);

enum class NetworkModelKind { Table, LogGPS };

/// Reads network.yaml (basedata/NetworkFile.h) as a link model: Table interpolates its measured
/// one-way times (with the fitted overheads, gap and S); LogGPS uses the fitted parameters
/// alone. Null (reported) on error.
std::shared_ptr<LinkModel> loadNetworkYaml(const std::string &Path, NetworkModelKind Kind,
                                           DiagnosticSink &Diags);
/// The same on text in memory (Name for diagnostics).
std::shared_ptr<LinkModel> parseNetworkYaml(const std::string &Name, const std::string &Text,
                                            NetworkModelKind Kind, DiagnosticSink &Diags);
/// The link model of a network file read with the parts Kind needs (networkParts).
std::shared_ptr<LinkModel> linkModelOf(const NetworkFile &File, NetworkModelKind Kind);
unsigned networkParts(NetworkModelKind Kind);

} // namespace mpiete::estimator

#endif
