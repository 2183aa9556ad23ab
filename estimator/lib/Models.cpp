// Compute and network models built from base data: block time tables, measured receive-time
// tables, LogGPS parameters and the rank-to-node map.
#include "mpiete/estimator/Models.h"
#include "RoundNs.h"
#include "mpiete/TraceFormat.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace mpiete::estimator {

ComputeModel::~ComputeModel() = default;
LinkModel::~LinkModel() = default;
NetworkModel::~NetworkModel() = default;

namespace {
TimeNs toNs(double Seconds) { return roundNs(Seconds * 1e9); }
} // namespace

unsigned TableComputeModel::addMachine() {
  Machines.emplace_back();
  SegmentIndex.emplace_back();
  return unsigned(Machines.size() - 1);
}

void TableComputeModel::setTime(unsigned Machine, BlockId Block, double Seconds) {
  assert(Machine < Machines.size());
  Machines[Machine].getOrInsert(Block, 0) = Seconds;
  AnyBlocks = true;
}

uint32_t &TableComputeModel::segmentSlot(unsigned Machine, BlockId From, BlockId To,
                                         bool &Inserted) const {
  for (uint64_t Key = segmentKey(From, To);; Key = segmentKeyNext(Key)) {
    uint32_t &Slot = SegmentIndex[Machine].getOrInsert(Key, 0, &Inserted);
    if (Inserted || (SegmentStore[Slot].From == From && SegmentStore[Slot].To == To))
      return Slot;
  }
}

const SegmentTimes *TableComputeModel::findSegment(unsigned Machine, BlockId From,
                                                   BlockId To) const {
  for (uint64_t Key = segmentKey(From, To);; Key = segmentKeyNext(Key)) {
    const uint32_t *Slot = SegmentIndex[Machine].find(Key);
    if (!Slot)
      return nullptr;
    const SegmentTimes &S = SegmentStore[*Slot];
    if (S.From == From && S.To == To)
      return &S;
  }
}

void TableComputeModel::setSegment(unsigned Machine, SegmentTimes Times) {
  assert(Machine < Machines.size());
  AnySegments = true;
  bool Inserted = false;
  uint32_t &Slot = segmentSlot(Machine, Times.From, Times.To, Inserted);
  if (Inserted) {
    Slot = uint32_t(SegmentStore.size());
    SegmentStore.push_back(std::move(Times));
    MeasuredOn.push_back(Machine);
  } else {
    SegmentStore[Slot] = std::move(Times);
  }
}

double TableComputeModel::meanAround(BlockId Site, bool EndingAt, unsigned Machine, bool AnyMachine,
                                     bool &Found) const {
  // Executions-weighted: the mean time of one computation that ends at (or starts after) the
  // call Site.
  double Seconds = 0;
  uint64_t Executions = 0;
  for (size_t I = 0; I < SegmentStore.size(); ++I) {
    const SegmentTimes &S = SegmentStore[I];
    if ((EndingAt ? S.To : S.From) != Site || MeasuredOn[I] == NotMeasured ||
        (!AnyMachine && MeasuredOn[I] != Machine))
      continue;
    Seconds += S.MeanSeconds * double(S.Executions);
    Executions += S.Executions;
  }
  Found = Executions != 0;
  return Found ? Seconds / double(Executions) : 0;
}

