// Readers of the base data files for the estimator: per-rank binary traces (program base data)
// as EventSources, and network.yaml (communication base data) as a LinkModel. Parsing lives
// here, apart from the engine, which only sees the interfaces of Event.h and Models.h.
#ifndef MPIETE_ESTIMATOR_BASEDATA_H
#define MPIETE_ESTIMATOR_BASEDATA_H

#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/Models.h"
#include "mpiete/support/Diagnostics.h"
#include "mpiete/trace/TraceReader.h"

#include <memory>
#include <string>
#include <vector>

namespace mpiete::estimator {

/// One rank's trace file (docs/trace-format.md) as an event stream. Communicator bookkeeping
/// records are skipped; completions of requests the runtime did not start are dropped.
class TraceEventSource : public EventSource {
public:
  explicit TraceEventSource(DiagnosticSink &Diags) : Reader(Diags) {}
  bool open(const std::string &Path) { return Reader.open(Path); }
  bool openBuffer(const std::string &Name, std::string Data) {
    return Reader.openBuffer(Name, std::move(Data));
  }
  const trace::Header &header() const { return Reader.header(); }

  bool next(Event &E) override;
  std::string name() const override { return Reader.name(); }
  bool failed() const override { return !Reader.ok(); }

private:
  trace::TraceReader Reader;
  trace::Record Rec;
};

/// Opens DIR/rank0.trace ... rank<N-1>.trace, where N is rank 0's world size, and checks that
/// each header names its rank and the same world size. False (reported) on any problem.
bool openTraceDirectory(const std::string &Dir, DiagnosticSink &Diags,
                        std::vector<std::unique_ptr<TraceEventSource>> &Out);

/// Reads machine.yaml (format mpiete-compute, version 1, written by `mpiete probe-compute`):
/// each rank's blocks and their mean seconds per execution (per iteration for loops). Each
/// rank gets its own table, so a file merged from different machines describes a
/// heterogeneous cluster. With Only, just those ranks are taken (each must be in the file):
/// a cluster puts the ranks of its nodes of another machine type on that type's file.
/// With Prov, also what the file says about how it was measured. False (reported) on error.
struct MachineProvenance {
  std::string Fingerprint; ///< the program's block map fingerprint; empty if not recorded
  int RanksPerNode = 1;    ///< ranks that computed at once (probe-compute --ranks-per-node)
};
bool loadMachineYaml(const std::string &Path, TableComputeModel &Out, DiagnosticSink &Diags,
                     const std::vector<int> *Only = nullptr, MachineProvenance *Prov = nullptr);
bool parseMachineYaml(const std::string &Name, const std::string &Text, TableComputeModel &Out,
                      DiagnosticSink &Diags, const std::vector<int> *Only = nullptr,
                      MachineProvenance *Prov = nullptr);

/// The contention evidence of network.yaml: how many pairs probe-comm measured at once
/// (`--pairs K`, provenance.pairs) and, for K > 1, the aggregate bandwidth they reached at
/// the largest sizes: the median of K x bytes / recv_s over the three largest sizes. That is
/// what a node's link carries when K transfers share it (its capacity for the estimator).
struct NetworkPairs {
  unsigned Pairs = 1;
  double AggregateBytesPerSecond = 0; ///< 0 unless Pairs > 1
};
bool parseNetworkPairs(const std::string &Name, const std::string &Text, NetworkPairs &Out,
                       DiagnosticSink &Diags);
bool loadNetworkPairs(const std::string &Path, NetworkPairs &Out, DiagnosticSink &Diags);

/// Parses the readable block id `0aa758c0:11`; false if malformed.
bool parseBlockId(const std::string &Text, BlockId &Out);

enum class NetworkModelKind { Table, LogGPS };

/// Reads network.yaml (format mpiete-network, version 1, written by `mpiete probe-comm`):
/// Table interpolates its measured one-way times (with the fitted overheads, gap and S);
/// LogGPS uses the fitted parameters alone. Null (reported) on error.
std::shared_ptr<LinkModel> loadNetworkYaml(const std::string &Path, NetworkModelKind Kind,
                                           DiagnosticSink &Diags);
/// The same on text in memory (Name for diagnostics).
std::shared_ptr<LinkModel> parseNetworkYaml(const std::string &Name, const std::string &Text,
                                            NetworkModelKind Kind, DiagnosticSink &Diags);

} // namespace mpiete::estimator

#endif
