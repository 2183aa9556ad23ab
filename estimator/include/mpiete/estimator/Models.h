// The base data the engine replays against: compute time per (rank, block) and, per pair of
// ranks, the start overheads, transfer time and eager limit of the network between them.
// Implementations are built from data (tables, fitted LogGPS parameters, a cluster map), never
// chosen at compile time.
#ifndef MPIETE_ESTIMATOR_MODELS_H
#define MPIETE_ESTIMATOR_MODELS_H

#include "mpiete/basedata/LogGps.h"
#include "mpiete/estimator/Event.h"
#include "mpiete/estimator/FlatMap.h"

#include <deque>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace mpiete::estimator {

/// The one 64-bit key of a compute segment (From -> To) in the estimator's flat maps. Two
/// segments can share a key; users keep From and To beside it and probe on (segmentKeyNext).
constexpr uint64_t segmentKey(BlockId From, BlockId To) {
  uint64_t X = From * 0x9e3779b97f4a7c15ULL ^ (To + 0x632be59bd9b4e019ULL);
  X ^= X >> 29;
  return X * 0xbf58476d1ce4e5b9ULL;
}
constexpr uint64_t segmentKeyNext(uint64_t Key) { return Key * 0x94d049bb133111ebULL + 1; }

/// One compute segment's times on one machine (machine.yaml, segment mode).
struct SegmentTimes {
  BlockId From = 0, To = 0;
  double MeanSeconds = 0;
  uint64_t Executions = 0;           ///< measured: the series covers them
  uint64_t Width = 0;                ///< occurrences per series bucket; 0: no series
  std::vector<double> BucketSeconds; ///< each bucket's sum
  /// Occurrence K (from 0): its series bucket's sum over its count, or the mean when there is
  /// no series or K is past the measured executions.
  double seconds(uint64_t K) const {
    if (Width == 0 || K >= Executions)
      return MeanSeconds;
    const uint64_t B = K / Width;
    if (B >= BucketSeconds.size())
      return MeanSeconds;
    const uint64_t Count = B + 1 < BucketSeconds.size() ? Width : Executions - B * Width;
    return BucketSeconds[B] / double(Count);
  }
};

class ComputeModel {
public:
  virtual ~ComputeModel();
  /// Seconds per execution of Block on Rank (per iteration for loops); nullopt if unknown.
  virtual std::optional<double> secondsPerExecution(int Rank, BlockId Block) const = 0;
  /// Segment From -> To on Rank (segment mode); null if unknown. The pointer stays valid as
  /// long as the model lives, so the engine looks each (rank, segment) up once.
  virtual const SegmentTimes *segment(int Rank, BlockId From, BlockId To) const {
    (void)Rank;
    (void)From;
    (void)To;
    return nullptr;
  }
  /// Seconds of occurrence K (from 0) of segment From -> To on Rank: the series bucket holding
  /// it (its sum / its count), else the mean; nullopt if unknown.
  std::optional<double> segmentSeconds(int Rank, BlockId From, BlockId To, uint64_t K) const {
    const SegmentTimes *S = segment(Rank, From, To);
    return S ? std::optional<double>(S->seconds(K)) : std::nullopt;
  }
  /// What the base data measured: compute blocks (seed mode), segments (segment mode). A
  /// trace of the other partition cannot be replayed against it.
  virtual bool hasBlocks() const { return true; }
  virtual bool hasSegments() const { return false; }
  /// No data at all (a program that never computes between MPI calls).
  virtual bool empty() const { return false; }
};