const SegmentTimes *TableComputeModel::segment(int Rank, BlockId From, BlockId To) const {
  const unsigned M = machineOf(Rank);
  if (M >= Machines.size())
    return nullptr;
  if (const SegmentTimes *S = findSegment(M, From, To))
    return S;
  double Sum = 0;
  unsigned N = 0;
  for (unsigned Other = 0; Other < Machines.size(); ++Other)
    if (const SegmentTimes *S = findSegment(Other, From, To)) {
      Sum += S->MeanSeconds;
      ++N;
    }
  double Seconds = N != 0 ? Sum / N : 0;
  if (N == 0) {
    // No rank ran From -> To: a nondeterministic program (a wildcard receive matched another
    // message, a Test that found its message at once under token passing) took another path.
    // The computation is taken from the segments ending at To, else from those starting after
    // From, each on this rank first, then on any rank.
    bool Found = false;
    for (int Try = 0; Try < 4 && !Found; ++Try)
      Seconds = meanAround(Try < 2 ? To : From, Try < 2, M, Try % 2 == 1, Found);
    if (!Found)
      return nullptr;
  }
  SegmentFallbacks.emplace_back(Rank, From, To);
  SegmentTimes Mean;
  Mean.From = From;
  Mean.To = To;
  Mean.MeanSeconds = Seconds;
  bool Inserted = false;
  uint32_t &Slot = segmentSlot(M, From, To, Inserted);
  Slot = uint32_t(SegmentStore.size());
  SegmentStore.push_back(std::move(Mean));
  MeasuredOn.push_back(NotMeasured);
  return &SegmentStore.back();
}

void TableComputeModel::assignRank(int Rank, unsigned Machine) {
  if (MachineOfRank.size() <= size_t(Rank))
    MachineOfRank.resize(size_t(Rank) + 1, 0);
  MachineOfRank[size_t(Rank)] = Machine;
}

std::optional<double> TableComputeModel::secondsPerExecution(int Rank, BlockId Block) const {
  unsigned M = machineOf(Rank);
  if (M >= Machines.size())
    return std::nullopt;
  if (const double *S = Machines[M].find(Block))
    return *S;
  double Sum = 0;
  unsigned N = 0;
  for (const FlatMap<double> &Other : Machines)
    if (const double *S = Other.find(Block)) {
      Sum += *S;
      ++N;
    }
  if (N == 0)
    return std::nullopt;
  Fallbacks.emplace_back(Rank, Block);
  Machines[M].getOrInsert(Block, 0) = Sum / N;
  return Sum / N;
}

TableLinkModel::TableLinkModel(std::vector<Point> Points, double SendOverheadSeconds,
                               double RecvOverheadSeconds, uint64_t EagerLimit, double GapSeconds,
                               double SendOverheadPerByte, double RecvOverheadPerByte)
    : SendOverhead(SendOverheadSeconds * 1e9), RecvOverhead(RecvOverheadSeconds * 1e9),
      SendPerByte(SendOverheadPerByte * 1e9), RecvPerByte(RecvOverheadPerByte * 1e9),
      Gap(toNs(GapSeconds)), Eager(EagerLimit) {
  std::sort(Points.begin(), Points.end(),
            [](const Point &A, const Point &B) { return A.Bytes < B.Bytes; });
  for (const Point &P : Points) {
    if (!Table.empty() && Table.Sizes.back() == P.Bytes) {
      Table.Nanos.back() = P.Seconds * 1e9; // the later measurement of a size wins
      continue;
    }
    Table.Sizes.push_back(P.Bytes);
    Table.Nanos.push_back(P.Seconds * 1e9);
  }
  Table.fitTail();
}

TimeNs TableLinkModel::sendOverhead(uint64_t Bytes) const {
  return std::max<TimeNs>(0, roundNs(SendOverhead + SendPerByte * double(Bytes)));
}

TimeNs TableLinkModel::recvOverhead(uint64_t Bytes) const {
  return std::max<TimeNs>(0, roundNs(RecvOverhead + RecvPerByte * double(Bytes)));
}

void SizeTable::assign(const std::vector<std::pair<uint64_t, double>> &Points, bool FloorAtZero) {
  Sizes.clear();
  Nanos.clear();
  for (const auto &[Bytes, Seconds] : Points) {
    Sizes.push_back(Bytes);
    Nanos.push_back((FloorAtZero ? std::max(0.0, Seconds) : Seconds) * 1e9);
  }
  fitTail();
}

