// Max-min fair link sharing by progressive filling over groups of identical flows.
#include "LinkSharing.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>

namespace mpiete::estimator {

LinkSharing::LinkId LinkSharing::addLink(double Cap) {
  Capacity.push_back(Cap);
  Residual.push_back(0);
  Share.push_back(0);
  Unfrozen.push_back(0);
  TouchedLinks.push_back(0);
  return LinkId(Capacity.size() - 1);
}

uint64_t LinkSharing::keyOf(std::span<const LinkId> Route, double Bound) {
  // Only a hint: groups with equal keys are told apart by comparing route and bound.
  uint64_t Key = std::bit_cast<uint64_t>(Bound);
  for (LinkId L : Route)
    Key = (Key ^ L) * 0x9e3779b97f4a7c15ULL + L;
  return Key;
}

LinkSharing::GroupId LinkSharing::addFlow(std::span<const LinkId> Route, double Bound) {
  assert(!Route.empty() && Route.size() <= MaxRoute);
  uint32_t &Head = GroupIndex.getOrInsert(keyOf(Route, Bound), NoGroup);
  GroupId G = Head;
  while (G != NoGroup && !(Groups[G].Bound == Bound &&
                           std::equal(Route.begin(), Route.end(), Groups[G].Route.begin(),
                                      Groups[G].Route.begin() + Groups[G].RouteSize)))
    G = Groups[G].NextSameKey;
  if (G == NoGroup) {
    G = GroupId(Groups.size());
    Group New;
    std::copy(Route.begin(), Route.end(), New.Route.begin());
    New.RouteSize = uint32_t(Route.size());
    New.Bound = Bound;
    New.NextSameKey = Head;
    Head = G;
    Groups.push_back(New);
  }
  Group &P = Groups[G];
  if (P.Count++ == 0) {
    P.ActivePos = uint32_t(Active.size());
    Active.push_back(G);
  }
  return G;
}

void LinkSharing::solve() {
  constexpr double Infinity = std::numeric_limits<double>::infinity();
  // Plain pointers and locals: through the vectors and group fields the compiler would reload
  // everything after each store, and this runs whenever a flow starts or ends.
  const double *Cap = Capacity.data();
  double *Res = Residual.data();
  double *Shr = Share.data();
  uint64_t *Unf = Unfrozen.data();
  LinkId *Touched = TouchedLinks.data(); // the links with unfrozen flows
  size_t NumTouched = 0;
  Pending.assign(Active.begin(), Active.end());
  double MinBound = Infinity; // of the pending groups
  for (GroupId G : Pending) {
    const Group &P = Groups[G];
    MinBound = std::min(MinBound, P.Bound);
    uint64_t Count = P.Count;
    for (uint32_t I = 0, N = P.RouteSize; I < N; ++I) {
      LinkId L = P.Route[I];
      if (Unf[L] == 0) {
        Touched[NumTouched++] = L;
        Res[L] = Cap[L];
      }
      Unf[L] += Count;
    }
  }
  // Every pass freezes at least one group: the one whose bound is the level, or those on the
  // link whose share is. Frozen groups and links without unfrozen flows drop out of the later
  // passes (a link without flows has an infinite share, which never sets the level).
  while (!Pending.empty()) {
    double Level = MinBound;
    for (size_t I = 0; I < NumTouched; ++I) {
      LinkId L = Touched[I];
      Shr[L] = std::max(0.0, Res[L]) / double(Unf[L]);
      Level = std::min(Level, Shr[L]);
    }
    double Tie = Level * (1 + 1e-12);
    size_t Kept = 0;
    MinBound = Infinity;
    for (GroupId G : Pending) {
      Group &P = Groups[G];
      uint32_t N = P.RouteSize;
      double Rate;
      if (P.Bound <= Tie) {
        Rate = P.Bound;
        P.AtBound = true;
      } else if (std::any_of(P.Route.begin(), P.Route.begin() + N,
                             [&](LinkId L) { return Shr[L] <= Tie; })) {
        Rate = Level;
        P.AtBound = false;
      } else {
        Pending[Kept++] = G;
        MinBound = std::min(MinBound, P.Bound);
        continue;
      }
      P.Rate = Rate;
      uint64_t Count = P.Count;
      double Taken = Rate * double(Count);
      for (uint32_t I = 0; I < N; ++I) {
        Res[P.Route[I]] -= Taken;
        Unf[P.Route[I]] -= Count;
      }
    }
    Pending.resize(Kept);
    NumTouched = size_t(
        std::remove_if(Touched, Touched + NumTouched, [&](LinkId L) { return Unf[L] == 0; }) -
        Touched);
  }
}

} // namespace mpiete::estimator