/// Per-machine tables of block times and the machine each rank runs on (heterogeneous
/// clusters give ranks different machines).
class TableComputeModel : public ComputeModel {
public:
  /// Adds a machine and returns its index.
  unsigned addMachine();
  void setTime(unsigned Machine, BlockId Block, double Seconds);
  /// Segment Times.From -> Times.To on Machine (replaces an earlier one).
  void setSegment(unsigned Machine, SegmentTimes Times);
  /// Ranks not assigned run on machine 0.
  void assignRank(int Rank, unsigned Machine);
  /// A block the rank never ran in the timing probe but other ranks did (a nondeterministic
  /// program, e.g. a task farm whose tasks fell to other workers under token passing) takes
  /// the mean over those ranks, and is listed in fallbacks(); a block no rank ran has no time.
  std::optional<double> secondsPerExecution(int Rank, BlockId Block) const override;
  const std::vector<std::pair<int, BlockId>> &fallbacks() const { return Fallbacks; }
  /// The same rule for a segment: the mean of the ranks that ran it (their series are not
  /// used: the occurrences of another rank are not this rank's); if no rank ran it, the
  /// executions-weighted mean of the segments ending at the same call, else of those starting
  /// after the same call (each on this rank, else on any rank). Listed in segmentFallbacks()
  /// as (rank, from, to).
  const SegmentTimes *segment(int Rank, BlockId From, BlockId To) const override;
  const std::vector<std::tuple<int, BlockId, BlockId>> &segmentFallbacks() const {
    return SegmentFallbacks;
  }
  bool hasBlocks() const override { return AnyBlocks || !AnySegments; }
  bool hasSegments() const override { return AnySegments; }
  bool empty() const override { return !AnyBlocks && !AnySegments; }
  /// The base data measured segments, even if it lists none on some rank.
  void noteSegments() { AnySegments = true; }

private:
  unsigned machineOf(int Rank) const {
    return size_t(Rank) < MachineOfRank.size() ? MachineOfRank[size_t(Rank)] : 0;
  }
  const SegmentTimes *findSegment(unsigned Machine, BlockId From, BlockId To) const;
  double meanAround(BlockId Site, bool EndingAt, unsigned Machine, bool AnyMachine,
                    bool &Found) const;
  uint32_t &segmentSlot(unsigned Machine, BlockId From, BlockId To, bool &Inserted) const;

  // Mutable: a fallback is computed once and then cached in the rank's table.
  mutable std::vector<FlatMap<double>> Machines;
  /// Per machine: segmentKey -> index into SegmentStore (probing on to segmentKeyNext when
  /// another segment holds the key).
  mutable std::vector<FlatMap<uint32_t>> SegmentIndex;
  mutable std::deque<SegmentTimes> SegmentStore; ///< stable addresses
  /// The machine each SegmentStore entry was measured on; NotMeasured for a fallback.
  static constexpr unsigned NotMeasured = ~0u;
  mutable std::vector<unsigned> MeasuredOn;
  std::vector<unsigned> MachineOfRank;
  mutable std::vector<std::pair<int, BlockId>> Fallbacks;
  mutable std::vector<std::tuple<int, BlockId, BlockId>> SegmentFallbacks;
  bool AnyBlocks = false, AnySegments = false;
};

/// Nanoseconds by message size: piecewise linear in the sizes (ascending), extrapolated along
/// the first segment below them and, above them, along the least-squares line through the
/// last octave of sizes (those of at least half the largest), never < 0; 0 when empty. The
/// receive table of TableLinkModel and a link's memory-copy, same-buffer and packed tables.
/// The last octave, not the last segment: two neighbouring sizes differ by a few percent, so
/// one noisy row used to set the slope for every larger message (an 11.5 MB message costed
/// 0.8 or 5 ms from two probe-comm runs of the same hour, docs/estimator.md).
struct SizeTable {
  std::vector<uint64_t> Sizes;
  std::vector<double> Nanos;
  /// The line beyond the largest size: its value there and its slope (ns per byte, >= 0).
  double TailNanos = 0, TailSlope = 0;
  /// Values may be negative (the packed tables' differences); otherwise floored at 0.
  bool Signed = false;
  /// From (bytes, seconds) points, sizes ascending; with FloorAtZero negative seconds count as 0.
  void assign(const std::vector<std::pair<uint64_t, double>> &Points, bool FloorAtZero);
  /// Fits the line beyond the largest size; assign() calls it, and whoever fills Sizes and
  /// Nanos directly.
  void fitTail();
  TimeNs at(uint64_t Bytes) const;
  bool empty() const { return Sizes.empty(); }
};