void SizeTable::fitTail() {
  TailNanos = Nanos.empty() ? 0 : Nanos.back();
  TailSlope = 0;
  if (Sizes.size() < 2)
    return;
  // Least squares over the sizes of at least half the largest (at least the last segment).
  const double Last = double(Sizes.back());
  size_t First = Sizes.size() - 2;
  while (First > 0 && double(Sizes[First - 1]) >= Last / 2)
    --First;
  const double N = double(Sizes.size() - First);
  double SumX = 0, SumY = 0;
  for (size_t I = First; I < Sizes.size(); ++I) {
    SumX += double(Sizes[I]);
    SumY += Nanos[I];
  }
  const double MeanX = SumX / N, MeanY = SumY / N;
  double Sxx = 0, Sxy = 0;
  for (size_t I = First; I < Sizes.size(); ++I) {
    Sxx += (double(Sizes[I]) - MeanX) * (double(Sizes[I]) - MeanX);
    Sxy += (double(Sizes[I]) - MeanX) * (Nanos[I] - MeanY);
  }
  if (Sxx <= 0)
    return;
  // The line's value at the largest size; beyond it never falling (a falling tail is noise,
  // or a protocol change the next sizes would show: held level).
  TailNanos = MeanY + Sxy / Sxx * (Last - MeanX);
  TailSlope = std::max(0.0, Sxy / Sxx);
}

TimeNs SizeTable::at(uint64_t Bytes) const {
  auto floored = [this](TimeNs T) { return Signed ? T : std::max<TimeNs>(0, T); };
  if (Sizes.empty())
    return 0;
  if (Sizes.size() == 1)
    return floored(roundNs(Nanos[0]));
  if (Bytes > Sizes.back())
    return floored(roundNs(TailNanos + TailSlope * double(Bytes - Sizes.back())));
  // The segment containing Bytes, or the first / last one to extrapolate along.
  size_t Hi = size_t(std::upper_bound(Sizes.begin(), Sizes.end(), Bytes) - Sizes.begin());
  Hi = std::clamp<size_t>(Hi, 1, Sizes.size() - 1);
  size_t Lo = Hi - 1;
  double X0 = double(Sizes[Lo]), X1 = double(Sizes[Hi]);
  double Y = Nanos[Lo] + (Nanos[Hi] - Nanos[Lo]) * ((double(Bytes) - X0) / (X1 - X0));
  return floored(roundNs(Y));
}

TimeNs TableLinkModel::transfer(uint64_t Bytes) const { return Table.at(Bytes); }

void LinkModel::setCopyTable(std::vector<std::pair<uint64_t, double>> Points) {
  Copies.assign(Points, false);
}

TimeNs LinkModel::localCopy(uint64_t Bytes) const { return Copies.at(Bytes); }

void LinkModel::setSameBufferTable(std::vector<std::pair<uint64_t, double>> Points) {
  SameBuffer.assign(Points, true);
}

TimeNs LinkModel::sameBufferExtra(uint64_t Bytes) const { return SameBuffer.at(Bytes); }

