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
  while (G != NoGroup &&
         !(Groups[G].Bound == Bound && std::equal(Route.begin(), Route.end(),
                                                  Groups[G].Route.begin(),
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

void LinkSharing::removeFlow(GroupId G) {
  Group &P = Groups[G];
  assert(P.Count > 0);
  if (--P.Count > 0)
    return;
  GroupId Last = Active.back();
  Active[P.ActivePos] = Last;
  Groups[Last].ActivePos = P.ActivePos;
  Active.pop_back();
}

void LinkSharing::solve() {
  for (GroupId G : Active) {
    Group &P = Groups[G];
    P.Frozen = false;
    for (uint32_t I = 0; I < P.RouteSize; ++I) {
      LinkId L = P.Route[I];
      if (Unfrozen[L] == 0) {
        Touched.push_back(L);
        Residual[L] = Capacity[L];
      }
      Unfrozen[L] += P.Count;
    }
  }
  constexpr double Infinity = std::numeric_limits<double>::infinity();
  // Every pass freezes at least one group: the one whose bound is the level, or those on the
  // link whose share is.
  size_t Left = Active.size();
  while (Left > 0) {
    double Level = Infinity;
    for (LinkId L : Touched) {
      Share[L] = Unfrozen[L] ? std::max(0.0, Residual[L]) / double(Unfrozen[L]) : Infinity;
      Level = std::min(Level, Share[L]);
    }
    for (GroupId G : Active)
      if (!Groups[G].Frozen)
        Level = std::min(Level, Groups[G].Bound);
    double Tie = Level * (1 + 1e-12);
    for (GroupId G : Active) {
      Group &P = Groups[G];
      if (P.Frozen)
        continue;
      if (P.Bound <= Tie) {
        P.Rate = P.Bound;
        P.AtBound = true;
      } else if (std::any_of(P.Route.begin(), P.Route.begin() + P.RouteSize,
                             [&](LinkId L) { return Share[L] <= Tie; })) {
        P.Rate = Level;
        P.AtBound = false;
      } else {
        continue;
      }
      P.Frozen = true;
      --Left;
      for (uint32_t I = 0; I < P.RouteSize; ++I) {
        Residual[P.Route[I]] -= P.Rate * double(P.Count);
        Unfrozen[P.Route[I]] -= P.Count;
      }
    }
  }
  for (LinkId L : Touched)
    Unfrozen[L] = 0;
  Touched.clear();
}

} // namespace mpiete::estimator
