// The what-if assumptions as replay hooks, the step map and the scaled network.
#include "mpiete/whatif/Scenario.h"
#include "mpiete/whatif/Messages.h"

#include <algorithm>
#include <cmath>

namespace mpiete::whatif {

using namespace estimator;

size_t StepMap::stepOf(int Rank, uint64_t Record) const {
  if (Rank < 0 || size_t(Rank) >= Ends.size())
    return steps();
  const std::vector<uint64_t> &E = Ends[size_t(Rank)];
  return size_t(std::lower_bound(E.begin(), E.end(), Record) - E.begin());
}

size_t StepMap::steps() const {
  size_t N = 0;
  for (const auto &E : Ends)
    N = std::max(N, E.size());
  return N;
}

StepMap buildStepMap(std::span<EventSource *const> Sources, BlockId Site) {
  StepMap M;
  M.Site = Site;
  M.Ends.resize(Sources.size());
  Event E;
  for (size_t R = 0; R < Sources.size(); ++R) {
    // A segment belongs to the call it ends at; a step ends with the last record of a run of
    // records of the site.
    bool InSite = false;
    uint64_t Last = 0;
    while (Sources[R]->next(E)) {
      bool AtSite = E.Block == Site;
      if (InSite && !AtSite)
        M.Ends[R].push_back(Last);
      InSite = AtSite;
      Last = E.Index;
    }
    if (InSite)
      M.Ends[R].push_back(Last);
  }
  return M;
}

void Scenario::merge(const Scenario &O) {
  ZeroWaitEvents.insert(O.ZeroWaitEvents.begin(), O.ZeroWaitEvents.end());
  ZeroWaitSites.insert(O.ZeroWaitSites.begin(), O.ZeroWaitSites.end());
  ZeroWaitMessages.insert(ZeroWaitMessages.end(), O.ZeroWaitMessages.begin(),
                          O.ZeroWaitMessages.end());
  if (O.Messages)
    Messages = O.Messages;
  KeepDataWaits = KeepDataWaits || O.KeepDataWaits;
  for (const auto &[K, F] : O.VolumeFactors)
    VolumeFactors[K] = F;
  Scales.insert(Scales.end(), O.Scales.begin(), O.Scales.end());
  for (const auto &[K, F] : O.StepFactors)
    StepFactors[K] = F;
  for (const auto &[K, F] : O.SegmentFactors)
    SegmentFactors[K] = F;
  if (O.Steps)
    Steps = O.Steps;
  Net.Latency *= O.Net.Latency;
  Net.Bandwidth *= O.Net.Bandwidth;
  Net.Overhead *= O.Net.Overhead;
  if (O.Net.EagerLimit)
    Net.EagerLimit = O.Net.EagerLimit;
  Label = Label.empty() ? O.Label : O.Label.empty() ? Label : Label + " + " + O.Label;
}

TimeNs ScenarioAssumptions::compute(int Rank, uint64_t Record, BlockId From, BlockId To,
                                    TimeNs Ns) const {
  double F = 1;
  for (const ComputeScale &C : S.Scales)
    if (C.To == To && (C.From == 0 || C.From == From))
      F *= C.Factor;
  if (!S.SegmentFactors.empty()) {
    auto It = S.SegmentFactors.find({Rank, {From, To}});
    if (It != S.SegmentFactors.end())
      F *= It->second;
    if (From != 0 && (It = S.SegmentFactors.find({Rank, {0, To}})) != S.SegmentFactors.end())
      F *= It->second; // every computation ending at To
  }
  if (S.Steps && !S.StepFactors.empty()) {
    auto It = S.StepFactors.find({Rank, S.Steps->stepOf(Rank, Record)});
    if (It != S.StepFactors.end())
      F *= It->second;
  }
  return F == 1 ? Ns : TimeNs(std::llround(double(Ns) * F));
}

bool ScenarioAssumptions::zeroWait(int Rank, uint64_t Record, BlockId Block) const {
  auto Targeted = [&] {
    if (S.ZeroWaitSites.count(Block) || S.ZeroWaitEvents.count({Rank, Record}))
      return true;
    for (const MessageSet &M : S.ZeroWaitMessages) {
      if ((M.Rank >= 0 && M.Rank != Rank) || (M.Site && M.Site != Block))
        continue;
      if (!M.needsIndex())
        return true;
      if (S.Messages && S.Messages->completes(Rank, Record, M))
        return true;
    }
    return false;
  };
  // A wait for data stays (KeepDataWaits); looked up only for the waits a scenario targets, not
  // for every wait of every replay.
  return Targeted() && !(S.KeepDataWaits && S.Messages && S.Messages->waitsForData(Rank, Record));
}

namespace {

class ScaledLink : public LinkModel {
public:
  ScaledLink(const LinkModel &B, NetworkScale S) : B(B), S(S) {}
  TimeNs sendOverhead(uint64_t Bytes) const override {
    return TimeNs(std::llround(double(B.sendOverhead(Bytes)) * S.Overhead));
  }
  TimeNs recvOverhead(uint64_t Bytes) const override {
    return TimeNs(std::llround(double(B.recvOverhead(Bytes)) * S.Overhead));
  }
  TimeNs transfer(uint64_t Bytes) const override {
    const double Zero = double(B.transfer(0));
    const double Rest = double(B.transfer(Bytes)) - Zero;
    return TimeNs(std::llround(Zero * S.Latency + Rest / S.Bandwidth));
  }
  uint64_t eagerLimit() const override { return S.EagerLimit ? *S.EagerLimit : B.eagerLimit(); }
  TimeNs gap() const override { return TimeNs(std::llround(double(B.gap()) / S.Bandwidth)); }
  TimeNs streamTime(uint64_t Bytes) const override {
    return TimeNs(std::llround(double(B.streamTime(Bytes)) / S.Bandwidth));
  }
  double streamRate(uint64_t Bytes) const override { return B.streamRate(Bytes) * S.Bandwidth; }
  double sustainedStreamRate() const override { return B.sustainedStreamRate() * S.Bandwidth; }

private:
  const LinkModel &B;
  NetworkScale S;
};

} // namespace

ScaledNetworkModel::~ScaledNetworkModel() = default;

const LinkModel &ScaledNetworkModel::link(int Src, int Dst) const {
  const LinkModel &L = Base.link(Src, Dst);
  std::unique_ptr<LinkModel> &Slot = Links[&L];
  if (!Slot)
    Slot = std::make_unique<ScaledLink>(L, Scale);
  return *Slot;
}

} // namespace mpiete::whatif
