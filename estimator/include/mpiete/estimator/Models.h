// The base data the engine replays against: compute time per (rank, block) and, per pair of
// ranks, the start overheads, transfer time and eager limit of the network between them.
// Implementations are built from data (tables, fitted LogGPS parameters, a cluster map), never
// chosen at compile time.
#ifndef MPIETE_ESTIMATOR_MODELS_H
#define MPIETE_ESTIMATOR_MODELS_H

#include "mpiete/basedata/LogGps.h"
#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/FlatMap.h"

#include <memory>
#include <optional>
#include <vector>

namespace mpiete::estimator {

class ComputeModel {
public:
  virtual ~ComputeModel();
  /// Seconds per execution of Block on Rank (per iteration for loops); nullopt if unknown.
  virtual std::optional<double> secondsPerExecution(int Rank, BlockId Block) const = 0;
};

/// Per-machine tables of block times and the machine each rank runs on (heterogeneous
/// clusters give ranks different machines).
class TableComputeModel : public ComputeModel {
public:
  /// Adds a machine and returns its index.
  unsigned addMachine();
  void setTime(unsigned Machine, BlockId Block, double Seconds);
  /// Ranks not assigned run on machine 0.
  void assignRank(int Rank, unsigned Machine);
  /// A block the rank never ran in the timing probe but other ranks did (a nondeterministic
  /// program, e.g. a task farm whose tasks fell to other workers under token passing) takes
  /// the mean over those ranks, and is listed in fallbacks(); a block no rank ran has no time.
  std::optional<double> secondsPerExecution(int Rank, BlockId Block) const override;
  const std::vector<std::pair<int, BlockId>> &fallbacks() const { return Fallbacks; }

private:
  // Mutable: a fallback is computed once and then cached in the rank's table.
  mutable std::vector<FlatMap<double>> Machines;
  std::vector<unsigned> MachineOfRank;
  mutable std::vector<std::pair<int, BlockId>> Fallbacks;
};

/// The network between one pair of ranks.
class LinkModel {
public:
  virtual ~LinkModel();
  /// CPU time a send start costs the sender.
  virtual TimeNs sendOverhead(uint64_t Bytes) const = 0;
  /// CPU time a receive start costs the receiver.
  virtual TimeNs recvOverhead(uint64_t Bytes) const = 0;
  /// Time from the start of a send until a receive that was already posted can complete
  /// (seed 004's T_comm), for either protocol.
  virtual TimeNs transfer(uint64_t Bytes) const = 0;
  /// Largest message sent eagerly (LogGPS S); larger ones use the rendezvous protocol.
  virtual uint64_t eagerLimit() const = 0;
  /// Minimum interval between two message injections of one sender (LogGPS g).
  virtual TimeNs gap() const { return 0; }
  /// Contention (docs/estimator.md): the part of transfer(Bytes) that streams the bytes at the
  /// pair's own rate (k G), the last part of the transfer; concurrent transfers through one
  /// node's link share it. Latency, overheads and protocol round trips are not shared.
  /// 0: nothing is shared.
  virtual TimeNs streamTime(uint64_t Bytes) const {
    (void)Bytes;
    return 0;
  }
  /// Bytes per ns one pair alone streams a message of Bytes at (1/G, or 1/G_eager for an
  /// eager size); 0 when unknown (no contention).
  virtual double streamRate(uint64_t Bytes) const {
    (void)Bytes;
    return 0;
  }
  /// The streamRate of the largest messages (1/G): what one pair alone keeps a link busy
  /// with. Under contention every flow alone fills its links, whatever its own rate: a
  /// message whose own rate is faster (1/G_eager > 1/G: small messages ride the network's
  /// buffers) takes the link for its own time, as a large one does.
  virtual double sustainedStreamRate() const { return streamRate(~uint64_t(0)); }
};

/// Measured receive times, piecewise linear in the message size and extrapolated along the
/// last (or first) segment outside the measured range.
class TableLinkModel : public LinkModel {
public:
  struct Point {
    uint64_t Bytes;
    double Seconds;
  };
  /// Overheads are Seconds + PerByte x bytes (seed 003: o is linear in the size).
  TableLinkModel(std::vector<Point> Points, double SendOverheadSeconds, double RecvOverheadSeconds,
                 uint64_t EagerLimit, double GapSeconds = 0, double SendOverheadPerByte = 0,
                 double RecvOverheadPerByte = 0);
  TimeNs sendOverhead(uint64_t Bytes) const override;
  TimeNs recvOverhead(uint64_t Bytes) const override;
  TimeNs transfer(uint64_t Bytes) const override;
  uint64_t eagerLimit() const override { return Eager; }
  TimeNs gap() const override { return Gap; }
  /// The gaps per byte of the LogGPS fit (seconds per byte), for contention: the table says
  /// how long a message takes, not which part of it is streaming. GEager < 0: G.
  void setStreamGaps(double G, double GEager = -1);
  TimeNs streamTime(uint64_t Bytes) const override;
  double streamRate(uint64_t Bytes) const override;

private:
  double gapPerByte(uint64_t Bytes) const { return Bytes <= Eager ? GEagerNs : GNs; }