/// The network between one pair of ranks. Its answers depend only on the arguments (the
/// engine keeps them per link and message size), and a NetworkModel's links live as long as
/// it does.
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
  /// The largest message size the model's times were measured at (0: a formula, no table);
  /// larger messages are extrapolated.
  virtual uint64_t largestMeasured() const { return 0; }

  /// A rank's local copy of Bytes (a collective's own block, docs/collectives.md), from the
  /// memory-copy table of network.yaml: piecewise linear in the measured sizes, extrapolated
  /// along the last (or first) segment. 0 without a table (files before it).
  TimeNs localCopy(uint64_t Bytes) const;
  /// Sizes ascending; seconds per copy.
  void setCopyTable(std::vector<std::pair<uint64_t, double>> Points);
  bool hasCopyTable() const { return !Copies.empty(); }

  /// What a rendezvous message received into the buffer the rank has just sent from costs on
  /// top of transfer(Bytes) (network.yaml same_buffer against its table), interpolated like
  /// localCopy; 0 without a table (files before it).
  TimeNs sameBufferExtra(uint64_t Bytes) const;
  /// Sizes ascending; extra seconds per message (negative values count as 0).
  void setSameBufferTable(std::vector<std::pair<uint64_t, double>> Points);
  bool hasSameBufferTable() const { return !SameBuffer.empty(); }

  /// What a message whose datatype is not contiguous costs on top of transfer(Bytes): the
  /// library packs and unpacks it piece by piece and, on shared memory, cannot hand it over in
  /// one copy (network.yaml packed, against the fit). Layout is the trace's class
  /// (trace::classOfPiece); the tables measured at several piece lengths are interpolated in
  /// log2 of the class's piece length (trace::pieceOfClass), and held constant beyond the
  /// shortest and longest pieces measured. 0 for a contiguous layout or without tables;
  /// negative where the packed path was measured faster.
  TimeNs packedExtra(uint8_t Layout, uint64_t Bytes) const;
  /// One table per piece length (bytes): sizes ascending, extra seconds per message (negative
  /// where packing was faster). Pieces ascending.
  void addPackedTable(double PieceBytes, std::vector<std::pair<uint64_t, double>> Points);
  bool hasPackedTables() const { return !Packed.empty(); }
  /// The receiving side's counterpart of packedExtra: what a message received into a datatype
  /// with gaps costs on top of transfer(Bytes) when it was sent contiguously (network.yaml
  /// unpacked), interpolated as packedExtra. 0 for a contiguous layout or without tables.
  TimeNs unpackedExtra(uint8_t Layout, uint64_t Bytes) const;
  void addUnpackedTable(double PieceBytes, std::vector<std::pair<uint64_t, double>> Points);
  bool hasUnpackedTables() const { return !Unpacked.empty(); }
  /// What a message costs on top of transfer(Bytes) for the layouts of its send and its
  /// receive: with the unpacked tables the sender's packing plus the receiver's unpacking
  /// (packedExtra(SendLayout) + unpackedExtra(RecvLayout)); without them (network.yaml files
  /// before them) packedExtra of the shorter pieces of the two, one side's extra.
  TimeNs layoutExtra(uint8_t SendLayout, uint8_t RecvLayout, uint64_t Bytes) const;

  /// A local copy of Bytes whose datatype has gaps (Layout as for packedExtra): localCopy
  /// plus what MPI_Pack of such a vector took over a memcpy (network.yaml memory_copy_packed),
  /// interpolated in log2 of the piece length as packedExtra; never below 0. A contiguous
  /// layout, or no tables: localCopy(Bytes).
  TimeNs localCopy(uint64_t Bytes, uint8_t Layout) const;
  /// One table per piece length (bytes): sizes ascending, seconds over the memcpy table's.
  void addPackedCopyTable(double PieceBytes, std::vector<std::pair<uint64_t, double>> Points);
  bool hasPackedCopyTables() const { return !PackedCopies.empty(); }

  /// A rank's simultaneous transfers over this network share what copies them (network.yaml
  /// exchange; docs/estimator.md, "Contention"): each rank has an endpoint of endpointRate()
  /// bytes per ns, which every transfer it sends or receives streams through, max-min fairly
  /// as the node links. 0: transfers do not share endpoints (no exchange table, or exchanges
  /// measured no slower than one-way messages).
  double endpointRate() const { return EndpointRate; }
  /// The share of its own streaming rate each of two contiguous transfers of one exchange
  /// kept (1: none lost), and each of two packed ones.
  double exchangeShare() const { return ExchangeShare; }
  double packedExchangeShare() const { return PackedExchangeShare; }
  bool hasExchangeTable() const { return HasExchange; }
  /// The link share a packed rendezvous transfer takes of its endpoints at its own pace
  /// (bytes per ns; contiguous ones take sustainedStreamRate()).
  double packedFlowRate() const {
    return EndpointRate > 0 ? EndpointRate / (2 * PackedExchangeShare) : 0;
  }
  /// From the times of simultaneous exchanges (sizes ascending, seconds): per size above the
  /// eager limit whose streaming is at least a quarter of its transfer, the share f of its
  /// own rate each of the two transfers kept, the one for which the exchange takes
  /// T - S + S / f (T the one-way time, S its streaming part: streamTime for a contiguous
  /// message; for one packed from pieces of PieceBytes, T with packedExtra and S all of it but
  /// the contiguous message's fixed part); their median, held within [1/2, 1] (a transfer alone
  /// is never slowed; two share an endpoint at worst evenly). Packed: without its table, the
  /// contiguous share. With either share below 1, each endpoint carries 2 f sustainedStreamRate()
  /// (f the contiguous share) and a packed transfer takes endpointRate() / (2 f_packed) of
  /// it. Needs the stream gaps and the packed tables set first.
  void setExchangeTables(const std::vector<std::pair<uint64_t, double>> &Contiguous,
                         double PieceBytes, const std::vector<std::pair<uint64_t, double>> &Packed);

