// Max-min fair sharing of link capacities among flows (progressive filling), the theory under
// the engine's contention model, kept apart from the engine so that it is tested on its own.
//
// Each flow crosses a route of links and wants at most its bound; each link has a capacity.
// The rates are max-min fair when no flow's rate can grow without lowering the rate of a flow
// whose rate is not larger; progressive filling finds them: raise every flow's rate together
// until a link is full or a flow reaches its bound, freeze the flows concerned, repeat with the
// rest. Rates, bounds and capacities share one unit (the engine uses bytes per ns).
//
// Flows with the same route and bound always get the same rate, so they are kept as one group
// with a count: solving costs the number of groups, not of flows.
#ifndef MPIETE_ESTIMATOR_LINKSHARING_H
#define MPIETE_ESTIMATOR_LINKSHARING_H

#include "mpiete/estimator/FlatMap.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <span>
#include <vector>

namespace mpiete::estimator {

class LinkSharing {
public:
  using LinkId = uint32_t;
  /// A group of identical flows. Ids are dense from 0 and stay valid, empty or not.
  using GroupId = uint32_t;
  /// The most links a route may cross.
  static constexpr size_t MaxRoute = 4;

  /// A new link; returns its id (dense from 0).
  LinkId addLink(double Capacity);
  size_t linkCount() const { return Capacity.size(); }

  /// Adds a flow over Route (distinct links, 1 to MaxRoute of them) wanting at most Bound, and
  /// returns its group: an existing one if a flow with this route and bound was added before.
  GroupId addFlow(std::span<const LinkId> Route, double Bound);
  /// Removes one flow of G, which must have one.
  void removeFlow(GroupId G) {
    Group &P = Groups[G];
    assert(P.Count > 0);
    if (--P.Count > 0)
      return;
    GroupId Last = Active.back();
    Active[P.ActivePos] = Last;
    Groups[Last].ActivePos = P.ActivePos;
    Active.pop_back();
  }

  /// The groups that have flows. The order depends only on the calls made: a group that gets
  /// its first flow goes last, one that loses its last flow is replaced by the last one, so a
  /// backward walk may remove flows of the group it stands on.
  std::span<const GroupId> activeGroups() const { return Active; }
  size_t groupCount() const { return Groups.size(); }
  uint64_t flowCount(GroupId G) const { return Groups[G].Count; }
  double bound(GroupId G) const { return Groups[G].Bound; }

  /// Shares every link out among the active groups' flows, from scratch: only the last bits
  /// of rounding depend on the order of activeGroups(). Rates within a relative 1e-12 of each
  /// other are treated as equal, which saves passes.
  void solve();
  /// The rate of each flow of G as of the last solve().
  double rate(GroupId G) const { return Groups[G].Rate; }
  /// Whether G's flows got their bound (then rate(G) == bound(G) exactly) rather than being
  /// held back by a full link.
  bool atBound(GroupId G) const { return Groups[G].AtBound; }

private:
  static constexpr uint32_t NoGroup = ~0U;

  struct Group {
    std::array<LinkId, MaxRoute> Route{};
    uint32_t RouteSize = 0;
    double Bound = 0;
    uint64_t Count = 0;
    double Rate = 0;
    uint32_t ActivePos = 0;
    uint32_t NextSameKey = NoGroup; ///< next group whose key hashes alike
    bool AtBound = false;
  };

  static uint64_t keyOf(std::span<const LinkId> Route, double Bound);

  std::vector<Group> Groups;
  std::vector<GroupId> Active;
  FlatMap<uint32_t> GroupIndex; ///< key -> first group with that key
  std::vector<double> Capacity; ///< by link
  // Scratch space of solve(), by link unless said otherwise.
  std::vector<double> Residual;     ///< capacity not given out yet
  std::vector<double> Share;        ///< residual / unfrozen flows
  std::vector<uint64_t> Unfrozen;   ///< flows not frozen yet (0 between solves)
  std::vector<LinkId> TouchedLinks; ///< room for every link
  std::vector<GroupId> Pending;     ///< the groups not frozen yet, in active order
};

} // namespace mpiete::estimator

#endif