void LinkModel::setExchangeTables(const std::vector<std::pair<uint64_t, double>> &Contiguous,
                                  double PieceBytes,
                                  const std::vector<std::pair<uint64_t, double>> &Packed) {
  // The median share over the usable sizes, within [1/2, 1]; -1 when none is usable.
  auto ShareOf = [&](const std::vector<std::pair<uint64_t, double>> &Points, uint8_t Layout) {
    std::vector<double> Shares;
    for (const auto &[Bytes, Seconds] : Points) {
      if (Bytes <= eagerLimit() || !std::isfinite(Seconds))
        continue;
      double Contig = double(transfer(Bytes)), Fixed = Contig - double(streamTime(Bytes));
      double T = Layout ? std::max(0.0, Contig + double(packedExtra(Layout, Bytes))) : Contig;
      double S = T - Fixed;
      if (S <= 0 || S < 0.25 * T)
        continue;
      Shares.push_back(S / (S + std::max(0.0, Seconds * 1e9 - T)));
    }
    if (Shares.empty())
      return -1.0;
    std::sort(Shares.begin(), Shares.end());
    size_t N = Shares.size();
    double F = N % 2 ? Shares[N / 2] : 0.5 * (Shares[N / 2 - 1] + Shares[N / 2]);
    return std::clamp(F, 0.5, 1.0);
  };
  HasExchange = !Contiguous.empty();
  ExchangeShare = PackedExchangeShare = 1;
  EndpointRate = 0;
  const double R = sustainedStreamRate();
  if (R <= 0)
    return;
  double C = ShareOf(Contiguous, 0);
  double P =
      PieceBytes >= 1 && !Packed.empty() ? ShareOf(Packed, trace::classOfPiece(PieceBytes)) : -1.0;
  ExchangeShare = C > 0 ? C : 1;
  PackedExchangeShare = P > 0 ? P : ExchangeShare;
  if (ExchangeShare == 1 && PackedExchangeShare == 1)
    return;
  EndpointRate = 2 * ExchangeShare * R;
}

LinkModel::PackedTable
LinkModel::packedTable(double PieceBytes, const std::vector<std::pair<uint64_t, double>> &Points) {
  PackedTable T;
  T.Log2Piece = std::log2(std::max(1.0, PieceBytes));
  T.Extra.assign(Points, false);
  T.Extra.Signed = true;
  return T;
}

void LinkModel::addPackedTable(double PieceBytes, std::vector<std::pair<uint64_t, double>> Points) {
  Packed.push_back(packedTable(PieceBytes, Points));
}

void LinkModel::addUnpackedTable(double PieceBytes,
                                 std::vector<std::pair<uint64_t, double>> Points) {
  Unpacked.push_back(packedTable(PieceBytes, Points));
}

void LinkModel::addPackedCopyTable(double PieceBytes,
                                   std::vector<std::pair<uint64_t, double>> Points) {
  PackedCopies.push_back(packedTable(PieceBytes, Points));
}

TimeNs LinkModel::extraOfLayout(const std::vector<PackedTable> &Tables, uint8_t Layout,
                                uint64_t Bytes) {
  if (Layout == trace::LayoutContiguous || Tables.empty())
    return 0;
  const double X = std::log2(std::max(1.0, trace::pieceOfClass(Layout)));
  if (X <= Tables.front().Log2Piece)
    return Tables.front().Extra.at(Bytes);
  for (size_t I = 1; I < Tables.size(); ++I)
    if (X <= Tables[I].Log2Piece) {
      const PackedTable &A = Tables[I - 1], &B = Tables[I];
      const double W = (X - A.Log2Piece) / (B.Log2Piece - A.Log2Piece);
      return roundNs(double(A.Extra.at(Bytes)) * (1 - W) + double(B.Extra.at(Bytes)) * W);
    }
  return Tables.back().Extra.at(Bytes);
}

TimeNs LinkModel::packedExtra(uint8_t Layout, uint64_t Bytes) const {
  return extraOfLayout(Packed, Layout, Bytes);
}

TimeNs LinkModel::unpackedExtra(uint8_t Layout, uint64_t Bytes) const {
  return extraOfLayout(Unpacked, Layout, Bytes);
}

TimeNs LinkModel::layoutExtra(uint8_t SendLayout, uint8_t RecvLayout, uint64_t Bytes) const {
  if (Unpacked.empty())
    return packedExtra(trace::shorterPieces(SendLayout, RecvLayout), Bytes);
  return packedExtra(SendLayout, Bytes) + unpackedExtra(RecvLayout, Bytes);
}

TimeNs LinkModel::localCopy(uint64_t Bytes, uint8_t Layout) const {
  const TimeNs Copy = localCopy(Bytes);
  return std::max<TimeNs>(0, Copy + extraOfLayout(PackedCopies, Layout, Bytes));
}