private:
  SizeTable Copies, SameBuffer;
  double EndpointRate = 0, ExchangeShare = 1, PackedExchangeShare = 1;
  bool HasExchange = false;
  struct PackedTable {
    double Log2Piece = 0;
    SizeTable Extra;
  };
  static PackedTable packedTable(double PieceBytes,
                                 const std::vector<std::pair<uint64_t, double>> &Points);
  static TimeNs extraOfLayout(const std::vector<PackedTable> &Tables, uint8_t Layout,
                              uint64_t Bytes);
  std::vector<PackedTable> Packed, Unpacked, PackedCopies;
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
  uint64_t largestMeasured() const override { return Table.empty() ? 0 : Table.Sizes.back(); }
  /// The gaps per byte of the LogGPS fit (seconds per byte), for contention: the table says
  /// how long a message takes, not which part of it is streaming. GEager < 0: G.
  void setStreamGaps(double G, double GEager = -1);
  TimeNs streamTime(uint64_t Bytes) const override;
  double streamRate(uint64_t Bytes) const override;

private:
  double gapPerByte(uint64_t Bytes) const { return Bytes <= Eager ? GEagerNs : GNs; }

  SizeTable Table;                                             ///< the measured receive times
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
  /// Transfers within a node (and all of them without a node map) stream through their
  /// sender's and receiver's endpoints, each of endpointCapacity() bytes per ns
  /// (LinkModel::endpointRate of the intra-node link); 0: no endpoint sharing.
  virtual double endpointCapacity() const { return 0; }
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
  /// The intra-node link's endpointRate(); 0 with a node map and contention None.
  double endpointCapacity() const override;

private:
  std::vector<int> NodeOfRank;
  std::shared_ptr<const LinkModel> Intra, Inter;
  ContentionKind Contention = ContentionKind::None;
  double Capacity = 0; ///< bytes per ns; 0: the inter-node link's sustained stream rate
};

} // namespace mpiete::estimator

#endif