  std::vector<uint64_t> Sizes;
  std::vector<double> Nanos;
  double SendOverhead, RecvOverhead, SendPerByte, RecvPerByte; ///< ns, ns per byte
  TimeNs Gap;
  uint64_t Eager;
  double GNs = 0, GEagerNs = 0; ///< ns per byte; 0: no contention data
};

/// T(k) = o_s + L + o_r + k G_eager for k <= S; above S, o_s + L + o_r + k G plus the
/// request/acknowledge round trip of two empty control messages, 2(o_s + L + o_r).
class LogGPSLinkModel : public LinkModel {
public:
  explicit LogGPSLinkModel(const LogGpsParams &P) : P(P) {}
  TimeNs sendOverhead(uint64_t Bytes) const override;
  TimeNs recvOverhead(uint64_t Bytes) const override;
  TimeNs transfer(uint64_t Bytes) const override;
  uint64_t eagerLimit() const override { return P.eagerLimit(); }
  TimeNs gap() const override;
  TimeNs streamTime(uint64_t Bytes) const override;
  double streamRate(uint64_t Bytes) const override;
  const LogGpsParams &params() const { return P; }

private:
  LogGpsParams P;
};

class NetworkModel {
public:
  virtual ~NetworkModel();
  virtual const LinkModel &link(int Src, int Dst) const = 0;
  /// The contention model (docs/estimator.md): ranks on nodes, each node with an egress and an
  /// ingress link of linkCapacity() bytes per ns shared max-min fairly by the transfers between
  /// nodes. nodeCount() 0 or linkCapacity() 0: no contention.
  virtual int nodeCount() const { return 0; }
  virtual int nodeOf(int Rank) const {
    (void)Rank;
    return -1;
  }
  virtual double linkCapacity() const { return 0; }
};

enum class ContentionKind { None, Fair };

/// Ranks mapped onto nodes: a pair on one node uses the intra-node link, others the
/// inter-node link.
class ClusterNetworkModel : public NetworkModel {
public:
  ClusterNetworkModel(std::vector<int> NodeOfRank, std::shared_ptr<const LinkModel> Intra,
                      std::shared_ptr<const LinkModel> Inter)
      : NodeOfRank(std::move(NodeOfRank)), Intra(std::move(Intra)), Inter(std::move(Inter)) {}
  /// Every rank on its own node: one network for all pairs.
  explicit ClusterNetworkModel(std::shared_ptr<const LinkModel> Link)
      : Intra(Link), Inter(std::move(Link)) {}
  const LinkModel &link(int Src, int Dst) const override;
  /// Fair: transfers between nodes share each node's links (needs the node map). The link
  /// capacity is at least what one pair keeps a link busy with, the inter-node link's
  /// sustainedStreamRate(), so a transfer alone on its links is never slowed (0: just that).
  /// The default is None.
  void setContention(ContentionKind Kind, double LinkBytesPerSecond = 0);
  int nodeCount() const override;
  int nodeOf(int Rank) const override;
  double linkCapacity() const override;

private:
  std::vector<int> NodeOfRank;
  std::shared_ptr<const LinkModel> Intra, Inter;
  ContentionKind Contention = ContentionKind::None;
  double Capacity = 0; ///< bytes per ns; 0: the inter-node link's sustained stream rate
};

} // namespace mpiete::estimator

#endif