void TableLinkModel::setStreamGaps(double G, double GEager) {
  GNs = std::max(0.0, G * 1e9);
  GEagerNs = GEager < 0 ? GNs : GEager * 1e9;
}

TimeNs TableLinkModel::streamTime(uint64_t Bytes) const {
  double PerByte = gapPerByte(Bytes);
  if (PerByte <= 0)
    return 0;
  return std::clamp<TimeNs>(roundNs(PerByte * double(Bytes)), 0, transfer(Bytes));
}

double TableLinkModel::streamRate(uint64_t Bytes) const {
  double PerByte = gapPerByte(Bytes);
  return PerByte > 0 ? 1 / PerByte : 0;
}

TimeNs LogGPSLinkModel::sendOverhead(uint64_t Bytes) const {
  return std::max<TimeNs>(0, toNs(P.Os + P.OsPerByte * double(Bytes)));
}
TimeNs LogGPSLinkModel::recvOverhead(uint64_t Bytes) const {
  return std::max<TimeNs>(0, toNs(P.Or + P.OrPerByte * double(Bytes)));
}
TimeNs LogGPSLinkModel::gap() const { return toNs(P.Gap); }

TimeNs LogGPSLinkModel::transfer(uint64_t Bytes) const {
  double Fixed = P.Os + P.L + P.Or;
  if (Bytes <= P.eagerLimit())
    return std::max<TimeNs>(0, toNs(Fixed + double(Bytes) * (P.GEager < 0 ? P.G : P.GEager)));
  return std::max<TimeNs>(0, toNs(3 * Fixed + double(Bytes) * P.G));
}

namespace {
double logGpsGap(const LogGpsParams &P, uint64_t Bytes) {
  return Bytes <= P.eagerLimit() && P.GEager >= 0 ? P.GEager : P.G;
}
} // namespace

TimeNs LogGPSLinkModel::streamTime(uint64_t Bytes) const {
  double PerByte = logGpsGap(P, Bytes);
  if (PerByte <= 0)
    return 0;
  return std::clamp<TimeNs>(toNs(PerByte * double(Bytes)), 0, transfer(Bytes));
}

double LogGPSLinkModel::streamRate(uint64_t Bytes) const {
  double PerByte = logGpsGap(P, Bytes);
  return PerByte > 0 ? 1e-9 / PerByte : 0;
}

const LinkModel &ClusterNetworkModel::link(int Src, int Dst) const {
  if (Src == Dst)
    return *Intra;
  bool Known = size_t(Src) < NodeOfRank.size() && size_t(Dst) < NodeOfRank.size();
  return Known && NodeOfRank[size_t(Src)] == NodeOfRank[size_t(Dst)] ? *Intra : *Inter;
}

void ClusterNetworkModel::setContention(ContentionKind Kind, double LinkBytesPerSecond) {
  Contention = Kind;
  Capacity = std::max(0.0, LinkBytesPerSecond * 1e-9);
}

int ClusterNetworkModel::nodeCount() const {
  if (Contention == ContentionKind::None || NodeOfRank.empty())
    return 0;
  return *std::max_element(NodeOfRank.begin(), NodeOfRank.end()) + 1;
}

int ClusterNetworkModel::nodeOf(int Rank) const {
  return Rank >= 0 && size_t(Rank) < NodeOfRank.size() ? NodeOfRank[size_t(Rank)] : -1;
}

double ClusterNetworkModel::endpointCapacity() const {
  if (Contention == ContentionKind::None && !NodeOfRank.empty())
    return 0;
  return Intra->endpointRate();
}

double ClusterNetworkModel::linkCapacity() const {
  if (Contention == ContentionKind::None)
    return 0;
  // A link carries at least what one pair alone keeps it busy with: a single transfer is
  // never slowed.
  return std::max(Capacity, Inter->sustainedStreamRate());
}

} // namespace mpiete::estimator
